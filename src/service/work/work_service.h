// Work continuity (RFC 1223, docs/work-continuity.md): the four operations over the existing
// source log and handoff lifecycle. Every record is one archive Source of the scope (kind and
// metadata.kind its WorkKind) under the caller's source_id, with the source log's idempotency: the
// same id and content again answers the first capture, other content is source_conflict.
// Every check runs before the one write, so a refused request changes nothing.
//   CreateContract: claims checked (a verified one's evidence resolves here), then stored.
//   HandoffCurrent: the boundary stored, then finalized into a PreparedHandoff whose every
//     statement cites it (and keeps a verified claim's evidence); never committed.
//   Acknowledge: Continue runs again on a prepared or exact handoff (never latest), in the write
//     that stores the receipt; accepted needs every citation readable and every receiver check
//     confirmed.
//   RecordOutcome: claims and checks checked; a linked receipt must be an accepted receipt of an
//     exact (committed) revision in this scope that no later receipt declined (checked in the
//     write that keeps the outcome).
// Thread-safe as the services it stands on.
#pragma once

#include <functional>

#include "common/status.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "service/work/work_records.h"

namespace pc {

class WorkService {
 public:
  WorkService(HandoffService& handoff, SourceService& sources)
      : handoff_(handoff), sources_(sources) {}

  Result<WorkReceipt> CreateContract(const WorkRecordInput& in, const WorkContract& contract);
  Result<PreparedWork> HandoffCurrent(const WorkRecordInput& in, const CurrentWork& work);
  Result<Acknowledgement> Acknowledge(const AcknowledgeRequest& req);
  Result<WorkReceipt> RecordOutcome(const WorkRecordInput& in, const TaskOutcome& outcome);

 private:
  // The record's content, made in the write transaction that keeps it (replay-safe, as
  // SourceService::WorkRecordPlan).
  using ContentPlan = std::function<Result<std::string>(WriteTxn& txn, const Artifact& memory)>;
  Result<WorkReceipt> Store(WorkKind kind, const WorkRecordInput& in, std::string metadata_json);
  Result<WorkReceipt> Store(WorkKind kind, const std::string& scope_id,
                            const std::string& source_id, std::string metadata_json,
                            const ContentPlan& plan);
  Status CheckLinkedReceipt(ReadTxn& txn, const Artifact& memory, const HandoffCitation& ref);
  HandoffService& handoff_;
  SourceService& sources_;
};

}  // namespace pc
