// session/: a host's transcript and a message list to prune, from any bytes (the hooks read files
// a host wrote, and POST /v1/context/prune takes any JSON). The first byte picks the policy.
// Checked: never throws or crashes; a transcript's entries come from lines it read and every
// character lands in one category; pruning refuses with InvalidArgument only, keeps the list's
// length, never adds characters, and a second pass with the same policy changes nothing.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_parse.h"
#include "fuzz_check.h"
#include "session/prune.h"
#include "session/session_stats.h"
#include "session/transcript.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  fuzz::Bytes in(data, size);
  const uint8_t knobs = in.U8();
  const std::string text = in.Rest();

  Result<Transcript> t = ParseTranscript(text);
  if (!t.ok()) {
    FUZZ_CHECK(t.status().code() == Code::kInvalidArgument, t.status().ToString());
  } else {
    int64_t chars = 0;
    for (const TranscriptEntry& e : t->entries) {
      FUZZ_CHECK(e.line >= 1 && e.line <= static_cast<int64_t>(text.size()) + 1,
                 std::to_string(e.line));
      chars += TextChars(e.text);
    }
    FUZZ_CHECK(CountSession("s", *t).total() == chars, fuzz::Printable(text));
    FUZZ_CHECK(t->skipped <= t->lines, fuzz::Printable(text));
  }

  Result<nlohmann::json> j = ParseJson(text);
  if (!j.ok()) return 0;
  nlohmann::json messages = j->is_object() && j->contains("messages") ? (*j)["messages"] : *j;
  PrunePolicy policy;
  policy.ttl_seconds = knobs & 1 ? 0 : 30;
  policy.min_prunable_tool_chars = knobs & 2 ? 0 : 100;
  policy.keep_recent_turns = (knobs >> 2) & 3;
  policy.hard_clear_ratio = knobs & 16 ? 0.001 : 0;
  policy.context_window_tokens = 1000;
  policy.now_ms = 1796032800000;  // 2026-11-30T10:00:00Z
  const nlohmann::json before = messages;
  Result<PruneResult> r = PruneMessages(messages, policy, 0);
  if (!r.ok()) {
    FUZZ_CHECK(r.status().code() == Code::kInvalidArgument, r.status().ToString());
    FUZZ_CHECK(messages == before, "a refused list was changed");
    return 0;
  }
  FUZZ_CHECK(messages.size() == before.size(), fuzz::Printable(text));
  FUZZ_CHECK(r->chars_after <= r->chars_before, fuzz::Printable(text));
  int64_t saved = 0;
  for (const PrunedItem& p : r->pruned) saved += p.chars;
  FUZZ_CHECK(saved == r->chars_before - r->chars_after, fuzz::Printable(text));
  const nlohmann::json once = messages;
  Result<PruneResult> again = PruneMessages(messages, policy, 0);
  FUZZ_CHECK(again.ok() && again->pruned.empty() && messages == once, fuzz::Printable(text));
  (void)PruneResultJson(*r, once).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
