// The Handoff Report catalog of SqliteTxn (RFC 0082, schema.cc migration 16): each record's
// current version in report_projects / report_workstreams, every version in their revisions.
#include "store/sqlite/sqlite_txn.h"
#include "store/store_rows.h"

namespace pc::sqlite {
namespace {

template <typename T, typename FromRow>
Result<std::vector<T>> ReadRecords(Stmt& s, FromRow from_row) {
  std::vector<T> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    PC_ASSIGN_OR_RETURN(T t, from_row(s.Text(0), s.Int(1)));
    out.push_back(std::move(t));
  }
  return out;
}

template <typename T, typename FromRow>
Result<std::vector<CatalogRevision<T>>> ReadRevisions(Stmt& s, FromRow from_row) {
  std::vector<CatalogRevision<T>> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    PC_ASSIGN_OR_RETURN(T t, from_row(s.Text(0), s.Int(1)));
    out.push_back({std::move(t), s.Text(2), s.Int(3)});
  }
  return out;
}

template <typename T>
std::optional<T> First(std::vector<T> v) {
  if (v.empty()) return std::nullopt;
  return std::move(v[0]);
}

}  // namespace

Result<std::optional<ReportProject>> SqliteTxn::FindReportProject(const std::string& project_id) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT record, version FROM report_projects WHERE project_id = ?1"));
  s.Bind(1, project_id);
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportProject>(s, ReportProjectFromRow));
  return First(std::move(found));
}

Result<std::optional<ReportProject>> SqliteTxn::FindReportProjectByKey(const std::string& key) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT record, version FROM report_projects WHERE project_key = ?1"));
  s.Bind(1, key);
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportProject>(s, ReportProjectFromRow));
  return First(std::move(found));
}

Result<std::vector<ReportProject>> SqliteTxn::ListReportProjects(const std::string& after,
                                                                 int limit, bool include_archived) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT record, version FROM report_projects"
                                          " WHERE project_id > ?1 AND (?2 OR catalog_state = "
                                          "'included') ORDER BY project_id LIMIT ?3"));
  s.Bind(1, after).Bind(2, int64_t{include_archived}).Bind(3, int64_t{limit});
  return ReadRecords<ReportProject>(s, ReportProjectFromRow);
}

Result<std::vector<CatalogRevision<ReportProject>>> SqliteTxn::ListReportProjectRevisions(
    const std::string& project_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT record, version, actor, effective_at FROM "
                                          "report_project_revisions WHERE project_id = ?1"
                                          " ORDER BY version"));
  s.Bind(1, project_id);
  return ReadRevisions<ReportProject>(s, ReportProjectFromRow);
}

Result<std::optional<ReportWorkstream>> SqliteTxn::FindReportWorkstream(
    const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT record, version FROM report_workstreams WHERE scope_id = ?1"));
  s.Bind(1, scope_id);
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportWorkstream>(s, ReportWorkstreamFromRow));
  return First(std::move(found));
}

Result<std::optional<ReportWorkstream>> SqliteTxn::FindReportWorkstreamByKey(
    const std::string& project_id, const std::string& key) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT record, version FROM report_workstreams"
                                          " WHERE project_id = ?1 AND key = ?2"));
  s.Bind(1, project_id).Bind(2, key);
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<ReportWorkstream>(s, ReportWorkstreamFromRow));
  return First(std::move(found));
}

Result<std::vector<ReportWorkstream>> SqliteTxn::ListReportWorkstreams(
    const std::string& project_id, const std::string& after, int limit, bool include_archived) {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare("SELECT record, version FROM report_workstreams"
                                  " WHERE project_id = ?1 AND scope_id > ?2 AND (?3 OR "
                                  "catalog_state = 'included') ORDER BY scope_id LIMIT ?4"));
  s.Bind(1, project_id).Bind(2, after).Bind(3, int64_t{include_archived});
  s.Bind(4, int64_t{limit});
  return ReadRecords<ReportWorkstream>(s, ReportWorkstreamFromRow);
}

Result<std::vector<CatalogRevision<ReportWorkstream>>> SqliteTxn::ListReportWorkstreamRevisions(
    const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT record, version, actor, effective_at FROM "
                                          "report_workstream_revisions WHERE scope_id = ?1"
                                          " ORDER BY version"));
  s.Bind(1, scope_id);
  return ReadRevisions<ReportWorkstream>(s, ReportWorkstreamFromRow);
}

namespace {

// A record at `version`: version 1 is `insert`ed, a later one `update`s version − 1 (RETURNING a
// row, else Conflict: another write moved it). Both statements take the same parameters, which
// `bind` binds.
template <typename Bind>
Status PutAtVersion(Db& db, int64_t version, const char* insert, const char* update, Bind bind,
                    const std::string& what) {
  PC_ASSIGN_OR_RETURN(Stmt s, db.Prepare(version == 1 ? insert : update));
  bind(s);
  if (version == 1) return s.Run();
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Conflict(what + " moved; version " + std::to_string(version) + " is taken");
  return Status::Ok();
}

// A catalog record's revision: its whole descriptor at `version`, who made it and when.
Status AppendCatalogRevision(Db& db, const char* table, const char* key_column,
                             const std::string& key, int64_t version, const std::string& record,
                             const std::string& actor, int64_t now) {
  PC_ASSIGN_OR_RETURN(Stmt r, db.Prepare(std::string("INSERT INTO ") + table + "(" + key_column +
                                         ", version, record, actor, effective_at)"
                                         " VALUES(?1, ?2, ?3, ?4, ?5)"));
  return r.Bind(1, key).Bind(2, version).Bind(3, record).Bind(4, actor).Bind(5, now).Run();
}

}  // namespace

Status SqliteTxn::PutReportProject(const ReportProject& p, const std::string& actor, int64_t now) {
  const std::string record = ReportProjectToRow(p);
  PC_RETURN_IF_ERROR(PutAtVersion(
      db_, p.version,
      "INSERT INTO report_projects(project_id, project_key, catalog_state, version, record,"
      " updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
      "UPDATE report_projects SET project_key = ?2, catalog_state = ?3, version = ?4, record = ?5,"
      " updated_at = ?6 WHERE project_id = ?1 AND version = ?4 - 1 RETURNING version",
      [&](Stmt& s) {
        s.Bind(1, p.project_id).Bind(2, p.project_key).Bind(3, p.catalog_state);
        s.Bind(4, p.version).Bind(5, record).Bind(6, now);
      },
      "project " + p.project_id));
  return AppendCatalogRevision(db_, "report_project_revisions", "project_id", p.project_id,
                               p.version, record, actor, now);
}

Status SqliteTxn::PutReportWorkstream(const ReportWorkstream& w, const std::string& actor,
                                      int64_t now) {
  const std::string record = ReportWorkstreamToRow(w);
  PC_RETURN_IF_ERROR(PutAtVersion(
      db_, w.version,
      "INSERT INTO report_workstreams(scope_id, project_id, key, catalog_state, version, record,"
      " updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
      "UPDATE report_workstreams SET project_id = ?2, key = ?3, catalog_state = ?4, version = ?5,"
      " record = ?6, updated_at = ?7 WHERE scope_id = ?1 AND version = ?5 - 1 RETURNING version",
      [&](Stmt& s) {
        s.Bind(1, w.scope_id).Bind(2, w.project_id).Bind(3, w.key).Bind(4, w.catalog_state);
        s.Bind(5, w.version).Bind(6, record).Bind(7, now);
      },
      "workstream " + w.scope_id));
  return AppendCatalogRevision(db_, "report_workstream_revisions", "scope_id", w.scope_id,
                               w.version, record, actor, now);
}

Result<std::optional<WorkspaceBinding>> SqliteTxn::FindWorkspaceBinding(
    const std::string& workspace_instance_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT record, version FROM report_workspace_bindings"
                                          " WHERE workspace_instance_id = ?1"));
  s.Bind(1, workspace_instance_id);
  PC_ASSIGN_OR_RETURN(auto found, ReadRecords<WorkspaceBinding>(s, WorkspaceBindingFromRow));
  return First(std::move(found));
}

Status SqliteTxn::PutWorkspaceBinding(const WorkspaceBinding& b, int64_t now) {
  const std::string record = WorkspaceBindingToRow(b);
  return PutAtVersion(
      db_, b.version,
      "INSERT INTO report_workspace_bindings(workspace_instance_id, project_id, state, version,"
      " record, updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
      "UPDATE report_workspace_bindings SET project_id = ?2, state = ?3, version = ?4,"
      " record = ?5, updated_at = ?6 WHERE workspace_instance_id = ?1 AND version = ?4 - 1"
      " RETURNING version",
      [&](Stmt& s) {
        s.Bind(1, b.workspace_instance_id).Bind(2, b.project_id).Bind(3, b.state);
        s.Bind(4, b.version).Bind(5, record).Bind(6, now);
      },
      "workspace " + b.workspace_instance_id);
}

namespace {

Result<std::vector<ReportActivity>> ReadActivities(Stmt& s) {
  std::vector<ReportActivity> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    PC_ASSIGN_OR_RETURN(ReportActivity a, ReportActivityFromRow(s.Text(0), s.Int(1)));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

Result<std::optional<ReportActivity>> SqliteTxn::FindReportActivity(
    const std::string& source, const std::string& source_event_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT record, cursor FROM report_activities"
                                          " WHERE source = ?1 AND source_event_id = ?2"));
  s.Bind(1, source).Bind(2, source_event_id);
  PC_ASSIGN_OR_RETURN(auto found, ReadActivities(s));
  return First(std::move(found));
}

// The statement over a filter's events: `what` selected, by cursor up to its limit unless counting.
Result<Stmt> SqliteTxn::ActivityQuery(const ActivityFilter& f, const char* what, bool count) {
  std::string sql =
      std::string("SELECT ") + what +
      " FROM report_activities WHERE project_id = ?1 AND cursor > ?2 AND cursor <= ?3";
  if (f.period_start_ms) sql += " AND period_at >= ?4";
  if (f.period_end_ms) sql += " AND period_at < ?5";
  if (f.without_period_time) sql += " AND period_at IS NULL";
  if (!f.sources.empty()) {
    sql += " AND source IN (";
    for (size_t i = 0; i < f.sources.size(); ++i) sql += (i ? ", ?" : "?") + std::to_string(7 + i);
    sql += ")";
  }
  if (!count) sql += " ORDER BY cursor LIMIT ?6";
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(sql));
  s.Bind(1, f.project_id).Bind(2, f.after).Bind(3, f.through);
  if (!count) s.Bind(6, int64_t{f.limit});
  if (f.period_start_ms) s.Bind(4, *f.period_start_ms);
  if (f.period_end_ms) s.Bind(5, *f.period_end_ms);
  for (size_t i = 0; i < f.sources.size(); ++i) s.Bind(static_cast<int>(7 + i), f.sources[i]);
  return s;
}

Result<std::vector<ReportActivity>> SqliteTxn::ListReportActivities(const ActivityFilter& f) {
  PC_ASSIGN_OR_RETURN(Stmt s, ActivityQuery(f, "record, cursor", false));
  return ReadActivities(s);
}

Result<int64_t> SqliteTxn::CountReportActivities(const ActivityFilter& f) {
  PC_ASSIGN_OR_RETURN(Stmt s, ActivityQuery(f, "COUNT(*)", true));
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<int64_t> SqliteTxn::ReportActivityHighWatermark() {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare("SELECT COALESCE(MAX(last), 0) FROM report_activity_sequence"));
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Status SqliteTxn::AppendReportActivity(ReportActivity& a) {
  {  // SQLite makes a RETURNING statement's change at its first step
    PC_ASSIGN_OR_RETURN(Stmt seq, db_.Prepare("INSERT INTO report_activity_sequence(id, last)"
                                              " VALUES(1, 1) ON CONFLICT(id) DO UPDATE SET"
                                              " last = last + 1 RETURNING last"));
    PC_ASSIGN_OR_RETURN(bool row, seq.Step());
    if (!row) return Internal("the activity sequence issued no cursor");
    a.cursor = seq.Int(0);
  }
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO report_activities(cursor, event_id,"
                                          " project_id, source, source_event_id, period_at,"
                                          " observed_at, record) VALUES(?1, ?2, ?3, ?4, ?5, ?6,"
                                          " ?7, ?8)"));
  s.Bind(1, a.cursor).Bind(2, a.event_id).Bind(3, a.project_id).Bind(4, a.source);
  s.Bind(5, a.source_event_id).Bind(7, a.observed_at_ms).Bind(8, ReportActivityToRow(a));
  if (std::optional<int64_t> at = a.PeriodTimeMs())
    s.Bind(6, *at);
  else
    s.BindNull(6);
  return s.Run();
}

Result<int64_t> SqliteTxn::PurgeReportActivities(const std::string& project_id, int64_t before_ms,
                                                 int64_t limit) {
  // By the (project_id, observed_at) index, oldest first; LIMIT -1 is none.
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("DELETE FROM report_activities WHERE cursor IN (SELECT cursor FROM"
                          " report_activities WHERE project_id = ?1 AND observed_at < ?2"
                          " ORDER BY observed_at, cursor LIMIT ?3)"));
  PC_RETURN_IF_ERROR(
      s.Bind(1, project_id).Bind(2, before_ms).Bind(3, limit > 0 ? limit : int64_t{-1}).Run());
  return db_.changes();
}

}  // namespace pc::sqlite
