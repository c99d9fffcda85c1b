#include "common/clock.h"

#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace pc {

namespace {
std::atomic<int64_t> clock_offset_ms{0};
}  // namespace

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count() +
         clock_offset_ms.load(std::memory_order_relaxed);
}

void SetClockOffsetForTesting(int64_t ms) { clock_offset_ms.store(ms); }

std::string FormatTimestamp(int64_t unix_ms) {
  std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];  // room for any int the compiler can imagine in the fields
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(unix_ms % 1000));
  return buf;
}

std::optional<int64_t> ParseTimestamp(const std::string& text) {
  // Exactly FormatTimestamp's shape: YYYY-MM-DDTHH:MM:SS.mmmZ.
  if (text.size() != 24 || text[19] != '.' || text[23] != 'Z') return std::nullopt;
  return ParseRfc3339(text);
}

std::optional<int64_t> ParseRfc3339(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end) return std::nullopt;
  // strptime takes any day 1–31 in any month and timegm moves 2027-02-30 to March 2: refuse it.
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int year = tm.tm_year + 1900;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (tm.tm_mon < 0 || tm.tm_mon > 11 ||
      tm.tm_mday > kDays[tm.tm_mon] + (tm.tm_mon == 1 && leap ? 1 : 0))
    return std::nullopt;
  int64_t ms = 0;
  if (*end == '.') {
    int digits = 0;
    for (++end; *end >= '0' && *end <= '9'; ++end, ++digits)
      if (digits < 3) ms = ms * 10 + (*end - '0');
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) ms *= 10;
  }
  int64_t offset_min = 0;
  if (*end == 'Z' || *end == 'z') {
    ++end;
  } else if ((*end == '+' || *end == '-') && std::isdigit(end[1]) && std::isdigit(end[2]) &&
             end[3] == ':' && std::isdigit(end[4]) && std::isdigit(end[5])) {
    offset_min = ((end[1] - '0') * 10 + (end[2] - '0')) * 60 + (end[4] - '0') * 10 + (end[5] - '0');
    if (*end == '-') offset_min = -offset_min;
    end += 6;
  } else {
    return std::nullopt;
  }
  if (*end != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms - offset_min * 60000;
}

std::optional<int64_t> ParseDurationMs(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const int64_t per = unit == 'd' ? 86400000 : unit == 'h' ? 3600000 : unit == 'm' ? 60000 : 0;
  if (per == 0) return std::nullopt;
  int64_t n = 0;
  const char* last = text.data() + text.size() - 1;
  auto [ptr, ec] = std::from_chars(text.data(), last, n);
  // n is checked before it is multiplied: "576460752303423489m" must not wrap to a minute.
  if (ec != std::errc() || ptr != last || n <= 0 || n > int64_t{3650} * 86400000 / per)
    return std::nullopt;
  return n * per;
}

std::string FormatDurationMs(int64_t ms) {
  if (ms >= 86400000 && ms % 86400000 == 0) return std::to_string(ms / 86400000) + "d";
  if (ms >= 3600000 && ms % 3600000 == 0) return std::to_string(ms / 3600000) + "h";
  return std::to_string(ms / 60000) + "m";
}

std::optional<int64_t> ParseMoment(const std::string& text, int64_t now_ms) {
  if (std::optional<int64_t> d = ParseDurationMs(text)) return now_ms + *d;
  if (text.size() == 10) return ParseRfc3339(text + "T00:00:00Z");
  return ParseRfc3339(text);
}

}  // namespace pc
