#include "store/table_catalog.h"

namespace pc {

const std::vector<StoreTable>& StoreTables() {
  using C = StoreColumn;
  static const std::vector<StoreTable> kTables = {
      {"scopes",
       "scope_id, key, created_at",
       "scope_id, key, created_at",
       {C::kText, C::kText, C::kInt},
       "rowid",
       false,
       "created_at, scope_id",
       "scope_id = {scope}"},
      {"artifacts",
       "artifact_id, scope_id, family, is_default, head_revision, created_at, vector_profile, "
       "vector_missing",
       "artifact_id, scope_id, family, is_default, head_revision, created_at, vector_profile, "
       "vector_missing",
       {C::kText, C::kText, C::kText, C::kBool, C::kInt, C::kInt, C::kText, C::kInt},
       "rowid",
       false,
       "created_at, artifact_id",
       "scope_id = {scope}"},
      {"revisions",
       "artifact_id, revision, actor, reason, lineage, created_at",
       "artifact_id, revision, actor, reason, lineage, created_at",
       {C::kText, C::kInt, C::kText, C::kText, C::kText, C::kInt},
       "artifact_id, revision",
       false,
       "artifact_id, revision",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      {"revision_changes",
       "artifact_id, revision, seq, op, entry_id, from_version_id, to_version_id",
       "artifact_id, revision, seq, op, entry_id, from_version_id, to_version_id",
       {C::kText, C::kInt, C::kInt, C::kText, C::kText, C::kText, C::kText},
       "artifact_id, revision, seq",
       false,
       "artifact_id, revision, seq",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      // The full-text document number is the entry's rowid: both number entries in creation order,
      // which is the order a search of common words takes (newest first).
      {"entries",
       "entry_id, artifact_id, created_revision, rowid",
       "entry_id, artifact_id, created_revision, doc",
       {C::kText, C::kText, C::kInt, C::kInt},
       "rowid",
       true,
       "doc",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      {"entry_versions",
       "entry_version_id, entry_id, version, previous_version_id, kind, text, content_hash, "
       "source_refs,"
       " created_by_revision, reason, created_at, valid_until",
       "entry_version_id, entry_id, version, previous_version_id, kind, text, content_hash, "
       "source_refs,"
       " created_by_revision, reason, created_at, valid_until",
       {C::kText, C::kText, C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText, C::kInt,
        C::kText, C::kInt, C::kInt},
       "rowid",
       false,
       "created_at, entry_version_id",
       "entry_id IN (SELECT entry_id FROM entries WHERE artifact_id IN (SELECT artifact_id FROM "
       "artifacts WHERE scope_id = {scope}))"},
      {"manifest",
       "artifact_id, entry_id, entry_version_id, active, from_revision, to_revision",
       "artifact_id, entry_id, entry_version_id, active, from_revision, to_revision",
       {C::kText, C::kText, C::kText, C::kBool, C::kInt, C::kInt},
       "artifact_id, entry_id, from_revision",
       false,
       "artifact_id, entry_id, from_revision",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      // Vectors: float32 blobs, byte for byte.
      {"entry_vectors",
       "entry_id, artifact_id, entry_version_id, active, profile, vector",
       "entry_id, artifact_id, entry_version_id, active, profile, vector",
       {C::kText, C::kText, C::kText, C::kBool, C::kText, C::kBlob},
       "entry_rowid",
       false,
       "entry_id",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})",
       "entry_rowid",
       "(SELECT rowid FROM entries WHERE entry_id = ?1 UNION ALL SELECT 'no such entry' LIMIT 1)"},
      {"sources",
       "scope_id, position, source_id, kind, purpose, content, metadata, idempotency_key, "
       "created_at",
       "scope_id, position, source_id, kind, purpose, content, metadata, idempotency_key, "
       "created_at",
       {C::kText, C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText, C::kText, C::kInt},
       "scope_id, position",
       false,
       "scope_id, position",
       "scope_id = {scope}"},
      {"cursors",
       "scope_id, artifact_id, consumer, position, updated_at",
       "scope_id, artifact_id, consumer, position, updated_at",
       {C::kText, C::kText, C::kText, C::kInt, C::kInt},
       "scope_id, artifact_id, consumer",
       false,
       "scope_id, artifact_id, consumer",
       "scope_id = {scope}"},
      {"handoff_contents",
       "artifact_id, revision, objective, disposition",
       "artifact_id, revision, objective, disposition",
       {C::kText, C::kInt, C::kText, C::kText},
       "artifact_id, revision",
       false,
       "artifact_id, revision",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      {"handoff_claims",
       "artifact_id, revision, claim, seq, text",
       "artifact_id, revision, claim, seq, text",
       {C::kText, C::kInt, C::kText, C::kInt, C::kText},
       "artifact_id, revision, claim, seq",
       false,
       "artifact_id, revision, claim, seq",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      {"handoff_citations",
       "artifact_id, revision, claim, seq, cseq, kind, name, ref_id, ref_revision, entry_id, "
       "entry_version_id",
       "artifact_id, revision, claim, seq, cseq, kind, name, ref_id, ref_revision, entry_id, "
       "entry_version_id",
       {C::kText, C::kInt, C::kText, C::kInt, C::kInt, C::kText, C::kText, C::kText, C::kInt,
        C::kText, C::kText},
       "artifact_id, revision, claim, seq, cseq",
       false,
       "artifact_id, revision, claim, seq, cseq",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      {"candidate_heads",
       "scope_id, candidate_id, family, version, status, result, decision_reason, created_at, "
       "updated_at",
       "scope_id, candidate_id, family, version, status, result, decision_reason, created_at, "
       "updated_at",
       {C::kText, C::kText, C::kText, C::kInt, C::kText, C::kText, C::kText, C::kInt, C::kInt},
       "scope_id, candidate_id",
       false,
       "scope_id, candidate_id",
       "scope_id = {scope}"},
      {"candidate_versions",
       "scope_id, candidate_id, version, proposal, evidence, target, reason, actor, created_at",
       "scope_id, candidate_id, version, proposal, evidence, target, reason, actor, created_at",
       {C::kText, C::kText, C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText, C::kInt},
       "scope_id, candidate_id, version",
       false,
       "scope_id, candidate_id, version",
       "scope_id = {scope}"},
      {"experience_contents",
       "artifact_id, revision, situation, action, outcome, lesson, evidence",
       "artifact_id, revision, situation, action, outcome, lesson, evidence",
       {C::kText, C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText},
       "artifact_id, revision",
       false,
       "artifact_id, revision",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      {"skill_contents",
       "artifact_id, revision, name, description, instructions, validation, evidence",
       "artifact_id, revision, name, description, instructions, validation, evidence",
       {C::kText, C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText},
       "artifact_id, revision",
       false,
       "artifact_id, revision",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})",
       nullptr,
       nullptr,
       2},
      {"report_projects",
       "project_id, project_key, catalog_state, version, record, updated_at",
       "project_id, project_key, catalog_state, version, record, updated_at",
       {C::kText, C::kText, C::kText, C::kInt, C::kText, C::kInt},
       "project_id",
       false,
       "project_id",
       "1 = 0",  // the catalog is the server's: no scope owns a Project
       nullptr,
       nullptr,
       3},
      {"report_project_revisions",
       "project_id, version, record, actor, effective_at",
       "project_id, version, record, actor, effective_at",
       {C::kText, C::kInt, C::kText, C::kText, C::kInt},
       "project_id, version",
       false,
       "project_id, version",
       "1 = 0",
       nullptr,
       nullptr,
       3},
      {"report_workstreams",
       "scope_id, project_id, key, catalog_state, version, record, updated_at",
       "scope_id, project_id, key, catalog_state, version, record, updated_at",
       {C::kText, C::kText, C::kText, C::kText, C::kInt, C::kText, C::kInt},
       "scope_id",
       false,
       "scope_id",
       "1 = 0",  // catalog membership, exported with the whole store only
       nullptr,
       nullptr,
       3},
      {"report_workstream_revisions",
       "scope_id, version, record, actor, effective_at",
       "scope_id, version, record, actor, effective_at",
       {C::kText, C::kInt, C::kText, C::kText, C::kInt},
       "scope_id, version",
       false,
       "scope_id, version",
       "1 = 0",
       nullptr,
       nullptr,
       3},
      {"report_workspace_bindings",
       "workspace_instance_id, project_id, state, version, record, updated_at",
       "workspace_instance_id, project_id, state, version, record, updated_at",
       {C::kText, C::kText, C::kText, C::kInt, C::kText, C::kInt},
       "workspace_instance_id",
       false,
       "workspace_instance_id",
       "1 = 0",  // a checkout's Project: the catalog's, whole-store only
       nullptr,
       nullptr,
       4},
      {"report_activity_sequence",
       "id, last",
       "id, last",
       {C::kInt, C::kInt},
       "id",
       false,
       "id",
       "1 = 0",
       nullptr,
       nullptr,
       4},
      {"report_activities",
       "cursor, event_id, project_id, source, source_event_id, period_at, observed_at, record",
       "cursor, event_id, project_id, source, source_event_id, period_at, observed_at, record",
       {C::kInt, C::kText, C::kText, C::kText, C::kText, C::kInt, C::kInt, C::kText},
       "cursor",
       false,
       "cursor",
       "1 = 0",  // a Project's activity log, as the catalog it hangs from
       nullptr,
       nullptr,
       4},
      {"scope_settings",
       "scope_id, name, value, updated_at",
       "scope_id, name, value, updated_at",
       {C::kText, C::kText, C::kText, C::kInt},
       "scope_id, name",
       false,
       "scope_id, name",
       "scope_id = {scope}"},
      {"graph_edges",
       "artifact_id, revision, seq, entry_id, entry_version_id, subject, relation, object, "
       "subject_key, object_key,"
       " evidence",
       "artifact_id, revision, seq, entry_id, entry_version_id, subject, relation, object, "
       "subject_key, object_key,"
       " evidence",
       {C::kText, C::kInt, C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText, C::kText,
        C::kText, C::kText},
       "artifact_id, revision, seq",
       false,
       "artifact_id, revision, seq",
       "artifact_id IN (SELECT artifact_id FROM artifacts WHERE scope_id = {scope})"},
      {"last_flush",
       "scope_id, at_ms, record",
       "scope_id, at_ms, record",
       {C::kText, C::kInt, C::kText},
       "scope_id",
       false,
       "scope_id",
       "scope_id = {scope}"},
      {"model_usage_daily",
       "scope_id, usage_date, purpose, operation, requests, input_tokens, output_tokens, "
       "input_complete, output_complete",
       "scope_id, usage_date, purpose, operation, requests, input_tokens, output_tokens, "
       "input_complete, output_complete",
       {C::kText, C::kText, C::kText, C::kText, C::kInt, C::kInt, C::kInt, C::kBool, C::kBool},
       "scope_id, usage_date, purpose, operation",
       false,
       "scope_id, usage_date, purpose, operation",
       "scope_id = {scope}"},
      {"recall_token_daily",
       "scope_id, usage_date, estimator_id, estimator_version, preparations, ready_preparations,"
       " comparable_preparations, baseline_tokens, recalled_tokens",
       "scope_id, usage_date, estimator_id, estimator_version, preparations, ready_preparations,"
       " comparable_preparations, baseline_tokens, recalled_tokens",
       {C::kText, C::kText, C::kText, C::kText, C::kInt, C::kInt, C::kInt, C::kInt, C::kInt},
       "scope_id, usage_date, estimator_id, estimator_version",
       false,
       "scope_id, usage_date, estimator_id, estimator_version",
       "scope_id = {scope}"},
      // Token rows keep their numbers (a revoked token's row stays, so audit rows keep meaning).
      {"api_tokens",
       "token_rowid, name, role, scope_patterns, secret_hash, created_by, created_at_ms, "
       "expires_at_ms, revoked_at_ms",
       "token_id, name, role, scope_patterns, secret_hash, created_by, created_at_ms, "
       "expires_at_ms, revoked_at_ms",
       {C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText, C::kInt, C::kInt, C::kInt},
       "token_rowid",
       true,
       "token_id",
       "1 = 0"},
      {"audit_log",
       "seq, at_ms, actor, operation, scope_id, targets, result, request_id",
       "seq, at_ms, actor, operation, scope_id, targets, result, request_id",
       {C::kInt, C::kInt, C::kText, C::kText, C::kText, C::kText, C::kText, C::kText},
       "seq",
       true,
       "seq",
       "scope_id = {scope}"},
  };
  return kTables;
}

std::vector<std::string> SplitColumns(const char* list) {
  std::vector<std::string> out;
  std::string name;
  auto push = [&] {
    const size_t a = name.find_first_not_of(" \n");
    const size_t z = name.find_last_not_of(" \n");
    out.push_back(a == std::string::npos ? "" : name.substr(a, z - a + 1));
    name.clear();
  };
  for (const char* p = list; *p; ++p) {
    if (*p == ',')
      push();
    else
      name += *p;
  }
  push();
  return out;
}

const char* ColumnTypeName(StoreColumn type) {
  switch (type) {
    case StoreColumn::kText:
      return "text";
    case StoreColumn::kInt:
      return "int";
    case StoreColumn::kBool:
      return "bool";
    case StoreColumn::kBlob:
      return "bytes";
  }
  return "text";
}

}  // namespace pc
