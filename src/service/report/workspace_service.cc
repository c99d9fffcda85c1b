#include "service/report/workspace_service.h"

#include "common/clock.h"
#include "model/text_check.h"
#include "service/core/actor.h"
#include "service/report/report_checks.h"

namespace pc {
namespace {

Status CheckWorkspaceId(const std::string& id) {
  return CheckOneLineText("workspace_instance_id", id, 256);
}

Status BindingConflict(const std::string& message, const WorkspaceBinding& now) {
  return Status(Code::kWorkspaceBindingConflict, message)
      .WithDetail("current_version", now.version)
      .WithDetail("state", now.state);
}

Status NoRecord(const std::string& id) {
  return NotFound("workspace " + id + " has no binding").WithDetail("workspace_instance_id", id);
}

}  // namespace

Status CheckRepositoryRef(const ReportRepositoryRef& r) {
  if (!OneOf(r.provider, {"github", "gitlab", "local", "other"}))
    return Bad("repository_ref.provider",
               "repository_ref.provider must be github, gitlab, local or other");
  if (r.repository_id)
    PC_RETURN_IF_ERROR(CheckOneLineText("repository_ref.repository_id", *r.repository_id, 256));
  if (r.normalized_remote) {
    const std::string& u = *r.normalized_remote;
    PC_RETURN_IF_ERROR(CheckOneLineText("repository_ref.normalized_remote", u, 2048));
    const size_t scheme = u.find("://");
    const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
    const size_t path = u.find('/', host);
    const std::string authority = u.substr(host, path == std::string::npos ? path : path - host);
    if ((scheme != std::string::npos && authority.find('@') != std::string::npos) ||
        u.find_first_of("?#") != std::string::npos)
      return Bad("repository_ref.normalized_remote",
                 "repository_ref.normalized_remote must be credential-free: no user info, query "
                 "or fragment");
  }
  if (r.subpath) {
    const std::string& p = *r.subpath;
    PC_RETURN_IF_ERROR(CheckOneLineText("repository_ref.subpath", p, 1024));
    const std::string padded = "/" + p + "/";
    if (p.front() == '/' || p.find('\\') != std::string::npos ||
        padded.find("/../") != std::string::npos || (p.size() > 1 && p[1] == ':'))
      return Bad("repository_ref.subpath",
                 "repository_ref.subpath must be relative to the repository root (no absolute "
                 "path, no ..)");
  }
  return Status::Ok();
}

Result<WorkspaceBinding> WorkspaceService::Get(const std::string& workspace_instance_id) {
  PC_RETURN_IF_ERROR(CheckWorkspaceId(workspace_instance_id));
  std::optional<WorkspaceBinding> b;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(b, txn.FindWorkspaceBinding(workspace_instance_id));
    return Status::Ok();
  }));
  if (!b) return NoRecord(workspace_instance_id);
  if (b->state != "confirmed")
    return NotFound("workspace " + workspace_instance_id + " has no confirmed binding (detached)")
        .WithDetail("workspace_instance_id", workspace_instance_id)
        .WithDetail("current_version", b->version);
  return *b;
}

Result<WorkspaceBinding> WorkspaceService::Attach(const AttachWorkspaceRequest& req) {
  PC_RETURN_IF_ERROR(CheckWorkspaceId(req.workspace_instance_id));
  PC_RETURN_IF_ERROR(ProjectId("project_id", req.project_id));
  PC_RETURN_IF_ERROR(CheckRepositoryRef(req.repository_ref));
  if (req.expected_version && *req.expected_version < 1)
    return Bad("expected_version", "expected_version must be null or an integer of at least 1");
  WorkspaceBinding out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<ReportProject> project,
                        txn.FindReportProject(req.project_id));
    if (!project) return NoProject(req.project_id);
    PC_ASSIGN_OR_RETURN(std::optional<WorkspaceBinding> now,
                        txn.FindWorkspaceBinding(req.workspace_instance_id));
    const int64_t t = NowMillis();
    if (!req.expected_version) {
      if (now)
        return BindingConflict("workspace " + req.workspace_instance_id +
                                   " has a binding record already (version " +
                                   std::to_string(now->version) + ", " + now->state + ")",
                               *now);
      out = {req.workspace_instance_id, req.project_id, req.repository_ref, "confirmed", t, 1};
      return As(Code::kWorkspaceBindingConflict, txn.PutWorkspaceBinding(out, t));
    }
    if (!now) return NoRecord(req.workspace_instance_id);
    if (now->version != *req.expected_version)
      return BindingConflict("workspace " + req.workspace_instance_id + " is at version " +
                                 std::to_string(now->version) + ", not " +
                                 std::to_string(*req.expected_version),
                             *now);
    if (now->state == "confirmed" && now->project_id != req.project_id)
      return BindingConflict("workspace " + req.workspace_instance_id + " is bound to Project " +
                                 now->project_id + ": detach it first",
                             *now)
          .WithDetail("project_id", now->project_id);
    WorkspaceBinding next = *now;
    next.project_id = req.project_id;
    next.repository_ref = req.repository_ref;
    if (next.state != "confirmed") next.confirmed_at_ms = t;
    next.state = "confirmed";
    if (next == *now) {  // nothing to change
      out = *now;
      return Status::Ok();
    }
    next.version = now->version + 1;
    out = next;
    return As(Code::kWorkspaceBindingConflict, txn.PutWorkspaceBinding(next, t));
  }));
  return out;
}

Result<WorkspaceBinding> WorkspaceService::Detach(const std::string& workspace_instance_id,
                                                  int64_t expected_version) {
  PC_RETURN_IF_ERROR(CheckWorkspaceId(workspace_instance_id));
  if (expected_version < 1)
    return Bad("expected_version", "expected_version must be an integer of at least 1");
  WorkspaceBinding out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<WorkspaceBinding> now,
                        txn.FindWorkspaceBinding(workspace_instance_id));
    if (!now) return NoRecord(workspace_instance_id);
    if (now->version != expected_version)
      return BindingConflict("workspace " + workspace_instance_id + " is at version " +
                                 std::to_string(now->version) + ", not " +
                                 std::to_string(expected_version),
                             *now);
    out = *now;
    if (now->state == "detached") return Status::Ok();
    out.state = "detached";
    out.version = now->version + 1;
    return As(Code::kWorkspaceBindingConflict, txn.PutWorkspaceBinding(out, NowMillis()));
  }));
  return out;
}

}  // namespace pc
