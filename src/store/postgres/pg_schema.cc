#include "store/postgres/pg_schema.h"

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace pc::pg {
namespace {

// The advisory lock every migrating server takes ("pcschema" as a number).
constexpr const char* kMigrationLock = "7062736368656d61";

// Append only: a shipped migration is never edited; a change is a new migration. Times are Unix
// milliseconds (bigint), as in the SQLite store, so both stores hold the same values.
const std::vector<const char*>& Migrations() {
  static const std::vector<const char*> kMigrations = {
      // 1: scopes, versioned artifacts, revisions, entries, immutable versions, interval manifest
      // (SQLite's migration 1, with the vector columns of its migration 2).
      R"sql(
CREATE TABLE scopes(
  scope_id text PRIMARY KEY,
  key text NOT NULL UNIQUE,
  created_at bigint NOT NULL);
CREATE TABLE artifacts(
  artifact_id text PRIMARY KEY,
  scope_id text NOT NULL REFERENCES scopes(scope_id),
  family text NOT NULL,
  is_default boolean NOT NULL,
  head_revision bigint NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  vector_profile text,
  vector_missing bigint NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX artifacts_default ON artifacts(scope_id, family) WHERE is_default;
CREATE TABLE revisions(
  artifact_id text NOT NULL REFERENCES artifacts(artifact_id),
  revision bigint NOT NULL,
  actor text NOT NULL,
  reason text NOT NULL,
  lineage text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY(artifact_id, revision));
CREATE TABLE revision_changes(
  artifact_id text NOT NULL,
  revision bigint NOT NULL,
  seq integer NOT NULL,
  op text NOT NULL,
  entry_id text NOT NULL,
  from_version_id text,
  to_version_id text NOT NULL,
  PRIMARY KEY(artifact_id, revision, seq));
CREATE TABLE entries(
  entry_id text PRIMARY KEY,
  artifact_id text NOT NULL REFERENCES artifacts(artifact_id),
  created_revision bigint NOT NULL);
CREATE TABLE entry_versions(
  entry_version_id text PRIMARY KEY,
  entry_id text NOT NULL REFERENCES entries(entry_id),
  version bigint NOT NULL,
  previous_version_id text,
  kind text NOT NULL,
  text text NOT NULL,
  content_hash text NOT NULL,
  source_refs text NOT NULL,
  created_by_revision bigint NOT NULL,
  reason text NOT NULL,
  created_at bigint NOT NULL,
  UNIQUE(entry_id, version));
CREATE INDEX entry_versions_hash ON entry_versions(content_hash);
-- The manifest as version intervals: entry_id is at entry_version_id (active or not) for
-- revisions [from_revision, to_revision); to_revision NULL means "still so at the head".
CREATE TABLE manifest(
  artifact_id text NOT NULL,
  entry_id text NOT NULL,
  entry_version_id text NOT NULL,
  active boolean NOT NULL,
  from_revision bigint NOT NULL,
  to_revision bigint,
  PRIMARY KEY(artifact_id, entry_id, from_revision));
CREATE UNIQUE INDEX manifest_head ON manifest(artifact_id, entry_id) WHERE to_revision IS NULL;
-- The vector projection of each head entry; vector NULL = missing (a reindex fills it).
CREATE TABLE entry_vectors(
  entry_id text PRIMARY KEY REFERENCES entries(entry_id),
  artifact_id text NOT NULL,
  entry_version_id text NOT NULL,
  active boolean NOT NULL,
  profile text,
  vector bytea);
CREATE INDEX entry_vectors_artifact ON entry_vectors(artifact_id, entry_id);
)sql",
      // 2: the source logs and extraction cursors, handoffs (RFC 0048's cited structure only: this
      // store never held SQLite's older free-text handoffs), scoped statistics (RFC 0072), API
      // tokens and the audit log (SQLite's migrations 3, 6, 7 and 8). Full text comes with the
      // search migration.
      R"sql(
CREATE TABLE sources(
  scope_id text NOT NULL REFERENCES scopes(scope_id),
  position bigint NOT NULL,
  source_id text NOT NULL UNIQUE,
  kind text NOT NULL,
  purpose text NOT NULL,
  content text NOT NULL,
  metadata text NOT NULL,
  idempotency_key text,
  created_at bigint NOT NULL,
  PRIMARY KEY(scope_id, position));
CREATE UNIQUE INDEX sources_idempotency ON sources(scope_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE TABLE cursors(
  scope_id text NOT NULL,
  artifact_id text NOT NULL,
  consumer text NOT NULL,
  position bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY(scope_id, artifact_id, consumer));
CREATE TABLE handoff_contents(
  artifact_id text NOT NULL REFERENCES artifacts(artifact_id),
  revision bigint NOT NULL,
  objective text NOT NULL,
  disposition text NOT NULL,
  PRIMARY KEY(artifact_id, revision));
CREATE TABLE handoff_claims(
  artifact_id text NOT NULL,
  revision bigint NOT NULL,
  claim text NOT NULL,
  seq integer NOT NULL,
  text text NOT NULL,
  PRIMARY KEY(artifact_id, revision, claim, seq));
CREATE TABLE handoff_citations(
  artifact_id text NOT NULL,
  revision bigint NOT NULL,
  claim text NOT NULL,
  seq integer NOT NULL,
  cseq integer NOT NULL,
  kind text NOT NULL,
  name text NOT NULL,
  ref_id text NOT NULL,
  ref_revision bigint NOT NULL,
  entry_id text NOT NULL,
  entry_version_id text NOT NULL,
  PRIMARY KEY(artifact_id, revision, claim, seq, cseq));
CREATE TABLE model_usage_daily(
  scope_id text NOT NULL,
  usage_date text NOT NULL,
  purpose text NOT NULL,
  operation text NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  input_complete boolean NOT NULL,
  output_complete boolean NOT NULL,
  PRIMARY KEY(scope_id, usage_date, purpose, operation));
CREATE TABLE recall_token_daily(
  scope_id text NOT NULL,
  usage_date text NOT NULL,
  estimator_id text NOT NULL,
  estimator_version text NOT NULL,
  preparations bigint NOT NULL,
  ready_preparations bigint NOT NULL,
  comparable_preparations bigint NOT NULL,
  baseline_tokens bigint NOT NULL,
  recalled_tokens bigint NOT NULL,
  PRIMARY KEY(scope_id, usage_date, estimator_id, estimator_version));
CREATE TABLE api_tokens(
  token_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  role text NOT NULL,
  scope_patterns text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  created_by text NOT NULL,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint,
  revoked_at_ms bigint);
CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens(name) WHERE revoked_at_ms IS NULL;
-- seq comes from a sequence: it grows, but with several servers committing at once a row may
-- become visible after a higher one; readers page by seq (docs/security.md).
CREATE TABLE audit_log(
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at_ms bigint NOT NULL,
  actor text NOT NULL,
  operation text NOT NULL,
  scope_id text NOT NULL,
  targets text NOT NULL,
  result text NOT NULL,
  request_id text NOT NULL);
CREATE INDEX audit_log_scope ON audit_log(scope_id, seq);
)sql",
      // 3: full text with PowerContext's own tokenizer (pg_text.cc): each index's documents
      // (a memory's head entries, or a scope's source log), their terms' positions, and each
      // index's statistics for BM25; entries numbered in creation order (the newest-first order
      // of a search of common words); and the epochs that tell servers something changed
      // (the tokens' one is Store::TokensStamp).
      R"sql(
ALTER TABLE entries ADD COLUMN doc bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX entries_doc ON entries(doc);
CREATE TABLE text_docs(
  kind smallint NOT NULL,
  owner text NOT NULL,
  doc bigint NOT NULL,
  tokens bigint NOT NULL,
  retired boolean NOT NULL,
  entry_version_id text,
  PRIMARY KEY(kind, owner, doc));
CREATE TABLE text_postings(
  kind smallint NOT NULL,
  owner text NOT NULL,
  term text NOT NULL,
  doc bigint NOT NULL,
  tf integer NOT NULL,
  positions integer[] NOT NULL,
  PRIMARY KEY(kind, owner, term, doc));
CREATE INDEX text_postings_doc ON text_postings(kind, owner, doc);
CREATE TABLE text_stats(
  kind smallint NOT NULL,
  owner text NOT NULL,
  docs bigint NOT NULL,
  tokens bigint NOT NULL,
  retired bigint NOT NULL,
  PRIMARY KEY(kind, owner));
CREATE TABLE store_epochs(
  name text PRIMARY KEY,
  value bigint NOT NULL);
INSERT INTO store_epochs(name, value) VALUES('tokens', 0);
-- Ids compare byte for byte (as in SQLite) whatever the database's collation: the pages that
-- walk ids in order have indexes in that order.
CREATE INDEX manifest_head_c ON manifest(artifact_id, entry_id COLLATE "C") WHERE to_revision IS NULL;
CREATE INDEX scopes_id_c ON scopes(scope_id COLLATE "C");
CREATE INDEX entry_vectors_c ON entry_vectors(artifact_id, entry_id COLLATE "C");
)sql",
      // 4: review (RFC 0050; SQLite's migration 9): candidate heads and immutable versions, and
      // Experience revisions (one artifact per experience, its revision rows in `revisions`).
      R"sql(
CREATE TABLE candidate_heads(
  scope_id text NOT NULL REFERENCES scopes(scope_id),
  candidate_id text NOT NULL,
  family text NOT NULL,
  version bigint NOT NULL,
  status text NOT NULL,
  result text,
  decision_reason text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY(scope_id, candidate_id));
CREATE INDEX candidate_heads_inbox ON candidate_heads(scope_id, status, candidate_id COLLATE "C");
CREATE TABLE candidate_versions(
  scope_id text NOT NULL,
  candidate_id text NOT NULL,
  version bigint NOT NULL,
  proposal text NOT NULL,
  evidence text NOT NULL,
  target text,
  reason text,
  actor text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY(scope_id, candidate_id, version));
CREATE TABLE experience_contents(
  artifact_id text NOT NULL REFERENCES artifacts(artifact_id),
  revision bigint NOT NULL,
  situation text NOT NULL,
  action text NOT NULL,
  outcome text NOT NULL,
  lesson text NOT NULL,
  evidence text NOT NULL,
  PRIMARY KEY(artifact_id, revision));
CREATE INDEX artifacts_scope_family ON artifacts(scope_id, family, created_at);
-- A document's postings by its number first: with (kind, owner, doc) a planner without statistics
-- (a young database, before autovacuum's first ANALYZE) read a term's postings through this index,
-- filtering every posting of the index: 20-30 ms a statement instead of well under one. Led by
-- doc it serves only the deletes of one document, and the primary key serves every term lookup.
DROP INDEX text_postings_doc;
CREATE INDEX text_postings_doc ON text_postings(doc, kind, owner);
CREATE TABLE scope_settings(
  scope_id text NOT NULL REFERENCES scopes(scope_id),
  name text NOT NULL,
  value text NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY(scope_id, name));
)sql",
      // 5: the graph projection (docs/graph.md), as in the SQLite store's migration 10.
      R"sql(
CREATE TABLE graph_edges(
  artifact_id text NOT NULL REFERENCES artifacts(artifact_id),
  revision bigint NOT NULL,
  seq bigint NOT NULL,
  entry_id text NOT NULL,
  entry_version_id text NOT NULL,
  subject text NOT NULL,
  relation text NOT NULL,
  object text NOT NULL,
  subject_key text NOT NULL,
  object_key text NOT NULL,
  evidence text NOT NULL,
  PRIMARY KEY(artifact_id, revision, seq));
)sql",
      // 6: the last flush of each scope (service/flush/flush_record.h), as in the SQLite store's
      // migration 11.
      R"sql(
CREATE TABLE last_flush(
  scope_id text PRIMARY KEY REFERENCES scopes(scope_id),
  at_ms bigint NOT NULL,
  record text NOT NULL);
)sql",
      // 7: refused requests' audit rows, for the retention's cap (SQLite's migration 12).
      R"sql(
CREATE INDEX audit_log_denied ON audit_log(seq) WHERE result IN ('denied', 'dropped');
)sql",
      // 8: a scope's sources of one kind in log order (SQLite's migration 13).
      R"sql(
CREATE INDEX sources_kind ON sources(scope_id, kind, position);
)sql",
      // 9: expiry (docs/expiry.md; SQLite's migration 14).
      R"sql(
ALTER TABLE entry_versions ADD COLUMN valid_until bigint;
CREATE INDEX entry_versions_valid_until ON entry_versions(valid_until)
  WHERE valid_until IS NOT NULL;
)sql",
      // 10: managed Skills (docs/skills.md; SQLite's migration 15).
      R"sql(
CREATE TABLE skill_contents(
  artifact_id text NOT NULL REFERENCES artifacts(artifact_id),
  revision bigint NOT NULL,
  name text NOT NULL,
  description text NOT NULL,
  instructions text NOT NULL,
  validation text NOT NULL,
  evidence text NOT NULL,
  PRIMARY KEY(artifact_id, revision));
)sql",
      // 11: the Handoff Report catalog (docs/handoff-reports.md; SQLite's migration 16).
      R"sql(
CREATE TABLE report_projects(
  project_id text PRIMARY KEY,
  project_key text NOT NULL UNIQUE,
  catalog_state text NOT NULL,
  version bigint NOT NULL,
  record text NOT NULL,
  updated_at bigint NOT NULL);
CREATE TABLE report_project_revisions(
  project_id text NOT NULL REFERENCES report_projects(project_id),
  version bigint NOT NULL,
  record text NOT NULL,
  actor text NOT NULL,
  effective_at bigint NOT NULL,
  PRIMARY KEY(project_id, version));
CREATE TABLE report_workstreams(
  scope_id text PRIMARY KEY REFERENCES scopes(scope_id),
  project_id text NOT NULL REFERENCES report_projects(project_id),
  key text,
  catalog_state text NOT NULL,
  version bigint NOT NULL,
  record text NOT NULL,
  updated_at bigint NOT NULL,
  UNIQUE(project_id, key));
CREATE INDEX report_workstreams_project ON report_workstreams(project_id, scope_id COLLATE "C");
CREATE TABLE report_workstream_revisions(
  scope_id text NOT NULL REFERENCES report_workstreams(scope_id),
  version bigint NOT NULL,
  record text NOT NULL,
  actor text NOT NULL,
  effective_at bigint NOT NULL,
  PRIMARY KEY(scope_id, version));
)sql",
      // 12: Handoff Report workspace bindings and the Activity Event log (SQLite's migration 17).
      R"sql(
CREATE TABLE report_workspace_bindings(
  workspace_instance_id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES report_projects(project_id),
  state text NOT NULL,
  version bigint NOT NULL,
  record text NOT NULL,
  updated_at bigint NOT NULL);
CREATE INDEX report_workspace_bindings_project ON report_workspace_bindings(project_id);
CREATE TABLE report_activity_sequence(
  id bigint PRIMARY KEY CHECK(id = 1),
  last bigint NOT NULL);
CREATE TABLE report_activities(
  cursor bigint PRIMARY KEY,
  event_id text NOT NULL UNIQUE,
  project_id text NOT NULL REFERENCES report_projects(project_id),
  source text NOT NULL,
  source_event_id text NOT NULL,
  period_at bigint,
  observed_at bigint NOT NULL,
  record text NOT NULL,
  UNIQUE(source, source_event_id));
CREATE INDEX report_activities_project ON report_activities(project_id, cursor);
CREATE INDEX report_activities_observed ON report_activities(project_id, observed_at);
)sql",
      // 13: postings without an index by document. A revise or retire removes a document's
      // postings by the primary key, from the terms of the text it indexed
      // (PgTxn::RemoveEntryTextDoc); the index served that delete alone, and cost every posting
      // of every write a second B-tree insert (docs/benchmarks.md).
      R"sql(
DROP INDEX text_postings_doc;
)sql",
  };
  return kMigrations;
}

}  // namespace

int LatestSchemaVersion() { return static_cast<int>(Migrations().size()); }

Result<int> Migrate(Conn& conn) {
  PC_RETURN_IF_ERROR(conn.Exec("BEGIN"));
  auto fail = [&](Status s) {
    (void)conn.Exec("ROLLBACK");
    return s;
  };
  // Held until COMMIT or ROLLBACK: a second server starting now waits here, then finds the work
  // done.
  if (auto locked = conn.Query(std::string("SELECT pg_advisory_xact_lock(x'") + kMigrationLock +
                               "'::bigint)");
      !locked.ok())
    return fail(locked.status());
  if (Status s = conn.Exec("CREATE TABLE IF NOT EXISTS schema_migrations("
                           "version integer PRIMARY KEY, applied_at bigint NOT NULL)");
      !s.ok())
    return fail(s);
  auto current = conn.Query("SELECT coalesce(max(version), 0) FROM schema_migrations");
  if (!current.ok()) return fail(current.status());
  const int found = static_cast<int>(current->Int(0, 0));
  if (found > LatestSchemaVersion())
    return fail(Internal("the database has schema version " + std::to_string(found) +
                         ", newer than this build's " + std::to_string(LatestSchemaVersion()) +
                         ": run a newer powercontext"));
  const auto started = std::chrono::steady_clock::now();
  for (int v = found + 1; v <= LatestSchemaVersion(); ++v) {
    if (Status s = conn.Exec(Migrations()[static_cast<size_t>(v - 1)]); !s.ok())
      return fail(Internal("migration " + std::to_string(v) + " failed: " + s.message()));
    auto recorded = conn.Query(
        "INSERT INTO schema_migrations(version, applied_at) VALUES($1, (extract(epoch from now()) "
        "* 1000)::bigint)",
        {std::to_string(v)});
    if (!recorded.ok()) return fail(recorded.status());
  }
  PC_RETURN_IF_ERROR(conn.Exec("COMMIT"));
  if (found > 0 && found < LatestSchemaVersion()) {  // for the operator (docs/operations.md)
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count();
    std::cerr << "powercontext: upgraded the database from schema " << found << " to "
              << LatestSchemaVersion() << " in " << ms << " ms" << std::endl;
  }
  return found;
}

}  // namespace pc::pg
