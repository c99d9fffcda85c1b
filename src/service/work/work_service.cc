#include "service/work/work_service.h"

#include <nlohmann/json.hpp>

#include "common/sha256.h"
#include "common/utf8.h"
#include "service/core/validation.h"
#include "service/handoff/handoff_content.h"
#include "service/work/work_checks.h"
#include "service/work/work_receipt.h"

namespace pc {
namespace {

const char* SchemaOf(WorkKind k) {
  switch (k) {
    case WorkKind::kContract:
      return "powercontext.work-contract.v1";
    case WorkKind::kBoundary:
      return "powercontext.current-work-handoff.v1";
    case WorkKind::kReceipt:
      return kReceiptSchema;
    case WorkKind::kOutcome:
      break;
  }
  return "powercontext.task-outcome.v1";
}

std::string KindMetadata(WorkKind k) {
  return nlohmann::json{{"kind", WorkKindName(k)}, {"schema", SchemaOf(k)}}.dump();
}

// A claim as a handoff statement: the boundary first, then a verified claim's own evidence.
HandoffStatement Statement(const WorkClaim& claim, const HandoffCitation& boundary) {
  HandoffStatement st{claim.text, {boundary}};
  st.citations.insert(st.citations.end(), claim.evidence.begin(), claim.evidence.end());
  return st;
}

// The deterministic conversion (no model): every item cites the boundary source.
HandoffContent BoundaryContent(const CurrentWork& w, const std::string& source_id) {
  const HandoffCitation boundary = SourceHandoffCitation(source_id);
  HandoffContent c;
  c.objective = w.objective;
  for (const WorkClaim& claim : w.state) c.state.push_back(Statement(claim, boundary));
  c.disposition = w.disposition;
  if (w.next_action) c.next_action = Statement(*w.next_action, boundary);
  for (const std::string& o : w.omissions) c.omissions.push_back({o, boundary});
  return c;
}

Status CheckInput(const WorkRecordInput& in) {
  PC_RETURN_IF_ERROR(CheckScopeId(in.scope_id));
  return CheckSourceId(in.source_id);
}

Status CheckOutcomeShape(const TaskOutcome& o, std::vector<NamedCitation>& resolve) {
  PC_RETURN_IF_ERROR(CheckHandoffText("outcome.objective", o.objective));
  PC_RETURN_IF_ERROR(CheckHandoffText("outcome.summary", o.summary));
  PC_RETURN_IF_ERROR(CheckClaims(o.observations, "outcome.observations", true, resolve));
  if (o.checks.size() > kMaxWorkItems)
    return FieldError("outcome.checks", "outcome.checks holds more than 64 checks");
  for (size_t i = 0; i < o.checks.size(); ++i) {
    const std::string at = "outcome.checks[" + std::to_string(i) + "]";
    PC_RETURN_IF_ERROR(CheckHandoffText(at + ".name", o.checks[i].name));
    if (o.checks[i].details)
      PC_RETURN_IF_ERROR(CheckHandoffText(at + ".details", *o.checks[i].details));
    PC_RETURN_IF_ERROR(CheckClaimEvidence(o.checks[i].basis, o.checks[i].evidence,
                                          kMaxCheckEvidence, at, resolve));
  }
  if (o.produced_artifacts.size() > kMaxProducedArtifacts)
    return FieldError("outcome.produced_artifacts",
                      "outcome.produced_artifacts holds more than 32 revisions");
  for (size_t i = 0; i < o.produced_artifacts.size(); ++i) {
    // Checked here, named as the request names it: as a citation it would be "….artifact_ref".
    const std::string at = "outcome.produced_artifacts[" + std::to_string(i) + "]";
    PC_RETURN_IF_ERROR(CheckHandoffRef(o.produced_artifacts[i], at));
    HandoffCitation c;
    c.kind = HandoffCitationKind::kArtifact;
    c.artifact = o.produced_artifacts[i];
    resolve.push_back({at, c});
  }
  return CheckTexts(o.remaining_work, "outcome.remaining_work", false);
}

Status CheckAcknowledgeShape(const AcknowledgeRequest& r) {
  PC_RETURN_IF_ERROR(CheckScopeId(r.scope_id));
  PC_RETURN_IF_ERROR(CheckSourceId(r.source_id));
  PC_RETURN_IF_ERROR(CheckName(r.receiver, "receiver"));
  if (r.selection == HandoffSelection::kLatest)
    return FieldError("selection",
                      "selection must be prepared or exact: a receipt acknowledges the exact "
                      "handoff the receiver inspected, never latest");
  if (r.message) PC_RETURN_IF_ERROR(CheckHandoffText("message", *r.message));
  if (r.status == ReceiptStatus::kAccepted) {
    if (!r.checks || !r.checks->AllConfirmed())
      return FieldError("receiver_checks",
                        "accepted needs receiver_checks with live_state, capability and "
                        "authorization all confirmed");
  } else if (!r.message) {
    return FieldError("message",
                      std::string(ReceiptStatusName(r.status)) + " needs a message that says why");
  }
  return Status::Ok();
}

}  // namespace

Result<WorkReceipt> WorkService::Store(WorkKind kind, const WorkRecordInput& in,
                                       std::string metadata_json) {
  return Store(kind, in.scope_id, in.source_id, std::move(metadata_json),
               [&](WriteTxn&, const Artifact&) -> Result<std::string> { return in.content; });
}

Result<WorkReceipt> WorkService::Store(WorkKind kind, const std::string& scope_id,
                                       const std::string& source_id, std::string metadata_json,
                                       const ContentPlan& plan) {
  size_t content_bytes = 0;
  Result<SourceOutcome> added = sources_.AddWorkRecord(
      scope_id, [&](WriteTxn& txn, const Artifact& memory) -> Result<SourceInput> {
        PC_ASSIGN_OR_RETURN(std::string content, plan(txn, memory));
        content_bytes = content.size();
        return SourceInput{WorkKindName(kind), kPurposeArchive, std::move(content), metadata_json,
                           source_id};
      });
  // A record over what one Source holds (max_source_bytes) is an invalid request naming the
  // record: these operations document 422, not 413, and the request has no field "content".
  if (!added.ok() && added.status().code() == Code::kTooLarge &&
      content_bytes > sources_.max_source_bytes()) {
    const char* field = kind == WorkKind::kContract   ? "contract"
                        : kind == WorkKind::kBoundary ? "handoff"
                        : kind == WorkKind::kOutcome  ? "outcome"
                                                      : "prepared";
    return FieldError(field, std::string(field) + " is " + std::to_string(content_bytes) +
                                 " bytes as JSON: too large to keep as one record (the server's "
                                 "max_source_bytes)");
  }
  PC_ASSIGN_OR_RETURN(SourceOutcome out, std::move(added));
  std::string digest = "sha256:" + Sha256Hex(out.source.content);
  return WorkReceipt{kind, std::move(out.source), std::move(digest)};
}

Result<WorkReceipt> WorkService::CreateContract(const WorkRecordInput& in, const WorkContract& c) {
  PC_RETURN_IF_ERROR(CheckInput(in));
  std::vector<NamedCitation> resolve;
  PC_RETURN_IF_ERROR(CheckHandoffText("contract.objective", c.objective));
  PC_RETURN_IF_ERROR(CheckClaims(c.facts, "contract.facts", false, resolve));
  PC_RETURN_IF_ERROR(CheckTexts(c.in_scope, "contract.in_scope", true));
  PC_RETURN_IF_ERROR(CheckTexts(c.exclusions, "contract.exclusions", false));
  PC_RETURN_IF_ERROR(CheckTexts(c.completion_criteria, "contract.completion_criteria", true));
  PC_RETURN_IF_ERROR(CheckTexts(c.authorization_notes, "contract.authorization_notes", false));
  PC_RETURN_IF_ERROR(CheckTexts(c.open_questions, "contract.open_questions", false));
  PC_RETURN_IF_ERROR(handoff_.CheckEvidence(in.scope_id, resolve));
  return Store(WorkKind::kContract, in, KindMetadata(WorkKind::kContract));
}

Result<PreparedWork> WorkService::HandoffCurrent(const WorkRecordInput& in, const CurrentWork& w) {
  PC_RETURN_IF_ERROR(CheckInput(in));
  std::vector<NamedCitation> resolve;
  PC_RETURN_IF_ERROR(CheckHandoffText("handoff.objective", w.objective));
  PC_RETURN_IF_ERROR(CheckClaims(w.state, "handoff.state", true, resolve));
  if (w.next_action) PC_RETURN_IF_ERROR(CheckClaim(*w.next_action, "handoff.next_action", resolve));
  PC_RETURN_IF_ERROR(CheckTexts(w.omissions, "handoff.omissions", false));
  const HandoffContent content = BoundaryContent(w, in.source_id);
  PC_RETURN_IF_ERROR(CheckHandoffContent(content, "handoff."));
  PC_RETURN_IF_ERROR(handoff_.CheckEvidence(in.scope_id, resolve));
  PC_ASSIGN_OR_RETURN(WorkReceipt boundary,
                      Store(WorkKind::kBoundary, in, KindMetadata(WorkKind::kBoundary)));
  // The capture stands even if finalizing fails (RFC 1223: its receipt names the boundary).
  PC_ASSIGN_OR_RETURN(PreparedHandoff prepared, handoff_.Finalize(in.scope_id, content));
  return PreparedWork{std::move(boundary), std::move(prepared)};
}

Result<Acknowledgement> WorkService::Acknowledge(const AcknowledgeRequest& req) {
  PC_RETURN_IF_ERROR(CheckAcknowledgeShape(req));
  const ContinueHandoffRequest cont{req.scope_id, req.selection, req.prepared, req.revision};
  PC_RETURN_IF_ERROR(CheckContinueRequest(cont));
  // Resolved in the write that keeps the receipt: a retirement cannot land between the evidence
  // check and the receipt that reports it.
  HandoffResolution resolution;
  auto plan = [&](WriteTxn& txn, const Artifact&) -> Result<std::string> {
    // A scope this write would make has no handoff to acknowledge: 404, as Continue answers, and
    // the rollback takes the new scope back.
    if (txn.audit_trail().created_scope)
      return NotFound("no scope " + req.scope_id).WithDetail("scope_id", req.scope_id);
    PC_ASSIGN_OR_RETURN(resolution, ResolveHandoff(txn, cont));
    if (req.status == ReceiptStatus::kAccepted && !EvidenceAvailable(resolution))
      return FieldError("status",
                        "accepted needs every cited piece of evidence readable, and some is "
                        "unavailable now: acknowledge needs_clarification with the reason instead");
    return ReceiptContent(req, resolution);
  };
  PC_ASSIGN_OR_RETURN(WorkReceipt receipt, Store(WorkKind::kReceipt, req.scope_id, req.source_id,
                                                 ReceiptMetadata(req), plan));
  return Acknowledgement{std::move(resolution), std::move(receipt)};
}

Status WorkService::CheckLinkedReceipt(ReadTxn& txn, const Artifact& memory,
                                       const HandoffCitation& ref) {
  const std::string field = "outcome.handoff_receipt_ref";
  PC_ASSIGN_OR_RETURN(std::optional<Source> receipt,
                      txn.FindSourceByPublicId(memory.scope_id, ref.source_id));
  if (!receipt)
    return NotFound("no Handoff Receipt \"" + CutUtf8(ref.source_id, 80) + "\" in this scope")
        .WithDetail("field", field);
  PC_ASSIGN_OR_RETURN(StoredReceipt linked, CheckLinkable(*receipt, field));
  return CheckNotSuperseded(txn, *receipt, linked, field);
}

Result<WorkReceipt> WorkService::RecordOutcome(const WorkRecordInput& in, const TaskOutcome& o) {
  PC_RETURN_IF_ERROR(CheckInput(in));
  std::vector<NamedCitation> resolve;
  PC_RETURN_IF_ERROR(CheckOutcomeShape(o, resolve));
  if (o.receipt && o.receipt->source_name != kContentSourceName)
    return FieldError("outcome.handoff_receipt_ref.name",
                      "outcome.handoff_receipt_ref.name must be \"content\"");
  PC_RETURN_IF_ERROR(handoff_.CheckEvidence(in.scope_id, resolve));
  // The link is checked in the write that keeps the outcome: no receipt lands between them.
  return Store(WorkKind::kOutcome, in.scope_id, in.source_id, KindMetadata(WorkKind::kOutcome),
               [&](WriteTxn& txn, const Artifact& memory) -> Result<std::string> {
                 if (o.receipt) PC_RETURN_IF_ERROR(CheckLinkedReceipt(txn, memory, *o.receipt));
                 return in.content;
               });
}

}  // namespace pc
