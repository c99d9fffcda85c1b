// An agent session as its host recorded it, read into one shape: Claude Code's transcript JSONL
// (~/.claude/projects/…/<session>.jsonl: user / assistant / system lines with content blocks),
// Codex's rollout JSONL (~/.codex/sessions/…/rollout-*.jsonl: session_meta, response_item …), or
// a chat message list (OpenAI or Anthropic messages, a JSON array or one message per line).
// Lines a reader does not know (new host versions add types) are counted and skipped, never an
// error; a torn last line (a host still writing) likewise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pc {

// What a piece of the context is (seed 002's categories; a tool call is the assistant's).
enum class TranscriptPart { kSystem, kUser, kAssistant, kToolCall, kToolResult };
const char* TranscriptPartName(TranscriptPart p);

struct TranscriptEntry {
  TranscriptPart part = TranscriptPart::kUser;
  std::string text;              // a tool call: its name and arguments; a tool result: its text
  std::string tool;              // the tool's name (calls; results when known)
  std::optional<int64_t> at_ms;  // the line's time, when it has one
  int64_t line = 0;              // 1-based line (or array item) it came from
};

struct Transcript {
  std::string format;  // "claude-code", "codex" or "chat"
  std::string session_id, cwd;
  std::vector<TranscriptEntry> entries;
  int64_t lines = 0;    // lines (items) read
  int64_t skipped = 0;  // lines not understood or not JSON
};

// Limits of what one transcript line may be: a longer line, or one nested deeper, is skipped
// (counted in `skipped`) like any line the reader does not understand. Claude Code writes a pasted
// image into its line as base64, so lines of a few MiB are real; none nests anywhere near 64.
inline constexpr size_t kMaxTranscriptLineBytes = 16u << 20;
inline constexpr int kMaxTranscriptDepth = 64;  // ParseJson's default

// Reads a transcript. Empty input, or input in none of the formats, is InvalidArgument.
// `first_line` > 1: `text` is the tail of a JSONL transcript (ReadFileTail) whose first line has
// that number; it is read as JSONL only.
Result<Transcript> ParseTranscript(std::string_view text, int64_t first_line = 1);

// Unicode characters of a text (bytes where it is not UTF-8).
int64_t TextChars(std::string_view text);

}  // namespace pc
