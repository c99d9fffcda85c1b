#include "service/report/catalog_service.h"

#include <algorithm>
#include <cctype>

#include "common/clock.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/report/report_checks.h"

namespace pc {
namespace {

Status CheckPage(const CatalogPageRequest& req) {
  if (req.limit < 1 || req.limit > kMaxCatalogPage)
    return Bad("limit", "limit must be between 1 and " + std::to_string(kMaxCatalogPage));
  if (req.cursor) PC_RETURN_IF_ERROR(CheckOneLineText("cursor", *req.cursor, 256));
  return Status::Ok();
}

}  // namespace

Status CheckProjectFields(const std::string& at, const std::string& key, const std::string& title,
                          const std::optional<std::string>& description, const std::string& locale,
                          const std::string& timezone) {
  PC_RETURN_IF_ERROR(CheckOneLineText(at + "project_key", key, kMaxProjectKeyChars));
  PC_RETURN_IF_ERROR(CheckChars(at + "title", title, kMaxReportTitleChars));
  if (description) {
    PC_RETURN_IF_ERROR(
        CheckOptionalText(at + "description", *description, 4 * kMaxReportDescriptionChars));
    if (CountCodePoints(*description).value_or(0) > kMaxReportDescriptionChars)
      return Bad(at + "description", at + "description is longer than 2000 characters");
  }
  if (!OneOf(locale, {"zh-CN", "en"}))
    return Bad(at + "default_locale", at + "default_locale must be zh-CN or en");
  return CheckTimezone(at + "timezone", timezone);
}

Status CheckWorkstreamFields(const std::string& at, const std::optional<std::string>& key,
                             const std::string& title, const std::string& kind,
                             const std::string& catalog_state,
                             const std::vector<ReportExternalRef>& refs,
                             const std::vector<std::string>& labels) {
  if (key) PC_RETURN_IF_ERROR(CheckOneLineText(at + "key", *key, kMaxWorkstreamKeyChars));
  PC_RETURN_IF_ERROR(CheckChars(at + "title", title, kMaxReportTitleChars));
  if (!OneOf(kind, {"feature", "bug", "refactor", "operations", "research", "other"}))
    return Bad(at + "kind",
               at + "kind must be feature, bug, refactor, operations, research or other");
  if (!OneOf(catalog_state, {"included", "archived"}))
    return Bad(at + "catalog_state", at + "catalog_state must be included or archived");
  if (refs.size() > kMaxWorkstreamRefs)
    return Bad(at + "external_refs", at + "external_refs holds at most 32 references");
  for (size_t i = 0; i < refs.size(); ++i)
    PC_RETURN_IF_ERROR(CheckExternalRef(at + "external_refs[" + std::to_string(i) + "].", refs[i]));
  if (labels.size() > kMaxWorkstreamLabels)
    return Bad(at + "labels", at + "labels holds at most 32 labels");
  for (size_t i = 0; i < labels.size(); ++i)
    PC_RETURN_IF_ERROR(CheckOneLineText(at + "labels[" + std::to_string(i) + "]", labels[i], 128));
  return Status::Ok();
}

Result<ReportProject> CatalogService::CreateProject(const CreateProjectRequest& req,
                                                    const std::string& actor) {
  PC_RETURN_IF_ERROR(CheckProjectFields("", req.project_key, req.title, req.description,
                                        req.default_locale, req.timezone));
  ReportProject p{NewId(kProjectPrefix), req.project_key, req.title,  req.description,
                  req.default_locale,    req.timezone,    "included", 1};
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto taken, txn.FindReportProjectByKey(p.project_key));
    if (taken)
      return Status(Code::kProjectConflict,
                    "project_key " + p.project_key + " is Project " + taken->project_id + "'s")
          .WithDetail("project_id", taken->project_id);
    return As(Code::kProjectConflict, txn.PutReportProject(p, actor, NowMillis()));
  }));
  return p;
}

Result<ReportProject> CatalogService::GetProject(const std::string& project_id) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", project_id));
  std::optional<ReportProject> out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, txn.FindReportProject(project_id));
    return Status::Ok();
  }));
  if (!out) return NoProject(project_id);
  return *out;
}

Result<CatalogPage<ReportProject>> CatalogService::ListProjects(const CatalogPageRequest& req) {
  PC_RETURN_IF_ERROR(CheckPage(req));
  CatalogPage<ReportProject> page;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(page.items, txn.ListReportProjects(req.cursor.value_or(""), req.limit + 1,
                                                           req.include_archived));
    return Status::Ok();
  }));
  if (page.items.size() > static_cast<size_t>(req.limit)) {
    page.items.resize(static_cast<size_t>(req.limit));
    page.next_cursor = page.items.back().project_id;
  }
  return page;
}

Result<ReportProject> CatalogService::UpdateProject(const ReportProject& next,
                                                    int64_t expected_version,
                                                    const std::string& actor) {
  PC_RETURN_IF_ERROR(ProjectId("project.project_id", next.project_id));
  PC_RETURN_IF_ERROR(CheckProjectFields("project.", next.project_key, next.title, next.description,
                                        next.default_locale, next.timezone));
  if (!OneOf(next.catalog_state, {"included", "archived"}))
    return Bad("project.catalog_state", "project.catalog_state must be included or archived");
  if (expected_version < 1)
    return Bad("expected_version", "expected_version must be an integer of at least 1");
  ReportProject out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<ReportProject> now, txn.FindReportProject(next.project_id));
    if (!now) return NoProject(next.project_id);
    if (now->version != expected_version)
      return Status(Code::kProjectConflict, "Project " + next.project_id + " is at version " +
                                                std::to_string(now->version) + ", not " +
                                                std::to_string(expected_version))
          .WithDetail("current_version", now->version);
    ReportProject candidate = next;
    candidate.version = now->version;
    if (candidate == *now) {  // nothing to change: no revision
      out = *now;
      return Status::Ok();
    }
    if (candidate.project_key != now->project_key) {
      PC_ASSIGN_OR_RETURN(auto taken, txn.FindReportProjectByKey(candidate.project_key));
      if (taken)
        return Status(Code::kProjectConflict, "project_key " + candidate.project_key +
                                                  " is Project " + taken->project_id + "'s")
            .WithDetail("project_id", taken->project_id);
    }
    candidate.version = now->version + 1;
    out = candidate;
    return As(Code::kProjectConflict, txn.PutReportProject(candidate, actor, NowMillis()));
  }));
  return out;
}

Result<std::vector<CatalogRevision<ReportProject>>> CatalogService::ProjectRevisions(
    const std::string& project_id) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", project_id));
  std::vector<CatalogRevision<ReportProject>> out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, txn.ListReportProjectRevisions(project_id));
    return Status::Ok();
  }));
  if (out.empty()) return NoProject(project_id);
  return out;
}

Result<WorkstreamView> CatalogService::RegisterWorkstream(const RegisterWorkstreamRequest& req,
                                                          const std::string& actor) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", req.project_id));
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckWorkstreamFields("", req.key, req.title, req.kind, req.catalog_state,
                                           req.external_refs, req.labels));
  WorkstreamView out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<ReportProject> project,
                        txn.FindReportProject(req.project_id));
    if (!project) return NoProject(req.project_id);
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, req.scope_id));
    if (!scope)
      return NotFound("there is no scope " + req.scope_id + " to register")
          .WithDetail("scope_id", req.scope_id);
    PC_ASSIGN_OR_RETURN(std::optional<ReportWorkstream> grouped,
                        txn.FindReportWorkstream(scope->scope_id));
    if (grouped)
      return Status(Code::kScopeAlreadyGrouped, "scope " + scope->key +
                                                    " is a Workstream of Project " +
                                                    grouped->project_id + " already")
          .WithDetail("project_id", grouped->project_id);
    if (req.key) {
      PC_ASSIGN_OR_RETURN(auto taken, txn.FindReportWorkstreamByKey(req.project_id, *req.key));
      if (taken)
        return Status(Code::kWorkstreamConflict,
                      "key " + *req.key + " is another Workstream's in Project " + req.project_id)
            .WithDetail("field", "key");
    }
    out.record =
        ReportWorkstream{scope->scope_id,   req.project_id,    req.key,    req.title, req.kind,
                         req.catalog_state, req.external_refs, req.labels, 1};
    out.scope_key = scope->key;
    return As(Code::kWorkstreamConflict, txn.PutReportWorkstream(out.record, actor, NowMillis()));
  }));
  return out;
}

Result<CatalogPage<WorkstreamView>> CatalogService::ListWorkstreams(const std::string& project_id,
                                                                    const CatalogPageRequest& req) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", project_id));
  PC_RETURN_IF_ERROR(CheckPage(req));
  CatalogPage<WorkstreamView> page;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    page = {};
    PC_ASSIGN_OR_RETURN(std::optional<ReportProject> project, txn.FindReportProject(project_id));
    if (!project) return NoProject(project_id);
    PC_ASSIGN_OR_RETURN(std::vector<ReportWorkstream> items,
                        txn.ListReportWorkstreams(project_id, req.cursor.value_or(""),
                                                  req.limit + 1, req.include_archived));
    for (ReportWorkstream& w : items) {
      PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, txn.FindScope(w.scope_id));
      page.items.push_back({std::move(w), scope ? scope->key : ""});
    }
    return Status::Ok();
  }));
  if (page.items.size() > static_cast<size_t>(req.limit)) {
    page.items.resize(static_cast<size_t>(req.limit));
    page.next_cursor = page.items.back().record.scope_id;
  }
  return page;
}

Result<WorkstreamView> CatalogService::UpdateWorkstream(const ReportWorkstream& next,
                                                        int64_t expected_version,
                                                        const std::string& actor) {
  PC_RETURN_IF_ERROR(CheckScopeId(next.scope_id));
  PC_RETURN_IF_ERROR(ProjectId("workstream.project_id", next.project_id));
  PC_RETURN_IF_ERROR(CheckWorkstreamFields("workstream.", next.key, next.title, next.kind,
                                           next.catalog_state, next.external_refs, next.labels));
  if (expected_version < 1)
    return Bad("expected_version", "expected_version must be an integer of at least 1");
  WorkstreamView out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, next.scope_id));
    std::optional<ReportWorkstream> now;
    if (scope) {
      PC_ASSIGN_OR_RETURN(now, txn.FindReportWorkstream(scope->scope_id));
    }
    if (!now)
      return NotFound("scope " + next.scope_id + " is not a registered Workstream")
          .WithDetail("scope_id", next.scope_id);
    if (now->project_id != next.project_id)
      return Bad("workstream.project_id",
                 "a Workstream stays in its Project (" + now->project_id + "): archive it instead");
    if (now->version != expected_version)
      return Status(Code::kWorkstreamConflict, "Workstream " + scope->key + " is at version " +
                                                   std::to_string(now->version) + ", not " +
                                                   std::to_string(expected_version))
          .WithDetail("current_version", now->version);
    ReportWorkstream candidate = next;
    candidate.scope_id = scope->scope_id;
    candidate.version = now->version;
    out.scope_key = scope->key;
    if (candidate == *now) {
      out.record = *now;
      return Status::Ok();
    }
    if (candidate.key && candidate.key != now->key) {
      PC_ASSIGN_OR_RETURN(auto taken,
                          txn.FindReportWorkstreamByKey(candidate.project_id, *candidate.key));
      if (taken)
        return Status(Code::kWorkstreamConflict, "key " + *candidate.key +
                                                     " is another Workstream's in Project " +
                                                     candidate.project_id)
            .WithDetail("field", "workstream.key");
    }
    candidate.version = now->version + 1;
    out.record = candidate;
    return As(Code::kWorkstreamConflict, txn.PutReportWorkstream(candidate, actor, NowMillis()));
  }));
  return out;
}

}  // namespace pc
