// The spec's four work-continuity operations, exactly their schemas both ways (unknown fields are
// refused at every level). Decode, call the service (service/work), encode. A record's stored
// content is its canonical JSON, encoded again from the record read (RecordJson): sorted keys, no
// white space, an absent optional field left out, so a retry that means the same is a retry.
#include "api/work_routes.h"

#include <memory>
#include <nlohmann/json.hpp>

#include "api/handoff_codec.h"
#include "service/work/work_service.h"

namespace pc {
namespace {

constexpr const char* kContractSchema = "powercontext.work-contract.v1";
constexpr const char* kCurrentWorkSchema = "powercontext.current-work-handoff.v1";
constexpr const char* kOutcomeSchema = "powercontext.task-outcome.v1";

Result<std::string> Const(const Json& j, const char* name, const std::string& at,
                          const char* value) {
  PC_ASSIGN_OR_RETURN(std::string v, JsonString(j, name, at));
  if (v != value)
    return JsonFieldError(at + "." + name,
                          at + "." + name + " must be \"" + value + "\"; no other is read");
  return v;
}

Result<std::vector<std::string>> Strings(const Json& j, const char* name, const std::string& at) {
  const std::string field = at + "." + name;
  const Json& a = j.at(name);
  if (!a.is_array()) return JsonFieldError(field, field + " must be an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string())
      return JsonFieldError(field + "[" + std::to_string(i) + "]",
                            field + "[" + std::to_string(i) + "] must be a string");
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

Result<ClaimBasis> BasisFrom(const Json& j, const std::string& at) {
  PC_ASSIGN_OR_RETURN(std::string b, JsonString(j, "basis", at));
  if (b == "declared") return ClaimBasis::kDeclared;
  if (b == "verified") return ClaimBasis::kVerified;
  return JsonFieldError(at + ".basis", at + ".basis must be declared or verified");
}

Result<WorkClaim> ClaimFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(
      JsonShape(j, at, {"text", "basis", "evidence"}, {"text", "basis", "evidence"}));
  WorkClaim c;
  PC_ASSIGN_OR_RETURN(c.text, JsonString(j, "text", at));
  PC_ASSIGN_OR_RETURN(c.basis, BasisFrom(j, at));
  PC_ASSIGN_OR_RETURN(c.evidence, CitationsFrom(j["evidence"], at + ".evidence"));
  return c;
}

Result<std::vector<WorkClaim>> ClaimsFrom(const Json& j, const char* name, const std::string& at) {
  return ItemsFrom(j.at(name), at + "." + name, "claims", ClaimFrom);
}

// A record object: only `fields`, every one of `required`, and its schema and trust constants.
Status RecordHeader(const Json& j, const std::string& at, std::initializer_list<const char*> fields,
                    std::initializer_list<const char*> required, const char* schema,
                    const char* trust) {
  PC_RETURN_IF_ERROR(JsonShape(j, at, fields, required));
  PC_RETURN_IF_ERROR(Const(j, "schema", at, schema).status());
  return Const(j, "trust", at, trust).status();
}

Result<WorkContract> ContractFrom(const Json& j, const std::string& at) {
  static const auto kFields = {
      "schema",        "trust",      "objective",           "facts",
      "in_scope",      "exclusions", "completion_criteria", "authorization_notes",
      "open_questions"};
  PC_RETURN_IF_ERROR(RecordHeader(j, at, kFields, kFields, kContractSchema, "untrusted_input"));
  WorkContract c;
  PC_ASSIGN_OR_RETURN(c.objective, JsonString(j, "objective", at));
  PC_ASSIGN_OR_RETURN(c.facts, ClaimsFrom(j, "facts", at));
  PC_ASSIGN_OR_RETURN(c.in_scope, Strings(j, "in_scope", at));
  PC_ASSIGN_OR_RETURN(c.exclusions, Strings(j, "exclusions", at));
  PC_ASSIGN_OR_RETURN(c.completion_criteria, Strings(j, "completion_criteria", at));
  PC_ASSIGN_OR_RETURN(c.authorization_notes, Strings(j, "authorization_notes", at));
  PC_ASSIGN_OR_RETURN(c.open_questions, Strings(j, "open_questions", at));
  return c;
}

Result<CurrentWork> CurrentWorkFrom(const Json& j, const std::string& at) {
  static const auto kFields = {"schema",      "trust",       "objective", "state",
                               "disposition", "next_action", "omissions"};
  PC_RETURN_IF_ERROR(RecordHeader(j, at, kFields, kFields, kCurrentWorkSchema, "untrusted_input"));
  CurrentWork w;
  PC_ASSIGN_OR_RETURN(w.objective, JsonString(j, "objective", at));
  PC_ASSIGN_OR_RETURN(w.state, ClaimsFrom(j, "state", at));
  PC_ASSIGN_OR_RETURN(w.disposition, DispositionFrom(j, at));
  if (!j["next_action"].is_null()) {
    PC_ASSIGN_OR_RETURN(WorkClaim next, ClaimFrom(j["next_action"], at + ".next_action"));
    w.next_action = std::move(next);
  }
  PC_ASSIGN_OR_RETURN(w.omissions, Strings(j, "omissions", at));
  return w;
}

Result<std::string> OneOf(const Json& j, const char* name, const std::string& at,
                          std::initializer_list<const char*> values) {
  PC_ASSIGN_OR_RETURN(std::string v, JsonString(j, name, at));
  std::string list;
  for (const char* x : values) {
    if (v == x) return v;
    list += (list.empty() ? "" : ", ") + std::string(x);
  }
  return JsonFieldError(at + "." + name, at + "." + name + " must be one of " + list);
}

// `name` given and not null.
bool Has(const Json& j, const char* name) { return j.contains(name) && !j[name].is_null(); }

Result<TaskCheck> CheckFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(JsonShape(j, at, {"name", "status", "details", "basis", "evidence"},
                               {"name", "status", "basis", "evidence"}));
  TaskCheck c;
  PC_ASSIGN_OR_RETURN(c.name, JsonString(j, "name", at));
  PC_ASSIGN_OR_RETURN(c.status, OneOf(j, "status", at,
                                      {"passed", "failed", "skipped", "timed_out", "unavailable",
                                       "cancelled", "unknown"}));
  if (Has(j, "details")) {
    PC_ASSIGN_OR_RETURN(c.details, JsonString(j, "details", at));
  }
  PC_ASSIGN_OR_RETURN(c.basis, BasisFrom(j, at));
  PC_ASSIGN_OR_RETURN(c.evidence, CitationsFrom(j["evidence"], at + ".evidence"));
  return c;
}

Result<HandoffCitation> ReceiptRefFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(JsonShape(j, at, {"name", "source_id"}, {"name", "source_id"}));
  HandoffCitation c;
  c.kind = HandoffCitationKind::kSource;
  PC_ASSIGN_OR_RETURN(c.source_name, JsonString(j, "name", at));
  PC_ASSIGN_OR_RETURN(c.source_id, JsonString(j, "source_id", at));
  return c;
}

Result<TaskOutcome> OutcomeFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(
      RecordHeader(j, at,
                   {"schema", "trust", "objective", "status", "summary", "handoff_receipt_ref",
                    "observations", "checks", "produced_artifacts", "remaining_work"},
                   {"schema", "trust", "objective", "status", "summary", "observations", "checks",
                    "produced_artifacts", "remaining_work"},
                   kOutcomeSchema, "untrusted_observation"));
  TaskOutcome o;
  PC_ASSIGN_OR_RETURN(o.objective, JsonString(j, "objective", at));
  PC_ASSIGN_OR_RETURN(o.status,
                      OneOf(j, "status", at,
                            {"succeeded", "partial", "blocked", "failed", "cancelled", "unknown"}));
  PC_ASSIGN_OR_RETURN(o.summary, JsonString(j, "summary", at));
  if (Has(j, "handoff_receipt_ref")) {
    PC_ASSIGN_OR_RETURN(o.receipt,
                        ReceiptRefFrom(j["handoff_receipt_ref"], at + ".handoff_receipt_ref"));
  }
  PC_ASSIGN_OR_RETURN(o.observations, ClaimsFrom(j, "observations", at));
  PC_ASSIGN_OR_RETURN(o.checks, ItemsFrom(j["checks"], at + ".checks", "checks", CheckFrom));
  PC_ASSIGN_OR_RETURN(o.produced_artifacts,
                      ItemsFrom(j["produced_artifacts"], at + ".produced_artifacts",
                                "ArtifactReferences", RefFromJson));
  PC_ASSIGN_OR_RETURN(o.remaining_work, Strings(j, "remaining_work", at));
  return o;
}

// The stored form of a record: encoded again from what was read, so a retry that says the same
// thing another way (an optional field null instead of absent, a memory citation as its string)
// is the same content. Objects keep their keys sorted and dump() writes no white space.
Json EvidenceJson(const std::vector<HandoffCitation>& evidence) {
  Json out = Json::array();
  for (const HandoffCitation& c : evidence) out.push_back(CitationJson(c));
  return out;
}

const char* BasisName(ClaimBasis b) { return b == ClaimBasis::kVerified ? "verified" : "declared"; }

Json ClaimJson(const WorkClaim& c) {
  return Json{
      {"text", c.text}, {"basis", BasisName(c.basis)}, {"evidence", EvidenceJson(c.evidence)}};
}

Json ClaimsJson(const std::vector<WorkClaim>& claims) {
  Json out = Json::array();
  for (const WorkClaim& c : claims) out.push_back(ClaimJson(c));
  return out;
}

Json RecordJson(const WorkContract& c) {
  return Json{{"schema", kContractSchema},
              {"trust", "untrusted_input"},
              {"objective", c.objective},
              {"facts", ClaimsJson(c.facts)},
              {"in_scope", c.in_scope},
              {"exclusions", c.exclusions},
              {"completion_criteria", c.completion_criteria},
              {"authorization_notes", c.authorization_notes},
              {"open_questions", c.open_questions}};
}

Json RecordJson(const CurrentWork& w) {
  return Json{{"schema", kCurrentWorkSchema},
              {"trust", "untrusted_input"},
              {"objective", w.objective},
              {"state", ClaimsJson(w.state)},
              {"disposition", HandoffDispositionName(w.disposition)},
              {"next_action", w.next_action ? ClaimJson(*w.next_action) : Json()},
              {"omissions", w.omissions}};
}

Json RecordJson(const TaskOutcome& o) {
  Json checks = Json::array(), produced = Json::array();
  for (const TaskCheck& c : o.checks) {
    Json check{{"name", c.name},
               {"status", c.status},
               {"basis", BasisName(c.basis)},
               {"evidence", EvidenceJson(c.evidence)}};
    if (c.details) check["details"] = *c.details;
    checks.push_back(std::move(check));
  }
  for (const MemoryRef& r : o.produced_artifacts) produced.push_back(ToJson(r));
  Json j{{"schema", kOutcomeSchema},
         {"trust", "untrusted_observation"},
         {"objective", o.objective},
         {"status", o.status},
         {"summary", o.summary},
         {"observations", ClaimsJson(o.observations)},
         {"checks", checks},
         {"produced_artifacts", produced},
         {"remaining_work", o.remaining_work}};
  if (o.receipt)
    j["handoff_receipt_ref"] = {{"name", o.receipt->source_name},
                                {"source_id", o.receipt->source_id}};
  return j;
}

Json ReceiptJson(const WorkReceipt& r) {
  return Json{{"kind", WorkKindName(r.kind)},
              {"source", SourceRefJson(SourceRef(r.source))},
              {"position", r.source.position},
              {"content_digest", r.content_digest}};
}

// A record request's scope_id and source_id, and its record object `record` (into `j`); the
// stored content is set from the record once it is read (RecordJson).
Result<WorkRecordInput> RecordInput(const ApiRequest& req, const char* record, Json& j) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "source_id", record}));
  PC_ASSIGN_OR_RETURN(j, req.TakeJsonBody());
  WorkRecordInput in;
  PC_ASSIGN_OR_RETURN(in.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(in.source_id, body.String("source_id"));
  if (!j.contains(record)) return JsonFieldError(record, std::string(record) + " is required");
  return in;
}

// A record request answered 202 with its WorkSourceReceipt: `name` read with `from`, kept by
// `store`.
template <class Record>
Result<ApiResponse> StoreRecord(WorkService& svc, const ApiRequest& req, const char* name,
                                Result<Record> (*from)(const Json&, const std::string&),
                                Result<WorkReceipt> (WorkService::*store)(const WorkRecordInput&,
                                                                          const Record&)) {
  Json j;
  PC_ASSIGN_OR_RETURN(WorkRecordInput in, RecordInput(req, name, j));
  PC_ASSIGN_OR_RETURN(Record record, from(j[name], name));
  in.content = RecordJson(record).dump();
  PC_ASSIGN_OR_RETURN(WorkReceipt r, (svc.*store)(in, record));
  return ApiResponse{202, ReceiptJson(r)};
}

Result<ApiResponse> CreateContract(WorkService& svc, const ApiRequest& req) {
  return StoreRecord(svc, req, "contract", ContractFrom, &WorkService::CreateContract);
}

Result<ApiResponse> HandoffCurrent(WorkService& svc, const ApiRequest& req) {
  Json j;
  PC_ASSIGN_OR_RETURN(WorkRecordInput in, RecordInput(req, "handoff", j));
  PC_ASSIGN_OR_RETURN(CurrentWork w, CurrentWorkFrom(j["handoff"], "handoff"));
  in.content = RecordJson(w).dump();
  PC_ASSIGN_OR_RETURN(PreparedWork p, svc.HandoffCurrent(in, w));
  return ApiResponse{
      200, Json{{"boundary", ReceiptJson(p.boundary)}, {"handoff", PreparedJson(p.handoff)}}};
}

Result<ReceiverChecks> ChecksFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(JsonShape(j, at, {"live_state", "capability", "authorization"},
                               {"live_state", "capability", "authorization"}));
  ReceiverChecks c;
  PC_ASSIGN_OR_RETURN(c.live_state,
                      OneOf(j, "live_state", at, {"confirmed", "mismatch", "not_checked"}));
  PC_ASSIGN_OR_RETURN(c.capability,
                      OneOf(j, "capability", at, {"confirmed", "insufficient", "not_checked"}));
  PC_ASSIGN_OR_RETURN(c.authorization,
                      OneOf(j, "authorization", at, {"confirmed", "insufficient", "not_checked"}));
  return c;
}

Result<AcknowledgeRequest> AcknowledgeFrom(const Body& body, const Json& j) {
  AcknowledgeRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.source_id, body.String("source_id"));
  PC_ASSIGN_OR_RETURN(r.receiver, body.String("receiver"));
  PC_ASSIGN_OR_RETURN(std::string status, body.String("status"));
  if (status == "accepted")
    r.status = ReceiptStatus::kAccepted;
  else if (status == "needs_clarification")
    r.status = ReceiptStatus::kNeedsClarification;
  else if (status == "declined")
    r.status = ReceiptStatus::kDeclined;
  else
    return JsonFieldError("status", "status must be accepted, needs_clarification or declined");
  PC_ASSIGN_OR_RETURN(std::string selection, body.String("selection"));
  if (selection == "prepared")
    r.selection = HandoffSelection::kPrepared;
  else if (selection == "exact")
    r.selection = HandoffSelection::kExact;
  else
    return JsonFieldError("selection",
                          "selection must be prepared or exact: a receipt never "
                          "acknowledges latest, only what the receiver inspected");
  if (Has(j, "receiver_checks")) {
    PC_ASSIGN_OR_RETURN(r.checks, ChecksFrom(j["receiver_checks"], "receiver_checks"));
  }
  if (Has(j, "prepared")) {
    PC_ASSIGN_OR_RETURN(r.prepared, PreparedFrom(j["prepared"], "prepared"));
  }
  if (Has(j, "revision")) {
    PC_ASSIGN_OR_RETURN(r.revision, RefFromJson(j["revision"], "revision"));
  }
  if (Has(j, "message")) {
    PC_ASSIGN_OR_RETURN(r.message, body.String("message"));
  }
  return r;
}

Result<ApiResponse> Acknowledge(WorkService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body,
                      ParseBody(req, {"scope_id", "source_id", "receiver", "status", "selection",
                                      "receiver_checks", "prepared", "revision", "message"}));
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_ASSIGN_OR_RETURN(AcknowledgeRequest r, AcknowledgeFrom(body, j));
  PC_ASSIGN_OR_RETURN(Acknowledgement a, svc.Acknowledge(r));
  return ApiResponse{
      200, Json{{"resolution", ResolutionJson(a.resolution)}, {"receipt", ReceiptJson(a.receipt)}}};
}

Result<ApiResponse> RecordOutcome(WorkService& svc, const ApiRequest& req) {
  return StoreRecord(svc, req, "outcome", OutcomeFrom, &WorkService::RecordOutcome);
}

}  // namespace

void AddWorkRoutes(Router& router, Services services) {
  // Stateless over the two services it stands on, which outlive the router.
  auto work = std::make_shared<WorkService>(services.handoff, services.sources);
  auto bind = [work](Result<ApiResponse> (*fn)(WorkService&, const ApiRequest&)) -> ApiHandler {
    return [work, fn](const ApiRequest& req) { return fn(*work, req); };
  };
  router.Add("POST", "/v1/work/contracts/create",
             {"create_work_contract", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             bind(CreateContract));
  router.Add("POST", "/v1/work/handoffs/prepare-current",
             {"handoff_current_work", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             bind(HandoffCurrent));
  router.Add("POST", "/v1/work/handoffs/acknowledge",
             {"acknowledge_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             bind(Acknowledge));
  router.Add("POST", "/v1/work/outcomes/record",
             {"record_task_outcome", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             bind(RecordOutcome));
}

}  // namespace pc
