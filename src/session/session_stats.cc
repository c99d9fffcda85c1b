#include "session/session_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "session/fields.h"

namespace pc {
namespace {

double Share(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Pads to `width` display columns (every character here is one column wide).
std::string Pad(const std::string& s, size_t width, bool right) {
  const size_t n = static_cast<size_t>(TextChars(s));
  const std::string fill(n < width ? width - n : 0, ' ');
  return right ? fill + s : s + fill;
}

const SessionChars* MostExtreme(const SessionStats& s) {
  const SessionChars* best = nullptr;
  for (const SessionChars& c : s.sessions)
    if (!best || c.chars[0] > best->chars[0]) best = &c;
  return best;
}

}  // namespace

const char* ContextCategoryName(ContextCategory c) {
  switch (c) {
    case ContextCategory::kToolResults:
      return "Tool results";
    case ContextCategory::kSystemPrompt:
      return "System prompt";
    case ContextCategory::kAssistantText:
      return "Assistant text";
    case ContextCategory::kUserInput:
      return "User input";
  }
  return "User input";
}

ContextCategory CategoryOf(TranscriptPart part) {
  switch (part) {
    case TranscriptPart::kToolResult:
      return ContextCategory::kToolResults;
    case TranscriptPart::kSystem:
      return ContextCategory::kSystemPrompt;
    case TranscriptPart::kAssistant:
    case TranscriptPart::kToolCall:
      return ContextCategory::kAssistantText;
    case TranscriptPart::kUser:
      return ContextCategory::kUserInput;
  }
  return ContextCategory::kUserInput;
}

int64_t SessionChars::total() const {
  int64_t n = 0;
  for (int64_t c : chars) n += c;
  return n;
}

int64_t SessionStats::total() const {
  int64_t n = 0;
  for (int64_t c : totals) n += c;
  return n;
}

SessionChars CountSession(const std::string& name, const Transcript& t) {
  SessionChars out;
  out.name = name;
  for (const TranscriptEntry& e : t.entries)
    out.chars[static_cast<size_t>(CategoryOf(e.part))] += TextChars(e.text);
  return out;
}

SessionStats Summarize(std::vector<SessionChars> sessions) {
  SessionStats s;
  s.sessions = std::move(sessions);
  for (const SessionChars& c : s.sessions)
    for (size_t i = 0; i < kContextCategories; ++i) s.totals[i] += c.chars[i];
  return s;
}

std::string FormatSessionStats(const SessionStats& s) {
  const size_t n = s.sessions.size();
  std::string out = "Session context breakdown (" + std::to_string(n) +
                    (n == 1 ? " session" : " sessions") + ", chars):\n";
  const size_t w[4] = {18, 11, 11, 13};
  auto rule = [&](const char* l, const char* m, const char* r) {
    std::string line = l;
    for (size_t i = 0; i < 4; ++i) {
      for (size_t k = 0; k < w[i]; ++k) line += "─";
      line += i < 3 ? m : r;
    }
    return line + "\n";
  };
  auto row = [&](const std::string& a, const std::string& b, const std::string& c,
                 const std::string& d, bool numbers) {
    return "│ " + Pad(a, w[0] - 1, false) + "│ " + Pad(b, w[1] - 2, numbers) + " │ " +
           Pad(c, w[2] - 2, numbers) + " │ " + Pad(d, w[3] - 2, numbers) + " │\n";
  };
  out += rule("┌", "┬", "┐");
  out += row("Category", "Total", "% of ctx", "Avg/session", false);
  out += rule("├", "┼", "┤");
  std::vector<size_t> order = {0, 1, 2, 3};
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return s.totals[a] > s.totals[b]; });
  for (size_t i : order) {
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", Share(s.totals[i], s.total()));
    out +=
        row(ContextCategoryName(static_cast<ContextCategory>(i)), WithThousands(s.totals[i]), share,
            WithThousands(n ? static_cast<int64_t>(std::llround(static_cast<double>(s.totals[i]) /
                                                                static_cast<double>(n)))
                            : 0),
            true);
  }
  out += rule("└", "┴", "┘");
  if (const SessionChars* x = MostExtreme(s)) {
    const int64_t talk = x->chars[static_cast<size_t>(ContextCategory::kUserInput)] +
                         x->chars[static_cast<size_t>(ContextCategory::kAssistantText)];
    out += "Most extreme session: " + x->name + ": " + WithThousands(x->chars[0]) +
           " chars of tool results, " + WithThousands(talk) +
           " chars of user input and assistant text together.\n";
  }
  return out;
}

namespace {
constexpr const char* kCategoryKeys[] = {"tool_results", "system_prompt", "assistant_text",
                                         "user_input"};
}  // namespace

nlohmann::json ContextCharsJson(const std::array<int64_t, kContextCategories>& chars) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < kContextCategories; ++i) j[kCategoryKeys[i]] = chars[i];
  return j;
}

bool ContextCharsFromMetadata(const std::string& metadata_json, std::string& session_id,
                              std::array<int64_t, kContextCategories>& chars) {
  if (metadata_json.find(kContextCharsKey) == std::string::npos)
    return false;  // most sources: no parse
  nlohmann::json m = nlohmann::json::parse(metadata_json, nullptr, false);
  if (!m.is_object() || !m.contains(kContextCharsKey) || !m[kContextCharsKey].is_object())
    return false;
  const nlohmann::json& c = m[kContextCharsKey];
  for (size_t i = 0; i < kContextCategories; ++i) {
    auto it = c.find(kCategoryKeys[i]);
    chars[i] =
        it != c.end() && it->is_number_integer() && it->get<int64_t>() > 0 ? it->get<int64_t>() : 0;
  }
  session_id =
      m.value("session_id", nlohmann::json()).is_string() ? m["session_id"].get<std::string>() : "";
  return true;
}

nlohmann::json SessionStatsJson(const SessionStats& s) {
  using Json = nlohmann::json;
  const double n = static_cast<double>(s.sessions.size());
  auto by_name = [](const std::array<int64_t, kContextCategories>& chars) {
    return ContextCharsJson(chars);
  };
  Json categories = Json::array();
  for (size_t i = 0; i < kContextCategories; ++i)
    categories.push_back(
        Json{{"category", kCategoryKeys[i]},
             {"total", s.totals[i]},
             {"share", std::round(Share(s.totals[i], s.total()) * 10) / 1000},
             {"per_session", n > 0 ? std::round(static_cast<double>(s.totals[i]) / n) : 0.0}});
  Json sessions = Json::array();
  for (const SessionChars& c : s.sessions)
    sessions.push_back(Json{{"name", c.name}, {"chars", by_name(c.chars)}});
  Json out{{"sessions", s.sessions.size()},
           {"total_chars", s.total()},
           {"categories", categories},
           {"per_session", sessions},
           {"most_extreme", Json()}};
  if (const SessionChars* x = MostExtreme(s))
    out["most_extreme"] = Json{{"name", x->name}, {"chars", by_name(x->chars)}};
  return out;
}

SessionStats SessionStatsFromJson(const nlohmann::json& j) {
  std::vector<SessionChars> sessions;
  if (j.is_object() && j.contains("per_session") && j["per_session"].is_array())
    for (const nlohmann::json& p : j["per_session"]) {
      SessionChars c;
      c.name = p.contains("name") && p["name"].is_string() ? p["name"].get<std::string>() : "";
      std::string ignored;
      if (p.contains("chars")) {
        nlohmann::json wrapped{{kContextCharsKey, p["chars"]}};
        ContextCharsFromMetadata(wrapped.dump(), ignored, c.chars);
      }
      sessions.push_back(std::move(c));
    }
  return Summarize(std::move(sessions));
}

}  // namespace pc
