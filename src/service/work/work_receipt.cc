#include "service/work/work_receipt.h"

#include <nlohmann/json.hpp>
#include <set>

#include "common/json_parse.h"
#include "common/sha256.h"
#include "model/citation.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_content.h"

namespace pc {
using Json = nlohmann::json;

namespace {

constexpr int kReceiptScanPage = 100;  // receipts read at a time looking for a later one

Json RefJson(const MemoryRef& m) {
  return Json{{"family", m.family}, {"artifact_id", m.artifact_id}, {"revision", m.revision}};
}

// A citation for the digest: its kind and every part as its own JSON value, so no two citations
// share an encoding (the display text joins parts with "/", and ("a/b", "c") would be ("a",
// "b/c")).
Json CitationJson(const HandoffCitation& c) {
  switch (c.kind) {
    case HandoffCitationKind::kSource:
      return Json::array({"source", c.source_name, c.source_id});
    case HandoffCitationKind::kArtifact:
      return Json::array({"artifact", RefJson(c.artifact)});
    case HandoffCitationKind::kMemory:
      break;
  }
  return Json::array({"memory", RefJson(c.artifact), c.entry_id, c.entry_version_id});
}

Json StatementJson(const HandoffStatement& st) {
  Json cites = Json::array();
  for (const HandoffCitation& c : st.citations) cites.push_back(CitationJson(c));
  return Json::array({st.text, cites});
}

// A stored receipt's target: an exact one's revision, or a prepared one's digest.
bool ReadTarget(const Json& target, StoredReceipt& out) {
  if (!target.is_object() || target.size() != 1) return false;
  if (out.selection != "exact")
    return target.contains("prepared_digest") && target["prepared_digest"].is_string();
  if (!target.contains("revision")) return false;
  const Json& r = target["revision"];
  if (!r.is_object() || r.size() != 3 || !r.value("family", Json()).is_string() ||
      !r.value("artifact_id", Json()).is_string() ||
      !r.value("revision", Json()).is_number_integer())
    return false;
  out.revision = MemoryRef{r["family"].get<std::string>(), r["artifact_id"].get<std::string>(),
                           r["revision"].get<int64_t>()};
  return true;
}

}  // namespace

bool EvidenceAvailable(const HandoffResolution& r) {
  for (const HandoffEvidenceCheck& c : r.checks)
    if (!c.unavailable.empty()) return false;
  return true;
}

std::string PreparedDigest(const PreparedHandoff& p) {
  // One JSON array of every part, in a fixed order: JSON's quoting keeps the parts apart.
  Json state = Json::array(), omissions = Json::array();
  for (const HandoffStatement& st : p.content.state) state.push_back(StatementJson(st));
  for (const HandoffOmission& o : p.content.omissions)
    omissions.push_back(Json::array({o.text, o.citation ? CitationJson(*o.citation) : Json()}));
  Json parts = Json::array(
      {"powercontext.prepared-handoff.v1", p.scope_id, p.base ? RefJson(*p.base) : Json(),
       p.content.objective, state, HandoffDispositionName(p.content.disposition),
       p.content.next_action ? StatementJson(*p.content.next_action) : Json(), omissions});
  return "sha256:" + Sha256Hex(parts.dump());
}

std::string ReceiptContent(const AcknowledgeRequest& req, const HandoffResolution& r) {
  Json unavailable = Json::array();
  for (const HandoffEvidenceCheck& c : r.checks)
    for (const HandoffCitation& x : c.unavailable) unavailable.push_back(HandoffCitationText(x));
  Json target = req.prepared ? Json{{"prepared_digest", PreparedDigest(*req.prepared)}}
                             : Json{{"revision", RefJson(*r.selected_revision)}};
  Json checks = req.checks ? Json{{"live_state", req.checks->live_state},
                                  {"capability", req.checks->capability},
                                  {"authorization", req.checks->authorization}}
                           : Json();
  Json j{{"schema", kReceiptSchema},
         {"trust", "untrusted_observation"},
         {"receiver", req.receiver},
         {"status", ReceiptStatusName(req.status)},
         {"selection", HandoffSelectionName(req.selection)},
         {"target", target},
         {"evidence", unavailable.empty() ? "available" : "unavailable"},
         {"unavailable_evidence", unavailable},
         {"receiver_checks", checks},
         {"message", req.message ? Json(*req.message) : Json()}};
  return j.dump();  // keys sorted, no white space: canonical
}

std::string ReceiptMetadata(const AcknowledgeRequest& req) {
  return Json{{"kind", kReceiptSourceKind},
              {"schema", kReceiptSchema},
              {"status", ReceiptStatusName(req.status)},
              {"selection", HandoffSelectionName(req.selection)}}
      .dump();
}

Result<StoredReceipt> ReadReceipt(const Source& receipt) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("source " + SourceRef(receipt) +
                           " is not a readable Handoff Receipt record: " + why);
  };
  if (receipt.kind != kReceiptSourceKind) return bad("its kind is " + receipt.kind);
  Result<Json> parsed = ParseJson(receipt.content);
  if (!parsed.ok() || !parsed->is_object()) return bad("its content is not a JSON object");
  const Json& j = *parsed;
  // Exactly the fields ReceiptContent writes, and in its canonical form.
  static const std::set<std::string> kFields = {
      "schema",         "trust",     "receiver",
      "status",         "selection", "target",
      "evidence",       "message",   "unavailable_evidence",
      "receiver_checks"};
  for (const auto& [key, value] : j.items())
    if (!kFields.count(key)) return bad("unknown field " + key);
  if (j.size() != kFields.size()) return bad("a field is missing");
  if (j.dump() != receipt.content) return bad("its content is not canonical JSON");
  auto text = [&](const char* key) {
    return j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  if (text("schema") != kReceiptSchema || text("trust") != "untrusted_observation")
    return bad("its schema or trust is not a receipt's");
  StoredReceipt out;
  out.status = text("status");
  out.selection = text("selection");
  const bool known_status =
      out.status == "accepted" || out.status == "needs_clarification" || out.status == "declined";
  if (!known_status || (out.selection != "exact" && out.selection != "prepared") ||
      text("receiver").empty())
    return bad("its receiver, status or selection is unreadable");
  const std::string evidence = text("evidence");
  const Json& unavailable = j["unavailable_evidence"];
  if (!unavailable.is_array() || (evidence != (unavailable.empty() ? "available" : "unavailable")))
    return bad("its evidence state is unreadable");
  out.evidence_available = unavailable.empty();
  if (!ReadTarget(j["target"], out)) return bad("its target is unreadable");
  const Json& checks = j["receiver_checks"];
  out.all_confirmed = checks.is_object() && checks.size() == 3;
  for (const char* c : {"live_state", "capability", "authorization"})
    out.all_confirmed = out.all_confirmed && checks.value(c, Json()) == "confirmed";
  // The metadata says what the content says (a reader of either sees the same receipt).
  Result<Json> meta = ParseJson(receipt.metadata_json);
  if (!meta.ok() || !meta->is_object() || meta->value("status", Json()) != out.status ||
      meta->value("selection", Json()) != out.selection)
    return bad("its metadata does not match its content");
  return out;
}

Result<StoredReceipt> CheckLinkable(const Source& receipt, const std::string& field) {
  auto refuse = [&](const std::string& why) {
    return FieldError(field, field +
                                 " must name an accepted Handoff Receipt of an exact handoff "
                                 "revision: " +
                                 why);
  };
  if (receipt.kind != kReceiptSourceKind)
    return refuse("source " + SourceRef(receipt) + " is not a Handoff Receipt");
  Result<StoredReceipt> r = ReadReceipt(receipt);
  if (!r.ok()) return refuse(r.status().message());
  if (r->status != "accepted") return refuse("this receipt is " + r->status);
  if (!r->revision) return refuse("this receipt acknowledged a prepared (uncommitted) handoff");
  if (!r->evidence_available || !r->all_confirmed)
    return refuse("its record does not show every citation available and every check confirmed");
  return r;
}

Status CheckNotSuperseded(ReadTxn& txn, const Source& receipt, const StoredReceipt& r,
                          const std::string& field) {
  for (int64_t after = receipt.position;;) {
    PC_ASSIGN_OR_RETURN(
        std::vector<Source> page,
        txn.ListSourcesOfKind(receipt.scope_id, kReceiptSourceKind, after, kReceiptScanPage));
    for (const Source& s : page) {
      Result<StoredReceipt> later = ReadReceipt(s);
      if (!later.ok() || later->status != "declined" || later->revision != r.revision) continue;
      return FieldError(field, field + " names receipt " + SourceRef(receipt) + " of " +
                                   FormatMemoryRef(*r.revision) +
                                   ", which the later declined receipt " + SourceRef(s) +
                                   " (position " + std::to_string(s.position) +
                                   ") of the same revision superseded: the handoff was declined "
                                   "since; acknowledge it again and link that receipt")
          .WithDetail("superseded_by", SourceRef(s));
    }
    if (page.size() < static_cast<size_t>(kReceiptScanPage)) return Status::Ok();
    after = page.back().position;
  }
}

}  // namespace pc
