// Work continuity (RFC 1223, docs/work-continuity.md): the four Work records as plain structs.
// Each is kept as one Source of the scope's log (no table of its own): its canonical JSON as the
// content, its kind as the Source's kind and in the metadata ("kind", "schema").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/types.h"
#include "service/handoff/handoff_service.h"

namespace pc {

enum class WorkKind { kContract, kBoundary, kReceipt, kOutcome };
// work-contract, handoff-boundary, handoff-receipt, task-outcome (the spec's WorkSourceKind).
const char* WorkKindName(WorkKind k);

// declared: the producer's word, with no evidence; verified: at least one exact citation that
// resolves in the same scope.
enum class ClaimBasis { kDeclared, kVerified };

struct WorkClaim {
  std::string text;
  ClaimBasis basis = ClaimBasis::kDeclared;
  std::vector<HandoffCitation> evidence;
};

struct WorkContract {
  std::string objective;
  std::vector<WorkClaim> facts;
  std::vector<std::string> in_scope, exclusions, completion_criteria, authorization_notes,
      open_questions;
};

struct CurrentWork {
  std::string objective;
  std::vector<WorkClaim> state;  // 1 … 64
  HandoffDisposition disposition = HandoffDisposition::kContinuable;
  std::optional<WorkClaim> next_action;
  std::vector<std::string> omissions;
};

enum class ReceiptStatus { kAccepted, kNeedsClarification, kDeclined };
const char* ReceiptStatusName(ReceiptStatus s);

// The receiver's own checks (untrusted self-attestation): "confirmed", "mismatch" /
// "insufficient" or "not_checked", as the wire names them.
struct ReceiverChecks {
  std::string live_state, capability, authorization;
  bool AllConfirmed() const;
};

struct AcknowledgeRequest {
  std::string scope_id, source_id, receiver;
  ReceiptStatus status = ReceiptStatus::kNeedsClarification;
  HandoffSelection selection = HandoffSelection::kExact;  // never kLatest
  std::optional<ReceiverChecks> checks;
  std::optional<PreparedHandoff> prepared;  // kPrepared
  std::optional<MemoryRef> revision;        // kExact
  std::optional<std::string> message;       // the reason; required unless accepted
};

struct TaskCheck {
  std::string name;
  std::string status;  // passed, failed, skipped, timed_out, unavailable, cancelled, unknown
  std::optional<std::string> details;
  ClaimBasis basis = ClaimBasis::kDeclared;
  std::vector<HandoffCitation> evidence;
};

struct TaskOutcome {
  std::string objective, status, summary;
  std::optional<HandoffCitation> receipt;  // handoff_receipt_ref, as a source citation
  std::vector<WorkClaim> observations;
  std::vector<TaskCheck> checks;
  std::vector<MemoryRef> produced_artifacts;
  std::vector<std::string> remaining_work;
};

// Where a record goes and what it is stored as: `content` is the record's canonical JSON, made
// by the caller's codec from exactly the record it passes beside it.
struct WorkRecordInput {
  std::string scope_id, source_id, content;
};

// The spec's WorkSourceReceipt: the Source that holds the record, and the SHA-256 of its content.
struct WorkReceipt {
  WorkKind kind = WorkKind::kContract;
  Source source;
  std::string content_digest;  // sha256:<64 hex>
};

struct PreparedWork {
  WorkReceipt boundary;
  PreparedHandoff handoff;
};

struct Acknowledgement {
  HandoffResolution resolution;
  WorkReceipt receipt;
};

}  // namespace pc
