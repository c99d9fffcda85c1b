#include "service/work/work_records.h"

namespace pc {

const char* WorkKindName(WorkKind k) {
  switch (k) {
    case WorkKind::kContract:
      return "work-contract";
    case WorkKind::kBoundary:
      return "handoff-boundary";
    case WorkKind::kReceipt:
      return "handoff-receipt";
    case WorkKind::kOutcome:
      break;
  }
  return kTaskOutcomeSourceKind;
}

const char* ReceiptStatusName(ReceiptStatus s) {
  switch (s) {
    case ReceiptStatus::kAccepted:
      return "accepted";
    case ReceiptStatus::kNeedsClarification:
      return "needs_clarification";
    case ReceiptStatus::kDeclined:
      break;
  }
  return "declined";
}

bool ReceiverChecks::AllConfirmed() const {
  return live_state == "confirmed" && capability == "confirmed" && authorization == "confirmed";
}

}  // namespace pc
