// The Handoff Report catalog of PgTxn (RFC 0082, pg_schema.cc migration 11), as SQLite's
// (sqlite_report.cc); ids compare in byte order (COLLATE "C"), as SQLite's do.
#include "store/postgres/pg_txn.h"
#include "store/store_rows.h"

namespace pc::pg {
namespace {

template <typename T, typename FromRow>
Result<std::vector<T>> ReadRecords(const Rows& r, FromRow from_row) {
  std::vector<T> out;
  for (int i = 0; i < r.size(); ++i) {
    PC_ASSIGN_OR_RETURN(T t, from_row(r.Text(i, 0), r.Int(i, 1)));
    out.push_back(std::move(t));
  }
  return out;
}

template <typename T, typename FromRow>
Result<std::vector<CatalogRevision<T>>> ReadRevisions(const Rows& r, FromRow from_row) {
  std::vector<CatalogRevision<T>> out;
  for (int i = 0; i < r.size(); ++i) {
    PC_ASSIGN_OR_RETURN(T t, from_row(r.Text(i, 0), r.Int(i, 1)));
    out.push_back({std::move(t), r.Text(i, 2), r.Int(i, 3)});
  }
  return out;
}

template <typename T>
std::optional<T> First(std::vector<T> v) {
  if (v.empty()) return std::nullopt;
  return std::move(v[0]);
}

}  // namespace

Result<std::optional<ReportProject>> PgTxn::FindReportProject(const std::string& project_id) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q(std::string("SELECT record, version FROM report_projects WHERE project_id = $1") + Lock(),
        {project_id}));
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportProject>(r, ReportProjectFromRow));
  return First(std::move(found));
}

Result<std::optional<ReportProject>> PgTxn::FindReportProjectByKey(const std::string& key) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q("SELECT record, version FROM report_projects WHERE project_key = $1", {key}));
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportProject>(r, ReportProjectFromRow));
  return First(std::move(found));
}

Result<std::vector<ReportProject>> PgTxn::ListReportProjects(const std::string& after, int limit,
                                                             bool include_archived) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q("SELECT record, version FROM report_projects WHERE project_id COLLATE \"C\" > $1"
                " AND ($2::boolean OR catalog_state = 'included') ORDER BY project_id COLLATE \"C\""
                " LIMIT $3::bigint",
                {after, include_archived ? "true" : "false", P(int64_t{limit})}));
  return ReadRecords<ReportProject>(r, ReportProjectFromRow);
}

Result<std::vector<CatalogRevision<ReportProject>>> PgTxn::ListReportProjectRevisions(
    const std::string& project_id) {
  PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT record, version, actor, effective_at FROM "
                                "report_project_revisions WHERE project_id = $1 ORDER BY version",
                                {project_id}));
  return ReadRevisions<ReportProject>(r, ReportProjectFromRow);
}

Result<std::optional<ReportWorkstream>> PgTxn::FindReportWorkstream(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q(std::string("SELECT record, version FROM report_workstreams WHERE scope_id = $1") + Lock(),
        {scope_id}));
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportWorkstream>(r, ReportWorkstreamFromRow));
  return First(std::move(found));
}

Result<std::optional<ReportWorkstream>> PgTxn::FindReportWorkstreamByKey(
    const std::string& project_id, const std::string& key) {
  PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT record, version FROM report_workstreams"
                                " WHERE project_id = $1 AND key = $2",
                                {project_id, key}));
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportWorkstream>(r, ReportWorkstreamFromRow));
  return First(std::move(found));
}

Result<std::vector<ReportWorkstream>> PgTxn::ListReportWorkstreams(const std::string& project_id,
                                                                   const std::string& after,
                                                                   int limit,
                                                                   bool include_archived) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q("SELECT record, version FROM report_workstreams WHERE project_id = $1"
                " AND scope_id COLLATE \"C\" > $2 AND ($3::boolean OR catalog_state = 'included')"
                " ORDER BY scope_id COLLATE \"C\" LIMIT $4::bigint",
                {project_id, after, include_archived ? "true" : "false", P(int64_t{limit})}));
  return ReadRecords<ReportWorkstream>(r, ReportWorkstreamFromRow);
}

Result<std::vector<CatalogRevision<ReportWorkstream>>> PgTxn::ListReportWorkstreamRevisions(
    const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT record, version, actor, effective_at FROM "
                                "report_workstream_revisions WHERE scope_id = $1 ORDER BY version",
                                {scope_id}));
  return ReadRevisions<ReportWorkstream>(r, ReportWorkstreamFromRow);
}

Status PgTxn::PutAtVersion(int64_t version, const char* insert, const char* update,
                           const Params& params, const std::string& what) {
  PC_ASSIGN_OR_RETURN(Rows r, Q(version == 1 ? insert : update, params));
  if (version != 1 && r.affected() != 1)
    return Conflict(what + " moved; version " + std::to_string(version) + " is taken");
  return Status::Ok();
}

Status PgTxn::AppendCatalogRevision(const char* table, const char* key_column,
                                    const std::string& key, int64_t version,
                                    const std::string& record, const std::string& actor,
                                    int64_t now) {
  return Q(std::string("INSERT INTO ") + table + "(" + key_column +
               ", version, record, actor, effective_at) VALUES($1, $2, $3, $4, $5)",
           {key, P(version), record, actor, P(now)})
      .status();
}

Status PgTxn::PutReportProject(const ReportProject& p, const std::string& actor, int64_t now) {
  const std::string record = ReportProjectToRow(p);
  PC_RETURN_IF_ERROR(PutAtVersion(
      p.version,
      "INSERT INTO report_projects(project_id, project_key, catalog_state, version, record,"
      " updated_at) VALUES($1, $2, $3, $4, $5, $6)",
      "UPDATE report_projects SET project_key = $2, catalog_state = $3, version = $4::bigint,"
      " record = $5, updated_at = $6 WHERE project_id = $1 AND version = $4::bigint - 1",
      {p.project_id, p.project_key, p.catalog_state, P(p.version), record, P(now)},
      "project " + p.project_id));
  return AppendCatalogRevision("report_project_revisions", "project_id", p.project_id, p.version,
                               record, actor, now);
}

Status PgTxn::PutReportWorkstream(const ReportWorkstream& w, const std::string& actor,
                                  int64_t now) {
  const std::string record = ReportWorkstreamToRow(w);
  PC_RETURN_IF_ERROR(PutAtVersion(
      w.version,
      "INSERT INTO report_workstreams(scope_id, project_id, key, catalog_state, version, record,"
      " updated_at) VALUES($1, $2, $3, $4, $5, $6, $7)",
      "UPDATE report_workstreams SET project_id = $2, key = $3, catalog_state = $4,"
      " version = $5::bigint, record = $6, updated_at = $7"
      " WHERE scope_id = $1 AND version = $5::bigint - 1",
      {w.scope_id, w.project_id, w.key, w.catalog_state, P(w.version), record, P(now)},
      "workstream " + w.scope_id));
  return AppendCatalogRevision("report_workstream_revisions", "scope_id", w.scope_id, w.version,
                               record, actor, now);
}

Result<std::optional<WorkspaceBinding>> PgTxn::FindWorkspaceBinding(
    const std::string& workspace_instance_id) {
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT record, version FROM"
                                            " report_workspace_bindings WHERE"
                                            " workspace_instance_id = $1") +
                                    Lock(),
                                {workspace_instance_id}));
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<WorkspaceBinding>(r, WorkspaceBindingFromRow));
  return First(std::move(found));
}

Status PgTxn::PutWorkspaceBinding(const WorkspaceBinding& b, int64_t now) {
  return PutAtVersion(
      b.version,
      "INSERT INTO report_workspace_bindings(workspace_instance_id, project_id, state, version,"
      " record, updated_at) VALUES($1, $2, $3, $4, $5, $6)",
      "UPDATE report_workspace_bindings SET project_id = $2, state = $3, version = $4::bigint,"
      " record = $5, updated_at = $6 WHERE workspace_instance_id = $1 AND version = $4::bigint - 1",
      {b.workspace_instance_id, b.project_id, b.state, P(b.version), WorkspaceBindingToRow(b),
       P(now)},
      "workspace " + b.workspace_instance_id);
}

namespace {

Result<std::vector<ReportActivity>> ReadActivities(const Rows& r) {
  std::vector<ReportActivity> out;
  for (int i = 0; i < r.size(); ++i) {
    PC_ASSIGN_OR_RETURN(ReportActivity a, ReportActivityFromRow(r.Text(i, 0), r.Int(i, 1)));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

Result<std::optional<ReportActivity>> PgTxn::FindReportActivity(
    const std::string& source, const std::string& source_event_id) {
  PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT record, cursor FROM report_activities"
                                " WHERE source = $1 AND source_event_id = $2",
                                {source, source_event_id}));
  PC_ASSIGN_OR_RETURN(auto found, ReadActivities(r));
  return First(std::move(found));
}

// The query over a filter's events: `what` selected, by cursor up to its limit unless counting.
Result<Rows> PgTxn::ActivityQuery(const ActivityFilter& f, const char* what, bool count) {
  Params params{f.project_id, P(f.after), P(f.through)};
  std::string sql = std::string("SELECT ") + what +
                    " FROM report_activities WHERE project_id = $1 AND cursor > $2::bigint"
                    " AND cursor <= $3::bigint";
  auto param = [&](std::optional<std::string> v) {
    params.push_back(std::move(v));
    return "$" + std::to_string(params.size());
  };
  if (f.period_start_ms) sql += " AND period_at >= " + param(P(*f.period_start_ms)) + "::bigint";
  if (f.period_end_ms) sql += " AND period_at < " + param(P(*f.period_end_ms)) + "::bigint";
  if (f.without_period_time) sql += " AND period_at IS NULL";
  if (!f.sources.empty()) {
    sql += " AND source IN (";
    for (size_t i = 0; i < f.sources.size(); ++i) sql += (i ? ", " : "") + param(f.sources[i]);
    sql += ")";
  }
  if (!count) sql += " ORDER BY cursor LIMIT " + param(P(int64_t{f.limit})) + "::bigint";
  return Q(sql, params);
}

Result<std::vector<ReportActivity>> PgTxn::ListReportActivities(const ActivityFilter& f) {
  PC_ASSIGN_OR_RETURN(Rows r, ActivityQuery(f, "record, cursor", false));
  return ReadActivities(r);
}

Result<int64_t> PgTxn::CountReportActivities(const ActivityFilter& f) {
  PC_ASSIGN_OR_RETURN(Rows r, ActivityQuery(f, "COUNT(*)", true));
  return r.size() ? r.Int(0, 0) : 0;
}

Result<int64_t> PgTxn::ReportActivityHighWatermark() {
  PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT COALESCE(MAX(last), 0) FROM report_activity_sequence"));
  return r.size() ? r.Int(0, 0) : 0;
}

Status PgTxn::AppendReportActivity(ReportActivity& a) {
  PC_ASSIGN_OR_RETURN(Rows seq, Q("INSERT INTO report_activity_sequence(id, last) VALUES(1, 1)"
                                  " ON CONFLICT(id) DO UPDATE SET"
                                  " last = report_activity_sequence.last + 1 RETURNING last"));
  if (seq.size() != 1) return Internal("the activity sequence issued no cursor");
  a.cursor = seq.Int(0, 0);
  std::optional<int64_t> at = a.PeriodTimeMs();
  return Q("INSERT INTO report_activities(cursor, event_id, project_id, source, source_event_id,"
           " period_at, observed_at, record) VALUES($1, $2, $3, $4, $5, $6, $7, $8)",
           {P(a.cursor), a.event_id, a.project_id, a.source, a.source_event_id,
            at ? std::optional<std::string>(P(*at)) : std::nullopt, P(a.observed_at_ms),
            ReportActivityToRow(a)})
      .status();
}

Result<int64_t> PgTxn::PurgeReportActivities(const std::string& project_id, int64_t before_ms,
                                             int64_t limit) {
  // By the (project_id, observed_at) index, oldest first; LIMIT NULL is none.
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q("DELETE FROM report_activities WHERE cursor IN (SELECT cursor FROM"
                        " report_activities WHERE project_id = $1 AND observed_at < $2::bigint"
                        " ORDER BY observed_at, cursor LIMIT $3::bigint)",
                        {project_id, P(before_ms),
                         limit > 0 ? std::optional<std::string>(P(limit)) : std::nullopt}));
  return r.affected();
}

}  // namespace pc::pg
