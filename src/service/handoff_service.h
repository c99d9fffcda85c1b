// The handoff (DESIGN §6): "who continues, and from where". One `handoff` artifact per scope,
// versioned like memory: each write is a new immutable revision; the latest is read first.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/memory_service.h"
#include "store/store.h"

namespace pc {

inline constexpr size_t kMaxHandoffTextBytes = 16 * 1024;  // summary, state
inline constexpr size_t kMaxHandoffItems = 50;             // per list
inline constexpr size_t kMaxHandoffItemBytes = 2048;
inline constexpr size_t kMaxHandoffWhoBytes = 128;         // from, to, actor

struct HandoffRequest {
  std::string scope_id;
  std::string from, to;
  std::string summary;
  std::string state;
  std::vector<std::string> decisions, next_steps, open_questions;
  std::optional<int64_t> expected_revision;  // 409 unless the handoff is at this revision (0: none yet)
  std::string actor = "api";
};

struct HandoffPage {
  std::vector<Handoff> items;  // newest first
  std::optional<std::string> next_cursor;
};

class HandoffService {
 public:
  explicit HandoffService(Store& store) : store_(store) {}

  Result<Handoff> Write(const HandoffRequest& req);
  // The latest revision, or `revision`; 404 when the scope has none (yet) or not that one.
  Result<Handoff> Get(const std::string& scope_id, std::optional<int64_t> revision);
  Result<HandoffPage> History(const std::string& scope_id, const PageRequest& page);

 private:
  Store& store_;
};

// The scope's latest handoff, if any, read in `txn`.
Result<std::optional<Handoff>> LatestHandoff(ReadTxn& txn, const std::string& scope_id);
// The handoff as plain text for a prepared context.
std::string HandoffText(const Handoff& h);

}  // namespace pc
