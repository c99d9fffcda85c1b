// The JSON codec of the Handoff Report's spec shapes (RFC 0082; powercontext.openapi.yaml):
// workspace bindings, Activity Events, and the report itself — its canonical JSON model, the two
// digests over it (RFC 8785 after NFC, common/canonical_json.h) and its Markdown. The report and
// catalog routes, and the golden tests, share it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/json_codec.h"
#include "service/report/report_service.h"
#include "service/report/workspace_service.h"

namespace pc {

Json ProjectJson(const ReportProject& p);  // ProjectDescriptor
// WorkstreamDescriptor: its scope by the key callers name it by.
Json WorkstreamJson(const ReportWorkstream& w, const std::string& scope_key);
Json ExternalRefJson(const ReportExternalRef& r);
Json BindingJson(const WorkspaceBinding& b);  // HandoffReportWorkspaceBinding
Json ActivityJson(const ActivityView& v);     // HandoffReportActivity

// A report as the route answers it: the canonical model, its digests, and (format markdown) its
// Markdown.
struct RenderedReport {
  Json report;  // with selection_digest and report_digest
  std::string selection_digest, report_digest;
  std::string markdown;  // format markdown only
};
// 413 handoff_report_too_large when the canonical JSON or the Markdown passes 10 MiB.
Result<RenderedReport> RenderReport(const HandoffReport& r);

}  // namespace pc
