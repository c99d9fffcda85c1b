// Where sessions' context went (seed 002, "before the fix, we measured"): characters of tool
// results, system prompt, assistant text and user input over a set of transcripts — totals, share
// of the context, average per session — and the most extreme session (the most tool-result text).
// A tool call's name and arguments are the assistant's text: the model wrote them.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "session/transcript.h"

namespace pc {

enum class ContextCategory { kToolResults, kSystemPrompt, kAssistantText, kUserInput };
inline constexpr size_t kContextCategories = 4;
const char* ContextCategoryName(ContextCategory c);  // "Tool results", …
ContextCategory CategoryOf(TranscriptPart part);

struct SessionChars {
  std::string name;  // the transcript's path (or session id)
  std::array<int64_t, kContextCategories> chars{};
  int64_t total() const;
};

struct SessionStats {
  std::vector<SessionChars> sessions;
  std::array<int64_t, kContextCategories> totals{};
  int64_t total() const;
};

SessionChars CountSession(const std::string& name, const Transcript& t);
SessionStats Summarize(std::vector<SessionChars> sessions);

// A captured transcript turn's source metadata carries its characters by category under this key
// (the hook writes it; GET /v1/stats?sessions=true adds them up per session).
inline constexpr const char* kContextCharsKey = "context_chars";
nlohmann::json ContextCharsJson(const std::array<int64_t, kContextCategories>& chars);
// Reads them back from a source's metadata JSON text: false when it has none.
bool ContextCharsFromMetadata(const std::string& metadata_json, std::string& session_id,
                              std::array<int64_t, kContextCategories>& chars);

// The seed's table, box-drawn, plus the most extreme session.
std::string FormatSessionStats(const SessionStats& s);
nlohmann::json SessionStatsJson(const SessionStats& s);
// Back from that JSON (its per_session list), for a client printing a server's answer.
SessionStats SessionStatsFromJson(const nlohmann::json& j);

}  // namespace pc
