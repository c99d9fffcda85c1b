// The Handoff Report catalog (upstream RFC 0082, docs/handoff-reports.md): Projects group
// Workstreams, and a Workstream is an existing scope. Both are mutable catalog records, not
// artifacts: every change is a compare-and-set on `version` and leaves an immutable revision of
// the whole descriptor. Plain structs, as model/types.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pc {

inline constexpr const char* kProjectSchema = "powercontext.project.v1";
inline constexpr const char* kWorkstreamSchema = "powercontext.workstream.v1";

// The spec's ProjectDescriptor.
struct ReportProject {
  std::string project_id;   // prj_…, server-issued, never changes
  std::string project_key;  // unique in the catalog, may change
  std::string title;
  std::optional<std::string> description;
  std::string default_locale = "zh-CN";    // zh-CN or en
  std::string timezone = "UTC";            // an IANA name
  std::string catalog_state = "included";  // included or archived
  int64_t version = 1;

  bool operator==(const ReportProject&) const = default;
};

// The spec's HandoffReportExternalReference: navigation only, never evidence.
struct ReportExternalRef {
  std::string kind;  // issue, task, pull_request, branch, feature, release, program, other
  std::string provider, external_id;
  std::optional<std::string> url;

  bool operator==(const ReportExternalRef&) const = default;
};

// The spec's WorkstreamDescriptor. `scope_id` is the scope's internal id (scp_…), its identity
// here; the API shows the scope's key.
struct ReportWorkstream {
  std::string scope_id;
  std::string project_id;
  std::optional<std::string> key;  // unique in its Project when set, may change
  std::string title;
  std::string kind = "feature";  // feature, bug, refactor, operations, research, other
  std::string catalog_state = "included";
  std::vector<ReportExternalRef> external_refs;
  std::vector<std::string> labels;
  int64_t version = 1;

  bool operator==(const ReportWorkstream&) const = default;
};

// One immutable revision of a catalog record: the descriptor as it was from `effective_at_ms`.
template <typename T>
struct CatalogRevision {
  T record;
  std::string actor;
  int64_t effective_at_ms = 0;
};

}  // namespace pc
