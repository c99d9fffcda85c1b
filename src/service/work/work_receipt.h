// What a Handoff Receipt records (RFC 1223, "Operation contract"): its stored form, built here
// from the request and the resolution Continue answered (never from the caller's word about the
// evidence), and how a later Task Outcome reads it back.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "service/work/work_records.h"
#include "store/store.h"

namespace pc {

inline constexpr const char* kReceiptSchema = "powercontext.handoff-receipt.v1";

// Whether every statement's and the next action's evidence resolved.
bool EvidenceAvailable(const HandoffResolution& r);
// The canonical identity of a prepared handoff: SHA-256 over its scope, base and content (every
// text and citation, each part its own JSON value: no two handoffs share an encoding), as
// "sha256:<hex>".
std::string PreparedDigest(const PreparedHandoff& p);
// The receipt's canonical JSON and its metadata ({"kind","schema","status","selection"}).
std::string ReceiptContent(const AcknowledgeRequest& req, const HandoffResolution& r);
std::string ReceiptMetadata(const AcknowledgeRequest& req);
// What a stored receipt says, read back from its content (never from its kind and metadata
// alone: a row that only looks like a receipt says nothing).
struct StoredReceipt {
  std::string status, selection;
  std::optional<MemoryRef> revision;  // an exact receipt's target
  bool evidence_available = false, all_confirmed = false;
};
// `receipt` parsed and checked as ReceiptContent writes it (canonical, every field, metadata
// agreeing); InvalidArgument saying what is wrong otherwise.
Result<StoredReceipt> ReadReceipt(const Source& receipt);
// A receipt a Task Outcome may link: its stored content an accepted receipt of an exact revision,
// with every citation available and every receiver check confirmed. InvalidArgument naming `field`
// otherwise.
Result<StoredReceipt> CheckLinkable(const Source& receipt, const std::string& field);
// InvalidArgument naming `field` when a receipt later in the log declined the same revision as
// `r` (read from `receipt`): the acceptance is superseded, whoever declined. Reads in `txn`.
Status CheckNotSuperseded(ReadTxn& txn, const Source& receipt, const StoredReceipt& r,
                          const std::string& field);

}  // namespace pc
