#include "session/transcript.h"

#include <map>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/json_parse.h"
#include "common/utf8.h"
#include "session/fields.h"

namespace pc {
using Json = nlohmann::json;

namespace {

std::optional<int64_t> TimeOf(const Json& line) {
  auto it = line.find("timestamp");
  if (it == line.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) return ParseRfc3339(it->get<std::string>());
  return std::nullopt;
}

// The text of a content value: a string, or the text of its blocks (text, input_text,
// output_text; a nested tool result's content), newline-joined.
std::string ContentText(const Json& c) {
  if (c.is_string()) return c.get<std::string>();
  if (!c.is_array()) return "";
  std::string out;
  for (const Json& b : c) {
    std::string piece;
    if (b.is_string())
      piece = b.get<std::string>();
    else if (b.is_object() && b.contains("text") && b["text"].is_string())
      piece = b["text"].get<std::string>();
    else if (b.is_object() && StringField(b, "type") == "tool_result" && b.contains("content"))
      piece = ContentText(b["content"]);
    if (piece.empty()) continue;
    if (!out.empty()) out.push_back('\n');
    out += piece;
  }
  return out;
}

// Text the host put in a user message that the user did not type (Codex's environment and
// instructions, Claude Code's command wrappers and reminders): the system's, not the user's.
bool Injected(std::string_view text) {
  for (std::string_view mark : {"<environment_context>", "<user_instructions>", "<system-reminder>",
                                "# AGENTS.md", "<local-command-", "<command-name>", "Caveat: "})
    if (text.substr(0, mark.size()) == mark) return true;
  return false;
}

class Reader {
 public:
  explicit Reader(Transcript& t) : t_(t) {}

  void Add(TranscriptPart part, std::string text, std::optional<int64_t> at, int64_t line,
           std::string tool = "") {
    if (text.empty()) return;
    t_.entries.push_back(TranscriptEntry{part, std::move(text), std::move(tool), at, line});
  }

  // A chat message (OpenAI or Anthropic), or the `message` of a Claude Code line.
  bool Message(const Json& m, std::optional<int64_t> at, int64_t line, bool meta) {
    if (!m.is_object()) return false;
    const std::string role = StringField(m, "role");
    const Json content = m.value("content", Json());
    if (role == "system" || role == "developer") {
      Add(TranscriptPart::kSystem, ContentText(content), at, line);
    } else if (role == "tool") {
      Add(TranscriptPart::kToolResult, ContentText(content), at, line,
          tool_of_call_[StringField(m, "tool_call_id")]);
    } else if (role == "user") {
      if (content.is_array()) {
        for (const Json& b : content) {
          if (!b.is_object()) continue;
          if (StringField(b, "type") == "tool_result") {
            Add(TranscriptPart::kToolResult, ContentText(b.value("content", Json())), at, line,
                tool_of_call_[StringField(b, "tool_use_id")]);
          } else if (b.contains("text") && b["text"].is_string()) {
            const std::string text = b["text"].get<std::string>();
            Add(meta || Injected(text) ? TranscriptPart::kSystem : TranscriptPart::kUser, text, at,
                line);
          }
        }
      } else {
        const std::string text = ContentText(content);
        Add(meta || Injected(text) ? TranscriptPart::kSystem : TranscriptPart::kUser, text, at,
            line);
      }
    } else if (role == "assistant") {
      if (content.is_array()) {
        for (const Json& b : content) {
          if (!b.is_object()) continue;
          const std::string type = StringField(b, "type");
          if (type == "tool_use") {
            const std::string name = StringField(b, "name");
            tool_of_call_[StringField(b, "id")] = name;
            Add(TranscriptPart::kToolCall,
                name + " " +
                    b.value("input", Json::object())
                        .dump(-1, ' ', false, Json::error_handler_t::replace),
                at, line, name);
          } else if (type == "thinking") {
            Add(TranscriptPart::kAssistant, StringField(b, "thinking"), at, line);
          } else if (b.contains("text") && b["text"].is_string()) {
            Add(TranscriptPart::kAssistant, b["text"].get<std::string>(), at, line);
          }
        }
      } else {
        Add(TranscriptPart::kAssistant, ContentText(content), at, line);
      }
      if (auto calls = m.find("tool_calls"); calls != m.end() && calls->is_array())
        for (const Json& call : *calls) {
          if (!call.is_object() || !call.contains("function") || !call["function"].is_object())
            continue;
          const std::string name = StringField(call["function"], "name");
          tool_of_call_[StringField(call, "id")] = name;
          Add(TranscriptPart::kToolCall, name + " " + StringField(call["function"], "arguments"),
              at, line, name);
        }
    } else {
      return false;
    }
    return true;
  }

  // One line of Claude Code's transcript.
  bool ClaudeLine(const Json& j, int64_t line) {
    const std::string type = StringField(j, "type");
    const auto at = TimeOf(j);
    if (t_.session_id.empty()) t_.session_id = StringField(j, "sessionId");
    if (t_.cwd.empty()) t_.cwd = StringField(j, "cwd");
    if (type == "user" || type == "assistant")
      return Message(j.value("message", Json()), at, line,
                     (j.contains("isMeta") && j["isMeta"].is_boolean() && j["isMeta"].get<bool>()));
    if (type == "system") {
      Add(TranscriptPart::kSystem, StringField(j, "content"), at, line);
      return true;
    }
    if (type == "summary") {
      Add(TranscriptPart::kSystem, StringField(j, "summary"), at, line);
      return true;
    }
    return false;
  }

  // One line of a Codex rollout.
  bool CodexLine(const Json& j, int64_t line) {
    const std::string type = StringField(j, "type");
    const Json p = j.value("payload", Json());
    const auto at = TimeOf(j);
    if (!p.is_object()) return false;
    if (type == "session_meta") {
      t_.session_id = StringField(p, "id");
      t_.cwd = StringField(p, "cwd");
      for (const char* key : {"instructions", "base_instructions"}) {
        auto it = p.find(key);
        if (it == p.end()) continue;
        Add(TranscriptPart::kSystem,
            it->is_string()   ? it->get<std::string>()
            : it->is_object() ? StringField(*it, "text")
                              : "",
            at, line);
      }
      return true;
    }
    if (type == "compacted") {
      Add(TranscriptPart::kSystem, StringField(p, "message"), at, line);
      return true;
    }
    if (type == "turn_context" || type == "event_msg") return true;  // the same turn, as events
    if (type != "response_item") return false;
    const std::string item = StringField(p, "type");
    if (item == "message") return Message(p, at, line, false);
    if (item == "function_call" || item == "custom_tool_call" || item == "local_shell_call") {
      const std::string name = item == "local_shell_call" ? "shell" : StringField(p, "name");
      tool_of_call_[StringField(p, "call_id")] = name;
      const Json args = item == "function_call"      ? p.value("arguments", Json())
                        : item == "custom_tool_call" ? p.value("input", Json())
                                                     : p.value("action", Json());
      Add(TranscriptPart::kToolCall,
          name + " " +
              (args.is_string() ? args.get<std::string>()
                                : args.dump(-1, ' ', false, Json::error_handler_t::replace)),
          at, line, name);
      return true;
    }
    if (item == "function_call_output" || item == "custom_tool_call_output") {
      const Json out = p.value("output", Json());
      std::string text = out.is_string() ? out.get<std::string>() : ContentText(out);
      if (out.is_object()) text = StringField(out, "content");
      Add(TranscriptPart::kToolResult, text, at, line, tool_of_call_[StringField(p, "call_id")]);
      return true;
    }
    return item == "reasoning";  // encrypted or summarised thinking: not context text
  }

 private:
  Transcript& t_;
  std::map<std::string, std::string> tool_of_call_;
};

std::string Detect(const Json& j) {
  if (!j.is_object()) return "";
  const std::string type = StringField(j, "type");
  if (j.contains("payload") &&
      (type == "session_meta" || type == "response_item" || type == "event_msg" ||
       type == "turn_context" || type == "compacted"))
    return "codex";
  if (j.contains("sessionId") || j.contains("parentUuid") || type == "summary" ||
      ((type == "user" || type == "assistant") && j.contains("message")))
    return "claude-code";
  if (j.contains("role")) return "chat";
  return "";
}

}  // namespace

const char* TranscriptPartName(TranscriptPart p) {
  switch (p) {
    case TranscriptPart::kSystem:
      return "system";
    case TranscriptPart::kUser:
      return "user";
    case TranscriptPart::kAssistant:
      return "assistant";
    case TranscriptPart::kToolCall:
      return "tool_call";
    case TranscriptPart::kToolResult:
      return "tool_result";
  }
  return "user";
}

int64_t TextChars(std::string_view text) {
  auto n = CountCodePoints(text);
  return static_cast<int64_t>(n ? *n : text.size());
}

Result<Transcript> ParseTranscript(std::string_view text, int64_t first_line) {
  Transcript t;
  Reader reader(t);
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return InvalidArgument("the transcript is empty");
  if (text[first] == '[' && first_line <= 1) {  // a chat message list
    // Depth bounded where it is parsed (one more level: the list itself): nlohmann's DOM copies
    // and dumps recursively, and a million nested brackets overflowed the stack.
    Result<Json> parsed = ParseJson(text, kMaxTranscriptDepth + 1);
    if (!parsed.ok() || !parsed->is_array())
      return InvalidArgument("the transcript is not a JSON array of messages" +
                             (parsed.ok() ? std::string() : ": " + parsed.status().message()));
    const Json& list = *parsed;
    t.format = "chat";
    for (size_t i = 0; i < list.size(); ++i) {
      ++t.lines;
      if (!reader.Message(list[i], TimeOf(list[i]), static_cast<int64_t>(i) + 1, false))
        ++t.skipped;
    }
    return t;
  }
  size_t at = 0;
  int64_t line = first_line - 1;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    ++t.lines;
    if (raw.size() > kMaxTranscriptLineBytes) {
      ++t.skipped;
      continue;
    }
    Result<Json> parsed = ParseJson(raw, kMaxTranscriptDepth);
    if (!parsed.ok() || !parsed->is_object()) {  // a line of a transcript is an object (the fuzzer
      ++t.skipped;                               // found `.value()` throwing on a string line)
      continue;
    }
    const Json& j = *parsed;
    if (t.format.empty()) t.format = Detect(j);
    bool understood = false;
    if (t.format == "codex")
      understood = reader.CodexLine(j, line);
    else if (t.format == "claude-code")
      understood = reader.ClaudeLine(j, line);
    else if (t.format == "chat")
      understood = reader.Message(j, TimeOf(j), line, false);
    if (!understood) ++t.skipped;
  }
  if (t.format.empty())
    return InvalidArgument(
        "not a transcript this reader knows (Claude Code or Codex JSONL, or chat messages)");
  return t;
}

}  // namespace pc
