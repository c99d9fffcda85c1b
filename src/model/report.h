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

// The spec's HandoffReportRepositoryRef: a credential-free discovery hint, never identity.
struct ReportRepositoryRef {
  std::string provider;  // github, gitlab, local, other
  std::optional<std::string> repository_id, normalized_remote, subpath;

  bool operator==(const ReportRepositoryRef&) const = default;
};

inline constexpr const char* kWorkspaceBindingSchema = "powercontext.workspace-binding.v1";

// The spec's HandoffReportWorkspaceBinding: which Project one local checkout reports to. At most
// one record per workspace; detach keeps it (state `detached`) so a stale attach cannot revive it.
struct WorkspaceBinding {
  std::string workspace_instance_id;
  std::string project_id;
  ReportRepositoryRef repository_ref;
  std::string state = "confirmed";  // confirmed or detached
  int64_t confirmed_at_ms = 0;
  int64_t version = 1;

  bool operator==(const WorkspaceBinding&) const = default;
};

inline constexpr const char* kReportActivitySchema = "powercontext.handoff-report-activity.v1";

struct ReportActivityAgent {
  std::optional<std::string> provider, label;
  bool operator==(const ReportActivityAgent&) const = default;
};
struct ReportVcsContext {
  std::optional<std::string> branch, head_revision;
  bool operator==(const ReportVcsContext&) const = default;
};

// The spec's HandoffReportActivity: an untrusted observation a host recorded for a Project (and,
// when it said so, one of its Workstreams). Idempotent on (source, source_event_id); `cursor` is
// its place in the Report store's one ever-growing sequence (never reused, also after a purge).
struct ReportActivity {
  std::string event_id;  // act_…
  std::string project_id;
  std::optional<std::string> scope_id;  // a Workstream's scope (internal id)
  std::string source;  // handoff_observation, git_commit, git_worktree, coding_session, other
  std::string source_event_id;
  std::optional<ReportExternalRef> source_ref;
  std::optional<int64_t> occurred_at_ms;
  int64_t observed_at_ms = 0;  // the server's, at first record
  std::string time_basis;      // source_reported, host_observed, first_seen, current_only, unknown
  std::optional<std::string> title, summary;
  std::optional<ReportActivityAgent> agent;
  std::optional<std::string> session_id;
  std::optional<ReportVcsContext> vcs_context;
  std::vector<ReportExternalRef> evidence_refs;
  int64_t cursor = 0;

  // The moment a period report files the event under, by its time basis: occurred_at for
  // source_reported and host_observed, observed_at for first_seen; none for current_only and
  // unknown (and for a reported time that is missing).
  std::optional<int64_t> PeriodTimeMs() const {
    if (time_basis == "first_seen") return observed_at_ms;
    if (time_basis == "source_reported" || time_basis == "host_observed") return occurred_at_ms;
    return std::nullopt;
  }
};

// One immutable revision of a catalog record: the descriptor as it was from `effective_at_ms`.
template <typename T>
struct CatalogRevision {
  T record;
  std::string actor;
  int64_t effective_at_ms = 0;
};

}  // namespace pc
