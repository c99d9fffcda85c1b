#include "verify/verify.h"

#include <cstdint>
#include <map>

#include "model/types.h"
#include "verify/checks.h"

namespace pc::verify {
namespace {

struct ScopeRow {
  std::string scope_id, key;
};

Result<std::vector<ScopeRow>> LoadScopes(VerifySource& src, const std::string& only) {
  PC_ASSIGN_OR_RETURN(
      VerifyRows rows,
      only.empty() ? src.Query("SELECT scope_id, key FROM scopes ORDER BY scope_id")
                   : src.Query("SELECT scope_id, key FROM scopes WHERE key = $1 OR scope_id = $1"
                               " ORDER BY scope_id",
                               {only}));
  if (!only.empty() && rows.size() == 0)
    return NotFound("no scope " + only + " in this store (a scope exists once written to)");
  std::vector<ScopeRow> out;
  for (size_t i = 0; i < rows.size(); ++i) out.push_back({rows.Text(i, 0), rows.Text(i, 1)});
  return out;
}

Result<std::vector<ArtifactRow>> LoadArtifacts(VerifySource& src, const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(
      VerifyRows rows,
      src.Query("SELECT artifact_id, family, CASE WHEN is_default THEN 1 ELSE 0 END,"
                " head_revision, coalesce(vector_profile, ''), vector_missing FROM artifacts"
                " WHERE scope_id = $1 ORDER BY artifact_id",
                {scope_id}));
  std::vector<ArtifactRow> out;
  for (size_t i = 0; i < rows.size(); ++i)
    out.push_back({rows.Text(i, 0), rows.Text(i, 1), rows.Int(i, 2) != 0, rows.Int(i, 3),
                   rows.Text(i, 4), rows.Int(i, 5)});
  return out;
}

Result<std::vector<RevisionRow>> LoadRevisions(VerifySource& src, const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(VerifyRows rows, src.Query("SELECT revision, created_at FROM revisions"
                                                 " WHERE artifact_id = $1 ORDER BY revision",
                                                 {artifact_id}));
  std::vector<RevisionRow> out;
  for (size_t i = 0; i < rows.size(); ++i) out.push_back({rows.Int(i, 0), rows.Int(i, 1)});
  return out;
}

// The oldest acknowledged write the audit log still holds: the retention deletes the oldest rows
// first, so writes committed before it may have lost their rows legitimately.
Result<int64_t> AuditHorizon(VerifySource& src, Report& report) {
  PC_ASSIGN_OR_RETURN(VerifyRows rows,
                      src.Query("SELECT coalesce(min(at_ms), -1), count(*) FROM audit_log"
                                " WHERE result = 'ok'"));
  report.audit_rows = rows.Int(0, 1);
  const int64_t oldest = rows.Int(0, 0);
  return oldest < 0 ? INT64_MAX : oldest;
}

Status VerifyScope(VerifySource& src, Sink& sink, const ScopeRow& scope, const Options& options,
                   int64_t horizon_ms) {
  Report& report = sink.report();
  ++report.scopes;
  PC_ASSIGN_OR_RETURN(std::vector<ArtifactRow> artifacts, LoadArtifacts(src, scope.scope_id));
  std::map<std::string, std::vector<RevisionRow>> revisions;
  for (const ArtifactRow& a : artifacts) {
    ++report.artifacts;
    const Target t{scope.scope_id, scope.key, a.artifact_id};
    PC_ASSIGN_OR_RETURN(revisions[a.artifact_id], LoadRevisions(src, a.artifact_id));
    report.revisions += static_cast<int64_t>(revisions[a.artifact_id].size());
    PC_RETURN_IF_ERROR(CheckChain(src, sink, t, a, revisions[a.artifact_id]));
    if (a.family == kMemoryFamily)
      PC_RETURN_IF_ERROR(CheckMemory(src, sink, t, a, options.embedder_configured));
  }
  return CheckLogs(src, sink, Target{scope.scope_id, scope.key, ""}, artifacts, revisions,
                   horizon_ms);
}

}  // namespace

int64_t Report::Count(Severity severity) const {
  int64_t n = 0;
  for (const Finding& f : findings) n += f.severity == severity ? 1 : 0;
  return n;
}

Result<Report> Verify(VerifySource& source, const Options& options) {
  Report report;
  report.store = source.Describe();
  Sink sink(report);
  PC_ASSIGN_OR_RETURN(std::vector<ScopeRow> scopes, LoadScopes(source, options.scope));
  PC_ASSIGN_OR_RETURN(const int64_t horizon_ms, AuditHorizon(source, report));
  for (const ScopeRow& scope : scopes)
    PC_RETURN_IF_ERROR(VerifyScope(source, sink, scope, options, horizon_ms));
  if (options.scope.empty()) {
    PC_ASSIGN_OR_RETURN(std::vector<std::string> orphans, source.OrphanTextDocs());
    for (const std::string& doc : orphans)
      sink.Add(Target{}, "fts_row_orphan", std::nullopt, "", "",
               "full-text document " + doc + " belongs to no entry");
  }
  return report;
}

void Sink::Add(const Target& t, std::string kind, std::optional<int64_t> revision,
               std::string entry_id, std::string version_id, std::string detail) {
  report_.findings.push_back(Finding{std::move(kind), Severity::kViolation, t.scope_id, t.scope_key,
                                     t.artifact_id, revision, std::move(entry_id),
                                     std::move(version_id), std::move(detail)});
}

void Sink::Warn(const Target& t, std::string kind, std::string entry_id, std::string detail) {
  report_.findings.push_back(Finding{std::move(kind), Severity::kWarning, t.scope_id, t.scope_key,
                                     t.artifact_id, std::nullopt, std::move(entry_id), "",
                                     std::move(detail)});
}

}  // namespace pc::verify
