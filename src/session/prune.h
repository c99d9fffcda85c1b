// Context pruning (seed 002, "solution 1"; OpenClaw's cache-ttl policy): given the message list an
// agent is about to send (OpenAI chat or Anthropic messages, with timestamps), replace old tool
// results by placeholders that say what was removed, and say what it saved. User and assistant
// text is never touched; the most recent turns are kept whole; tiny results are left alone.
// Pure and deterministic (`now` is an input): POST /v1/context/prune and `powercontext prune`.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

inline constexpr size_t kMaxPruneMessages = 100000;  // one request's messages

struct PrunePolicy {
  double ttl_seconds = 30;                // a tool result older than this may be pruned (seed: 30)
  int64_t min_prunable_tool_chars = 100;  // smaller results are kept (seed: 100)
  // 0 (the seed's setting): the recent turns are always kept whole. Above 0: if the pruned list
  // is still longer than this share of the context window, tool results inside the recent turns
  // are cleared too, oldest first, until it is not.
  double hard_clear_ratio = 0;
  int64_t keep_recent_turns = 1;           // turns (from a user message on) kept whole
  int64_t context_window_tokens = 200000;  // for hard_clear_ratio: ~4 characters a token
  std::optional<int64_t> now_ms;           // unset: the caller's clock
};

struct PrunedItem {
  int64_t message_index = 0;
  std::optional<int64_t> block_index;  // Anthropic: the tool_result block within the message
  std::string tool;                    // the tool's name, when the call that made it is known
  int64_t chars = 0;                   // characters removed from the context (before − after)
  std::optional<int64_t> age_seconds;
  std::string why;  // "ttl" or "hard_clear"
};

struct PruneResult {
  std::string format;  // "openai", "anthropic" or "plain" (no tool results)
  std::vector<PrunedItem> pruned;
  int64_t tool_results = 0;  // tool results seen
  int64_t chars_before = 0, chars_after = 0;
  std::vector<std::string> notes;  // why nothing (or less) was pruned, when that is not obvious
};

// Prunes `messages` (a JSON array, changed in place) under `policy`; `now_ms` is used when the
// policy has none. Characters are Unicode code points of the messages' text (content, tool call
// arguments, tool results). A message's time is its `timestamp` (RFC 3339, or milliseconds since
// the epoch); one without inherits the previous message's. Bad input is an InvalidArgument
// naming the field, and leaves `messages` as it was.
Result<PruneResult> PruneMessages(nlohmann::json& messages, const PrunePolicy& policy,
                                  int64_t now_ms);

// The answer of POST /v1/context/prune: the pruned messages and what was removed.
nlohmann::json PruneResultJson(const PruneResult& result, nlohmann::json messages);

// The placeholder a pruned tool result becomes.
std::string PrunePlaceholder(const std::string& tool, int64_t chars,
                             std::optional<int64_t> age_seconds);

}  // namespace pc
