// Workspace bindings (upstream RFC 0082, docs/handoff-reports.md): which Project one local
// checkout reports to. A binding is written only by an explicit attach — never guessed from a
// path, a remote or a branch — and answers only "which Project to read"; attach and detach move,
// copy or delete nothing else. Both are compare-and-set on the record's version; the first attach
// of a workspace expects no record at all (expected_version null).
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "model/report.h"
#include "store/store.h"

namespace pc {

struct AttachWorkspaceRequest {
  std::string workspace_instance_id, project_id;
  ReportRepositoryRef repository_ref;
  std::optional<int64_t> expected_version;  // nullopt: the caller saw no record
};

class WorkspaceService {
 public:
  explicit WorkspaceService(Store& store) : store_(store) {}

  // The confirmed binding; 404 when the workspace has none (a detached record's version is in
  // the error's details, for the next attach).
  Result<WorkspaceBinding> Get(const std::string& workspace_instance_id);
  // 404 for an unknown Project; 409 workspace_binding_conflict when the record is not at
  // `expected_version` (or exists when it is null), or is confirmed for another Project.
  Result<WorkspaceBinding> Attach(const AttachWorkspaceRequest& req);
  // 404 when the workspace has no record; 409 workspace_binding_conflict when it is not at
  // `expected_version`. The record stays, `detached`.
  Result<WorkspaceBinding> Detach(const std::string& workspace_instance_id,
                                  int64_t expected_version);

 private:
  Store& store_;
};

// The spec's bounds, and what a credential-free reference is: no user info or query in a remote,
// no absolute or upward subpath.
Status CheckRepositoryRef(const ReportRepositoryRef& r);

}  // namespace pc
