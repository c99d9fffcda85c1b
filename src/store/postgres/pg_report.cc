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

Status PgTxn::PutReportProject(const ReportProject& p, const std::string& actor, int64_t now) {
  const std::string record = ReportProjectToRow(p);
  if (p.version == 1) {
    PC_RETURN_IF_ERROR(Q("INSERT INTO report_projects(project_id, project_key, catalog_state,"
                         " version, record, updated_at) VALUES($1, $2, $3, 1, $4, $5)",
                         {p.project_id, p.project_key, p.catalog_state, record, P(now)})
                           .status());
  } else {
    PC_ASSIGN_OR_RETURN(
        Rows r, Q("UPDATE report_projects SET project_key = $2, catalog_state = $3,"
                  " version = $4::bigint, record = $5, updated_at = $6"
                  " WHERE project_id = $1 AND version = $4::bigint - 1",
                  {p.project_id, p.project_key, p.catalog_state, P(p.version), record, P(now)}));
    if (r.affected() != 1)
      return Conflict("project " + p.project_id + " moved; version " + std::to_string(p.version) +
                      " is taken");
  }
  return Q("INSERT INTO report_project_revisions(project_id, version, record, actor,"
           " effective_at) VALUES($1, $2, $3, $4, $5)",
           {p.project_id, P(p.version), record, actor, P(now)})
      .status();
}

Status PgTxn::PutReportWorkstream(const ReportWorkstream& w, const std::string& actor,
                                  int64_t now) {
  const std::string record = ReportWorkstreamToRow(w);
  if (w.version == 1) {
    PC_RETURN_IF_ERROR(Q("INSERT INTO report_workstreams(scope_id, project_id, key,"
                         " catalog_state, version, record, updated_at)"
                         " VALUES($1, $2, $3, $4, 1, $5, $6)",
                         {w.scope_id, w.project_id, w.key, w.catalog_state, record, P(now)})
                           .status());
  } else {
    PC_ASSIGN_OR_RETURN(Rows r,
                        Q("UPDATE report_workstreams SET key = $2, catalog_state = $3,"
                          " version = $4::bigint, record = $5, updated_at = $6"
                          " WHERE scope_id = $1 AND version = $4::bigint - 1",
                          {w.scope_id, w.key, w.catalog_state, P(w.version), record, P(now)}));
    if (r.affected() != 1)
      return Conflict("workstream " + w.scope_id + " moved; version " + std::to_string(w.version) +
                      " is taken");
  }
  return Q("INSERT INTO report_workstream_revisions(scope_id, version, record, actor,"
           " effective_at) VALUES($1, $2, $3, $4, $5)",
           {w.scope_id, P(w.version), record, actor, P(now)})
      .status();
}

}  // namespace pc::pg
