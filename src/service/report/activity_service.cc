#include "service/report/activity_service.h"

#include "common/clock.h"
#include "common/ids.h"
#include "model/text_check.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/report/report_checks.h"

namespace pc {
namespace {

Status CheckOptChars(const std::string& field, const std::optional<std::string>& v, size_t max) {
  return v ? CheckChars(field, *v, max) : Status::Ok();
}
Status CheckOptLine(const std::string& field, const std::optional<std::string>& v, size_t max) {
  return v ? CheckOneLineText(field, *v, max) : Status::Ok();
}

// Two records of one (source, source_event_id) say the same when all but the server's fields do.
bool SamePayload(ReportActivity a, const ReportActivity& b) {
  a.event_id = b.event_id;
  a.observed_at_ms = b.observed_at_ms;
  a.cursor = b.cursor;
  return a.project_id == b.project_id && a.scope_id == b.scope_id && a.source == b.source &&
         a.source_event_id == b.source_event_id && a.source_ref == b.source_ref &&
         a.occurred_at_ms == b.occurred_at_ms && a.time_basis == b.time_basis &&
         a.title == b.title && a.summary == b.summary && a.agent == b.agent &&
         a.session_id == b.session_id && a.vcs_context == b.vcs_context &&
         a.evidence_refs == b.evidence_refs;
}

Result<std::optional<std::string>> ScopeKey(ReadTxn& txn, const std::optional<std::string>& id) {
  if (!id) return std::optional<std::string>();
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, txn.FindScope(*id));
  return scope ? std::optional<std::string>(scope->key) : std::optional<std::string>(*id);
}

}  // namespace

bool IsActivitySource(const std::string& source) {
  return OneOf(source,
               {"handoff_observation", "git_commit", "git_worktree", "coding_session", "other"});
}

Status CheckActivity(const ReportActivity& a) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", a.project_id));
  if (!IsActivitySource(a.source))
    return Bad("source",
               "source must be handoff_observation, git_commit, git_worktree, "
               "coding_session or other");
  PC_RETURN_IF_ERROR(CheckOneLineText("source_event_id", a.source_event_id, 256));
  if (!OneOf(a.time_basis,
             {"source_reported", "host_observed", "first_seen", "current_only", "unknown"}))
    return Bad("time_basis",
               "time_basis must be source_reported, host_observed, first_seen, "
               "current_only or unknown");
  if ((a.time_basis == "source_reported" || a.time_basis == "host_observed") && !a.occurred_at_ms)
    return Bad("occurred_at", "a " + a.time_basis + " event says when it occurred: occurred_at");
  if (a.source_ref) PC_RETURN_IF_ERROR(CheckExternalRef("source_ref.", *a.source_ref));
  PC_RETURN_IF_ERROR(CheckOptChars("title", a.title, 256));
  PC_RETURN_IF_ERROR(CheckOptChars("summary", a.summary, 2000));
  if (a.agent) {
    PC_RETURN_IF_ERROR(CheckOptLine("agent.provider", a.agent->provider, 64));
    PC_RETURN_IF_ERROR(CheckOptLine("agent.label", a.agent->label, 128));
  }
  PC_RETURN_IF_ERROR(CheckOptLine("session_id", a.session_id, 256));
  if (a.vcs_context) {
    PC_RETURN_IF_ERROR(CheckOptLine("vcs_context.branch", a.vcs_context->branch, 256));
    PC_RETURN_IF_ERROR(
        CheckOptLine("vcs_context.head_revision", a.vcs_context->head_revision, 256));
  }
  if (a.evidence_refs.size() > kMaxActivityRefs)
    return Bad("evidence_refs", "evidence_refs holds at most 32 references");
  for (size_t i = 0; i < a.evidence_refs.size(); ++i)
    PC_RETURN_IF_ERROR(
        CheckExternalRef("evidence_refs[" + std::to_string(i) + "].", a.evidence_refs[i]));
  return Status::Ok();
}

Result<ActivityView> ActivityService::Record(const RecordActivityRequest& req) {
  PC_RETURN_IF_ERROR(CheckActivity(req.event));
  if (req.scope) PC_RETURN_IF_ERROR(CheckScopeId(*req.scope));
  ActivityView out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    ReportActivity a = req.event;
    PC_ASSIGN_OR_RETURN(std::optional<ReportProject> project, txn.FindReportProject(a.project_id));
    if (!project) return NoProject(a.project_id);
    out.scope_key.reset();
    a.scope_id.reset();
    if (req.scope) {
      PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, *req.scope));
      if (!scope)
        return NotFound("there is no scope " + *req.scope).WithDetail("scope_id", *req.scope);
      PC_ASSIGN_OR_RETURN(std::optional<ReportWorkstream> w,
                          txn.FindReportWorkstream(scope->scope_id));
      if (!w || w->project_id != a.project_id)
        return Status(Code::kScopeNotGrouped,
                      "scope " + scope->key + " is not a Workstream of Project " + a.project_id)
            .WithDetail("scope_id", scope->key);
      a.scope_id = scope->scope_id;
      out.scope_key = scope->key;
    }
    PC_ASSIGN_OR_RETURN(std::optional<ReportActivity> seen,
                        txn.FindReportActivity(a.source, a.source_event_id));
    if (seen) {
      if (!SamePayload(a, *seen))
        return Status(Code::kActivityEventConflict,
                      "source " + a.source + " event " + a.source_event_id +
                          " was recorded with another payload (event " + seen->event_id + ")")
            .WithDetail("event_id", seen->event_id);
      out.event = *seen;
      return Status::Ok();
    }
    a.event_id = NewId(kActivityPrefix);
    a.observed_at_ms = NowMillis();
    PC_RETURN_IF_ERROR(txn.AppendReportActivity(a));
    out.event = a;
    return Status::Ok();
  }));
  return out;
}

Result<ActivityPage> ActivityService::List(const ListActivitiesRequest& req) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", req.project_id));
  if (req.period_start_ms && req.period_end_ms && *req.period_start_ms >= *req.period_end_ms)
    return Bad("period_end", "period_end must be after period_start");
  if (req.sources.size() > 5) return Bad("sources", "sources holds at most 5 sources");
  for (size_t i = 0; i < req.sources.size(); ++i)
    if (!IsActivitySource(req.sources[i]))
      return Bad("sources[" + std::to_string(i) + "]",
                 "sources[" + std::to_string(i) + "] is not an Activity source");
  if (req.after_cursor < 0) return Bad("after_cursor", "after_cursor must be at least 0");
  if (req.through_cursor && *req.through_cursor < 0)
    return Bad("through_cursor", "through_cursor must be at least 0");
  if (req.limit < 1 || req.limit > kMaxActivityPage)
    return Bad("limit", "limit must be between 1 and 100");
  ActivityPage page;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    page = {};
    PC_ASSIGN_OR_RETURN(std::optional<ReportProject> project,
                        txn.FindReportProject(req.project_id));
    if (!project) return NoProject(req.project_id);
    if (req.through_cursor) {
      page.high_watermark = *req.through_cursor;
    } else {
      PC_ASSIGN_OR_RETURN(page.high_watermark, txn.ReportActivityHighWatermark());
    }
    ReadTxn::ActivityFilter f{req.project_id,      req.after_cursor,  page.high_watermark,
                              req.period_start_ms, req.period_end_ms, req.sources,
                              req.limit + 1};
    PC_ASSIGN_OR_RETURN(std::vector<ReportActivity> found, txn.ListReportActivities(f));
    for (ReportActivity& a : found) {
      PC_ASSIGN_OR_RETURN(std::optional<std::string> key, ScopeKey(txn, a.scope_id));
      page.items.push_back({std::move(a), std::move(key)});
    }
    return Status::Ok();
  }));
  if (page.items.size() > static_cast<size_t>(req.limit)) {
    page.items.resize(static_cast<size_t>(req.limit));
    page.next_cursor = page.items.back().event.cursor;
  }
  return page;
}

Result<int64_t> ActivityService::Purge(const std::string& project_id, int64_t observed_before_ms) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", project_id));
  int64_t deleted = 0;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<ReportProject> project, txn.FindReportProject(project_id));
    if (!project) return NoProject(project_id);
    PC_ASSIGN_OR_RETURN(deleted, txn.PurgeReportActivities(project_id, observed_before_ms));
    return Status::Ok();
  }));
  return deleted;
}

Result<int64_t> ActivityService::Prune(int64_t days, int64_t now_ms, const std::atomic<bool>* stop,
                                       int64_t batch) {
  if (days < 1 || days > kMaxActivityRetentionDays)
    return InvalidArgument("activity retention must be 1 to " +
                           std::to_string(kMaxActivityRetentionDays) + " days");
  // A batch of 0 would be "no limit" to the store, and the loop below would never see a short one.
  if (batch < 1) return InvalidArgument("an activity retention batch is at least 1 event");
  const int64_t before = now_ms - days * 86'400'000;
  auto stopped = [&] { return stop && stop->load(); };
  int64_t deleted = 0;
  std::string after;
  while (!stopped()) {
    std::vector<ReportProject> projects;
    PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(projects, txn.ListReportProjects(after, 100, /*include_archived=*/true));
      return Status::Ok();
    }));
    for (const ReportProject& p : projects) {
      int64_t n = batch;
      while (n >= batch && !stopped()) {
        PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
          PC_ASSIGN_OR_RETURN(n, txn.PurgeReportActivities(p.project_id, before, batch));
          return Status::Ok();
        }));
        deleted += n;
      }
    }
    if (projects.size() < 100) break;
    after = projects.back().project_id;
  }
  return deleted;
}

}  // namespace pc
