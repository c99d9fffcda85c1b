#include "service/report/time_zone.h"

#include <date/tz.h>

#include <cstdio>
#include <cstdlib>

namespace pc {
namespace {

const date::time_zone* Find(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find("..") != std::string::npos) return nullptr;
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return nullptr;  // not in the database, or no database at all
  }
}

}  // namespace

bool KnownTimeZone(const std::string& name) { return name == "UTC" || Find(name) != nullptr; }

int UtcOffsetMinutes(const std::string& zone, int64_t unix_ms) {
  const date::time_zone* tz = Find(zone);
  if (!tz) return 0;
  const auto at = date::floor<std::chrono::seconds>(
      date::sys_time<std::chrono::milliseconds>{std::chrono::milliseconds(unix_ms)});
  try {
    return static_cast<int>(tz->get_info(at).offset.count() / 60);
  } catch (const std::exception&) {
    return 0;
  }
}

std::string FormatZonedTime(const std::string& zone, int64_t unix_ms) {
  const int offset = UtcOffsetMinutes(zone, unix_ms);
  const date::sys_time<std::chrono::milliseconds> local{
      std::chrono::milliseconds(unix_ms + int64_t{offset} * 60000)};
  const auto day = date::floor<date::days>(local);
  const date::year_month_day ymd{day};
  const auto hm = date::make_time(local - day);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02d:%02d %c%02d:%02d", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), int(hm.hours().count()),
                int(hm.minutes().count()), offset < 0 ? '-' : '+', std::abs(offset) / 60,
                std::abs(offset) % 60);
  return buf;
}

}  // namespace pc
