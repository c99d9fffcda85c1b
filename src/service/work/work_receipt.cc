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

void AddStatement(std::string& out, const char* what, const HandoffStatement& st) {
  out += std::string(what) + "\n" + st.text + "\n";
  for (const HandoffCitation& c : st.citations) out += "cite " + HandoffCitationText(c) + "\n";
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
  // Length-free but unambiguous: each text is one line after its label, and texts are checked
  // single values (a newline inside one cannot forge a label: the label set is fixed and ordered).
  std::string text = "powercontext.prepared-handoff.v1\nscope\n" + p.scope_id + "\nbase\n" +
                     (p.base ? FormatMemoryRef(*p.base) : std::string("none")) + "\nobjective\n" +
                     p.content.objective + "\n";
  for (const HandoffStatement& st : p.content.state) AddStatement(text, "state", st);
  text += std::string("disposition\n") + HandoffDispositionName(p.content.disposition) + "\n";
  if (p.content.next_action) AddStatement(text, "next_action", *p.content.next_action);
  for (const HandoffOmission& o : p.content.omissions)
    text += "omission\n" + o.text + "\n" +
            (o.citation ? "cite " + HandoffCitationText(*o.citation) + "\n" : std::string());
  return "sha256:" + Sha256Hex(text);
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
