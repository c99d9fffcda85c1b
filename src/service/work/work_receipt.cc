#include "service/work/work_receipt.h"

#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "common/sha256.h"
#include "model/citation.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_content.h"

namespace pc {
namespace {

using Json = nlohmann::json;

Json StatementJson(const HandoffStatement& st) {
  Json cites = Json::array();
  for (const HandoffCitation& c : st.citations) cites.push_back(HandoffCitationText(c));
  return Json::array({st.text, cites});
}

Json RefJson(const MemoryRef& m) {
  return Json{{"family", m.family}, {"artifact_id", m.artifact_id}, {"revision", m.revision}};
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
    omissions.push_back(
        Json::array({o.text, o.citation ? Json(HandoffCitationText(*o.citation)) : Json()}));
  Json parts = Json::array({"powercontext.prepared-handoff.v1", p.scope_id,
                            p.base ? Json(FormatMemoryRef(*p.base)) : Json(), p.content.objective,
                            state, HandoffDispositionName(p.content.disposition),
                            p.content.next_action ? StatementJson(*p.content.next_action) : Json(),
                            omissions});
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

Status CheckLinkable(const Source& receipt, const std::string& field) {
  auto refuse = [&](const std::string& why) {
    return InvalidArgument(field +
                           " must name an accepted Handoff Receipt of an exact handoff "
                           "revision: " +
                           why)
        .WithDetail("field", field);
  };
  if (receipt.kind != kReceiptSourceKind)
    return refuse("source " + SourceRef(receipt) + " is not a Handoff Receipt");
  Result<Json> meta = ParseJson(receipt.metadata_json);
  if (!meta.ok() || !meta->is_object()) return refuse("its record is unreadable");
  if (meta->value("status", "") != "accepted")
    return refuse("this receipt is " + meta->value("status", std::string("unknown")));
  if (meta->value("selection", "") != "exact")
    return refuse("this receipt acknowledged a prepared (uncommitted) handoff");
  return Status::Ok();
}

}  // namespace pc
