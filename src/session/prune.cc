#include "session/prune.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/clock.h"
#include "common/utf8.h"
#include "session/fields.h"
#include "session/transcript.h"  // TextChars

namespace pc {
using Json = nlohmann::json;

namespace {

// Characters of a content value: a string, or an array of blocks (text, a tool call's input, a
// tool result's content; images count nothing).
int64_t ContentChars(const Json& c) {
  if (c.is_string()) return TextChars(c.get_ref<const std::string&>());
  if (!c.is_array()) return 0;
  int64_t n = 0;
  for (const Json& b : c) {
    if (!b.is_object()) continue;
    const std::string type = StringField(b, "type");
    auto text = b.find("text");
    if (text != b.end() && text->is_string())
      n += TextChars(text->get_ref<const std::string&>());
    else if (type == "tool_use" && b.contains("input"))
      n += TextChars(b["input"].dump(-1, ' ', false, Json::error_handler_t::replace));
    else if (type == "tool_result" && b.contains("content"))
      n += ContentChars(b["content"]);
  }
  return n;
}

int64_t MessageChars(const Json& m) {
  int64_t n = m.contains("content") ? ContentChars(m["content"]) : 0;
  auto calls = m.find("tool_calls");
  if (calls != m.end() && calls->is_array())
    for (const Json& call : *calls) {
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object())
        continue;
      auto args = call["function"].find("arguments");
      if (args != call["function"].end() && args->is_string())
        n += TextChars(args->get_ref<const std::string&>());
    }
  return n;
}

bool HasImage(const Json& c) {
  if (!c.is_array()) return false;
  for (const Json& b : c) {
    if (!b.is_object()) continue;
    const std::string type = StringField(b, "type");
    if (type == "image" || type == "image_url" || type == "input_image") return true;
  }
  return false;
}

constexpr std::string_view kPlaceholderStart = "[PowerContext pruned this tool result: ";

// A result already pruned (by an earlier pass over the same list) is never pruned again: its
// placeholder keeps the original size. (The fuzzer found a second pass re-pruning placeholders.)
bool AlreadyPruned(const Json& content) {
  return content.is_string() &&
         content.get_ref<const std::string&>().rfind(kPlaceholderStart, 0) == 0;
}

// One tool result: a whole OpenAI `tool` message, or one Anthropic `tool_result` block.
struct ToolResult {
  int64_t message = 0;
  std::optional<int64_t> block;
  std::string call_id;
  int64_t chars = 0;
  bool image = false;
  std::optional<int64_t> at_ms;
  bool pruned = false;  // now, or before (AlreadyPruned)
};

Json& ContentOf(Json& messages, const ToolResult& r) {
  Json& m = messages[static_cast<size_t>(r.message)];
  return r.block ? m["content"][static_cast<size_t>(*r.block)]["content"] : m["content"];
}

Status Field(const std::string& field, const std::string& what) {
  return FieldError(field, field + " " + what);
}

}  // namespace

std::string PrunePlaceholder(const std::string& tool, int64_t chars,
                             std::optional<int64_t> age_seconds) {
  std::string out = std::string(kPlaceholderStart) + WithThousands(chars) + " characters of " +
                    (tool.empty() ? std::string("tool") : tool) + " output";
  if (age_seconds) out += ", " + WithThousands(*age_seconds) + " s old";
  return out + ". Run the tool again if it is still needed.]";
}

Json PruneResultJson(const PruneResult& r, Json messages) {
  Json pruned = Json::array();
  for (const PrunedItem& p : r.pruned)
    pruned.push_back(Json{{"message_index", p.message_index},
                          {"block_index", p.block_index ? Json(*p.block_index) : Json()},
                          {"tool", p.tool.empty() ? Json() : Json(p.tool)},
                          {"chars_saved", p.chars},
                          {"age_seconds", p.age_seconds ? Json(*p.age_seconds) : Json()},
                          {"why", p.why}});
  const double ratio = r.chars_before > 0 ? static_cast<double>(r.chars_before - r.chars_after) /
                                                static_cast<double>(r.chars_before)
                                          : 0.0;
  return Json{{"messages", std::move(messages)},
              {"format", r.format},
              {"tool_results", r.tool_results},
              {"pruned", pruned},
              {"chars_before", r.chars_before},
              {"chars_after", r.chars_after},
              {"chars_saved", r.chars_before - r.chars_after},
              {"saved_ratio", std::round(ratio * 1000) / 1000},
              {"notes", r.notes}};
}

namespace {

Status CheckPolicy(const Json& messages, const PrunePolicy& policy) {
  if (!messages.is_array()) return Field("messages", "must be an array of messages");
  if (policy.ttl_seconds < 0) return Field("ttl", "must be 0 or more seconds");
  if (policy.min_prunable_tool_chars < 0)
    return Field("min_prunable_tool_chars", "must be 0 or more");
  if (policy.hard_clear_ratio < 0 || policy.hard_clear_ratio > 1)
    return Field("hard_clear_ratio", "must be between 0 and 1");
  if (policy.keep_recent_turns < 0) return Field("keep_recent_turns", "must be 0 or more");
  if (policy.context_window_tokens < 1) return Field("context_window_tokens", "must be 1 or more");
  return Status::Ok();
}

// What a message list holds: its tool calls' names, its tool results, where its turns start.
struct Scan {
  std::map<std::string, std::string> tool_names;  // call id -> tool name
  std::vector<ToolResult> results;
  std::vector<int64_t> turn_starts;
  bool anthropic = false, openai = false;
  int64_t chars = 0;
};

// The message's timestamp, when it has one, moves the clock.
Status ReadClock(const Json& m, const std::string& at, std::optional<int64_t>& clock) {
  auto ts = m.find("timestamp");
  if (ts == m.end() || ts->is_null()) return Status::Ok();
  if (ts->is_number_integer())
    clock = ts->get<int64_t>();
  else if (ts->is_string() && ParseRfc3339(ts->get<std::string>()))
    clock = ParseRfc3339(ts->get<std::string>());
  else
    return Field(at + ".timestamp", "must be an RFC 3339 time or milliseconds since the epoch");
  return Status::Ok();
}

// An assistant message's tool calls (OpenAI's tool_calls, Anthropic's tool_use blocks).
void NoteToolCalls(const Json& m, const Json* content, Scan& scan) {
  if (auto calls = m.find("tool_calls"); calls != m.end() && calls->is_array())
    for (const Json& call : *calls)
      if (call.is_object() && call.contains("id") && call["id"].is_string() &&
          call.contains("function") && call["function"].is_object() &&
          call["function"].contains("name") && call["function"]["name"].is_string()) {
        scan.tool_names[call["id"].get<std::string>()] =
            call["function"]["name"].get<std::string>();
        scan.openai = true;
      }
  if (content && content->is_array())
    for (const Json& b : *content)
      if (b.is_object() && StringField(b, "type") == "tool_use" && b.contains("id") &&
          b["id"].is_string()) {
        scan.tool_names[b["id"].get<std::string>()] = StringField(b, "name");
        scan.anthropic = true;
      }
}

// A user message's tool_result blocks (Anthropic); whether it also says something (a turn).
bool NoteUserResults(const Json* content, int64_t message, std::optional<int64_t> clock,
                     Scan& scan) {
  bool says_something = !content || !content->is_array();
  if (!content || !content->is_array()) return says_something;
  for (size_t b = 0; b < content->size(); ++b) {
    const Json& block = (*content)[b];
    if (!block.is_object() || StringField(block, "type") != "tool_result") {
      says_something = true;
      continue;
    }
    scan.anthropic = true;
    ToolResult r;
    r.message = message;
    r.block = static_cast<int64_t>(b);
    r.call_id = StringField(block, "tool_use_id");
    r.chars = block.contains("content") ? ContentChars(block["content"]) : 0;
    r.image = block.contains("content") && HasImage(block["content"]);
    r.pruned = block.contains("content") && AlreadyPruned(block["content"]);
    r.at_ms = clock;
    scan.results.push_back(r);
  }
  return says_something;
}

// Reads every message first: nothing changes unless the whole list is valid.
Result<Scan> ScanMessages(const Json& messages) {
  Scan scan;
  std::optional<int64_t> clock;  // the last timestamp seen
  for (size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return Field(at, "must be an object with a string role");
    PC_RETURN_IF_ERROR(ReadClock(m, at, clock));
    const std::string role = m["role"].get<std::string>();
    scan.chars += MessageChars(m);
    const Json* content = m.contains("content") ? &m["content"] : nullptr;
    if (role == "assistant") {
      NoteToolCalls(m, content, scan);
    } else if (role == "tool") {
      scan.openai = true;
      ToolResult r;
      r.message = static_cast<int64_t>(i);
      r.call_id = StringField(m, "tool_call_id");
      r.chars = content ? ContentChars(*content) : 0;
      r.image = content && HasImage(*content);
      r.pruned = content && AlreadyPruned(*content);
      r.at_ms = clock;
      scan.results.push_back(r);
    } else if (role == "user") {
      if (NoteUserResults(content, static_cast<int64_t>(i), clock, scan))
        scan.turn_starts.push_back(static_cast<int64_t>(i));
    }
  }
  return scan;
}

// The recent turns, kept whole: the first message of the keep_recent_turns-th last turn.
int64_t ProtectedFrom(const Json& messages, const PrunePolicy& policy, const Scan& scan,
                      PruneResult& out) {
  int64_t protected_from = static_cast<int64_t>(messages.size());
  if (policy.keep_recent_turns <= 0) return protected_from;
  if (static_cast<int64_t>(scan.turn_starts.size()) >= policy.keep_recent_turns)
    return scan
        .turn_starts[scan.turn_starts.size() - static_cast<size_t>(policy.keep_recent_turns)];
  if (!scan.results.empty())
    out.notes.push_back("fewer than " + std::to_string(policy.keep_recent_turns) +
                        " turns: every message is in the recent turns, kept whole");
  return 0;
}

}  // namespace

Result<PruneResult> PruneMessages(Json& messages, const PrunePolicy& policy, int64_t now_ms) {
  PC_RETURN_IF_ERROR(CheckPolicy(messages, policy));
  const int64_t now = policy.now_ms.value_or(now_ms);

  PC_ASSIGN_OR_RETURN(Scan scan, ScanMessages(messages));
  PruneResult out;
  out.chars_before = scan.chars;
  std::map<std::string, std::string>& tool_names = scan.tool_names;
  std::vector<ToolResult>& results = scan.results;
  out.format = scan.anthropic ? "anthropic" : scan.openai ? "openai" : "plain";
  out.tool_results = static_cast<int64_t>(results.size());
  out.chars_after = out.chars_before;

  const int64_t protected_from = ProtectedFrom(messages, policy, scan, out);

  Json pruned = messages;  // changed only when everything went through
  auto prune = [&](ToolResult& r, const std::string& why) {
    const std::string tool = tool_names.count(r.call_id) ? tool_names[r.call_id] : "";
    std::optional<int64_t> age;
    if (r.at_ms) age = (now - *r.at_ms) / 1000;
    const std::string placeholder = PrunePlaceholder(tool, r.chars, age);
    const int64_t saved = r.chars - TextChars(placeholder);
    if (saved <= 0) return false;  // the placeholder would be as long as the result
    ContentOf(pruned, r) = placeholder;
    r.pruned = true;
    out.chars_after -= saved;
    out.pruned.push_back(PrunedItem{r.message, r.block, tool, saved, age, why});
    return true;
  };
  int64_t images = 0, undated = 0;
  for (ToolResult& r : results) {
    if (r.pruned || r.message >= protected_from || r.chars < policy.min_prunable_tool_chars)
      continue;
    if (r.image) {
      ++images;
      continue;
    }
    if (!r.at_ms) {
      ++undated;
      continue;
    }
    if (static_cast<double>(now - *r.at_ms) >= policy.ttl_seconds * 1000) prune(r, "ttl");
  }
  if (images)
    out.notes.push_back(std::to_string(images) + " old tool results with images were kept");
  if (undated)
    out.notes.push_back(
        std::to_string(undated) +
        " old tool results have no timestamp (on them or before them) and were kept");
  if (policy.hard_clear_ratio > 0) {
    const double limit =
        policy.hard_clear_ratio * static_cast<double>(policy.context_window_tokens) * 4;
    for (ToolResult& r : results) {
      if (static_cast<double>(out.chars_after) <= limit) break;
      if (r.pruned || r.image || r.chars < policy.min_prunable_tool_chars) continue;
      prune(r, "hard_clear");
    }
    if (static_cast<double>(out.chars_after) > limit)
      out.notes.push_back(
          "still above hard_clear_ratio of the context window: only tool results are pruned");
  }
  messages = std::move(pruned);
  return out;
}

}  // namespace pc
