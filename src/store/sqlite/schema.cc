#include "store/sqlite/schema.h"

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "common/clock.h"
#include "store/sqlite/sqlite_handoff.h"

namespace pc::sqlite {
namespace {

// The full-text projection built from the rows it projects (the head entries of every memory, and
// every source), as the store's writes build it row by row: an import (portable/) writes the rows,
// then this. Migration 5 built it once with the same statements; that migration, shipped, is never
// edited, so this is a copy of its text that may change with the store (an import's `verify`
// compares the result with the rows). Each index's `removed` count starts again at 0: the import
// builds a new store that no running server has read (common_phrases.h).
constexpr const char* kTextProjection = R"sql(
DELETE FROM memory_fts;
DELETE FROM source_fts;
DELETE FROM fts_stats;
INSERT INTO memory_fts(rowid, text, state, entry_version_id, tokens)
  SELECT e.rowid, pc_mark(a.rowid) || v.text,
         pc_mark(a.rowid) || CASE WHEN m.active THEN '' ELSE 'retired' END,
         v.entry_version_id, pc_token_count(v.text)
  FROM manifest m JOIN artifacts a ON a.artifact_id = m.artifact_id
  JOIN entries e ON e.entry_id = m.entry_id
  JOIN entry_versions v ON v.entry_version_id = m.entry_version_id
  WHERE m.to_revision IS NULL;
-- CROSS JOIN fixes the order: the planner put memory_fts outermost and scanned manifest_head
-- (artifact_id, entry_id) whole for each of its rows, quadratic (28k entries: ~6.5 minutes).
INSERT INTO fts_stats(kind, owner, docs, tokens, retired)
  SELECT 0, a.rowid, count(*), sum(f.tokens), sum(CASE WHEN m.active THEN 0 ELSE 1 END)
  FROM manifest m CROSS JOIN artifacts a CROSS JOIN entries e CROSS JOIN memory_fts f
  WHERE a.artifact_id = m.artifact_id AND e.entry_id = m.entry_id AND f.rowid = e.rowid
    AND m.to_revision IS NULL
  GROUP BY a.rowid;
INSERT INTO source_fts(text, position)
  SELECT pc_mark(sc.rowid) || s.content, s.position
  FROM sources s JOIN scopes sc ON sc.scope_id = s.scope_id ORDER BY sc.rowid, s.position;
INSERT INTO fts_stats(kind, owner, docs, tokens, retired)
  SELECT 1, sc.rowid, count(*), sum(pc_token_count(s.content)), 0
  FROM sources s JOIN scopes sc ON sc.scope_id = s.scope_id GROUP BY sc.rowid;
)sql";

// Append only: a shipped migration is never edited; a change is a new migration.
const std::vector<const char*>& Migrations() {
  static const std::vector<const char*> kMigrations = {
      // 1: scopes, versioned artifacts, revisions, entries, immutable versions, interval manifest.
      R"sql(
CREATE TABLE schema_migrations(
  version INTEGER PRIMARY KEY,
  applied_at INTEGER NOT NULL);
CREATE TABLE scopes(
  scope_id TEXT PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL);
CREATE TABLE artifacts(
  artifact_id TEXT PRIMARY KEY,
  scope_id TEXT NOT NULL REFERENCES scopes(scope_id),
  family TEXT NOT NULL,
  is_default INTEGER NOT NULL,
  head_revision INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL);
CREATE UNIQUE INDEX artifacts_default ON artifacts(scope_id, family) WHERE is_default = 1;
CREATE TABLE revisions(
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  revision INTEGER NOT NULL,
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  lineage TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY(artifact_id, revision)) WITHOUT ROWID;
CREATE TABLE revision_changes(
  artifact_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  op TEXT NOT NULL,
  entry_id TEXT NOT NULL,
  from_version_id TEXT,
  to_version_id TEXT NOT NULL,
  PRIMARY KEY(artifact_id, revision, seq)) WITHOUT ROWID;
CREATE TABLE entries(
  entry_id TEXT PRIMARY KEY,
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  created_revision INTEGER NOT NULL);
CREATE TABLE entry_versions(
  entry_version_id TEXT PRIMARY KEY,
  entry_id TEXT NOT NULL REFERENCES entries(entry_id),
  version INTEGER NOT NULL,
  previous_version_id TEXT,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  source_refs TEXT NOT NULL,
  created_by_revision INTEGER NOT NULL,
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE(entry_id, version));
CREATE INDEX entry_versions_hash ON entry_versions(content_hash);
-- The manifest as version intervals: entry_id is at entry_version_id (active or not) for
-- revisions [from_revision, to_revision); to_revision NULL means "still so at the head".
CREATE TABLE manifest(
  artifact_id TEXT NOT NULL,
  entry_id TEXT NOT NULL,
  entry_version_id TEXT NOT NULL,
  active INTEGER NOT NULL,
  from_revision INTEGER NOT NULL,
  to_revision INTEGER,
  PRIMARY KEY(artifact_id, entry_id, from_revision)) WITHOUT ROWID;
CREATE UNIQUE INDEX manifest_head ON manifest(artifact_id, entry_id) WHERE to_revision IS NULL;
)sql",
      // 2: the vector projection of the head: one row per entry (entry_rowid = entries.rowid);
      // vector NULL = missing (embedder down, or written before vectors): a reindex fills it.
      // artifacts.vector_missing counts active head rows without a vector of vector_profile.
      R"sql(
CREATE TABLE entry_vectors(
  entry_rowid INTEGER PRIMARY KEY,
  artifact_id TEXT NOT NULL,
  entry_id TEXT NOT NULL,
  entry_version_id TEXT NOT NULL,
  active INTEGER NOT NULL,
  profile TEXT,
  vector BLOB);
CREATE INDEX entry_vectors_artifact ON entry_vectors(artifact_id, entry_id);
ALTER TABLE artifacts ADD COLUMN vector_profile TEXT;
ALTER TABLE artifacts ADD COLUMN vector_missing INTEGER NOT NULL DEFAULT 0;
INSERT INTO entry_vectors(entry_rowid, artifact_id, entry_id, entry_version_id, active)
  SELECT e.rowid, m.artifact_id, m.entry_id, m.entry_version_id, m.active
  FROM manifest m JOIN entries e ON e.entry_id = m.entry_id
  WHERE m.to_revision IS NULL;
UPDATE artifacts SET vector_missing =
  (SELECT count(*) FROM entry_vectors v WHERE v.artifact_id = artifacts.artifact_id AND v.active = 1);
)sql",
      // 3: each scope's source log (positions 1, 2, 3 …, append only) and extraction cursors.
      R"sql(
CREATE TABLE sources(
  scope_id TEXT NOT NULL REFERENCES scopes(scope_id),
  position INTEGER NOT NULL,
  source_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  purpose TEXT NOT NULL,
  content TEXT NOT NULL,
  metadata TEXT NOT NULL,
  idempotency_key TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY(scope_id, position)) WITHOUT ROWID;
CREATE UNIQUE INDEX sources_idempotency ON sources(scope_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE TABLE cursors(
  scope_id TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  consumer TEXT NOT NULL,
  position INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY(scope_id, artifact_id, consumer)) WITHOUT ROWID;
)sql",
      // 4: handoff revisions (artifact family "handoff"; the revision rows live in `revisions`)
      // and their lists.
      R"sql(
CREATE TABLE handoff_versions(
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  revision INTEGER NOT NULL,
  from_who TEXT NOT NULL,
  to_who TEXT NOT NULL,
  summary TEXT NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY(artifact_id, revision)) WITHOUT ROWID;
CREATE TABLE handoff_items(
  artifact_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  list TEXT NOT NULL,
  seq INTEGER NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY(artifact_id, revision, list, seq)) WITHOUT ROWID;
)sql",
      // 5: full text in two shared tables instead of one FTS5 table per memory and per source log
      // (10,000 scopes were 60,055 schema objects: slow to create, to open, to parse). Each
      // document's text starts with its index's mark and its tokens carry the index's tag
      // (tokenizer pctag), so document lists, and BM25 statistics, stay per index; fts_stats holds
      // each index's documents and tokens. The old tables are dropped after this (DropLegacyText).
      R"sql(
CREATE VIRTUAL TABLE memory_fts USING fts5(
  text, state, entry_version_id UNINDEXED, tokens UNINDEXED, tokenize = 'pctag porter pc');
CREATE VIRTUAL TABLE source_fts USING fts5(
  text, position UNINDEXED, tokenize = 'pctag porter pc');
CREATE TABLE fts_stats(
  kind INTEGER NOT NULL,     -- 0: a memory (owner = artifacts.rowid); 1: a source log (scopes.rowid)
  owner INTEGER NOT NULL,
  docs INTEGER NOT NULL,
  tokens INTEGER NOT NULL,   -- in the text column
  retired INTEGER NOT NULL,  -- memory rows whose state is "retired" (one token each)
  PRIMARY KEY(kind, owner)) WITHOUT ROWID;
INSERT INTO memory_fts(rowid, text, state, entry_version_id, tokens)
  SELECT e.rowid, pc_mark(a.rowid) || v.text,
         pc_mark(a.rowid) || CASE WHEN m.active THEN '' ELSE 'retired' END,
         v.entry_version_id, pc_token_count(v.text)
  FROM manifest m JOIN artifacts a ON a.artifact_id = m.artifact_id
  JOIN entries e ON e.entry_id = m.entry_id
  JOIN entry_versions v ON v.entry_version_id = m.entry_version_id
  WHERE m.to_revision IS NULL;
-- CROSS JOIN fixes the order: the planner put memory_fts outermost and scanned manifest_head
-- (artifact_id, entry_id) whole for each of its rows, quadratic (28k entries: ~6.5 minutes).
INSERT INTO fts_stats(kind, owner, docs, tokens, retired)
  SELECT 0, a.rowid, count(*), sum(f.tokens), sum(CASE WHEN m.active THEN 0 ELSE 1 END)
  FROM manifest m CROSS JOIN artifacts a CROSS JOIN entries e CROSS JOIN memory_fts f
  WHERE a.artifact_id = m.artifact_id AND e.entry_id = m.entry_id AND f.rowid = e.rowid
    AND m.to_revision IS NULL
  GROUP BY a.rowid;
INSERT INTO source_fts(text, position)
  SELECT pc_mark(sc.rowid) || s.content, s.position
  FROM sources s JOIN scopes sc ON sc.scope_id = s.scope_id ORDER BY sc.rowid, s.position;
INSERT INTO fts_stats(kind, owner, docs, tokens, retired)
  SELECT 1, sc.rowid, count(*), sum(pc_token_count(s.content)), 0
  FROM sources s JOIN scopes sc ON sc.scope_id = s.scope_id GROUP BY sc.rowid;
)sql",
      // 6: the handoff as the spec's cited structure (RFC 0048, docs/handoff.md): per revision an
      // objective and a disposition; its claims (state statements, the next action, omissions)
      // in order; and each claim's citations (a source, an artifact revision, or an exact memory
      // entry version). The free-text revisions of migration 4 are converted after this
      // (MigrateLegacyHandoffs); their rows stay, read-only, as the record of what was written.
      R"sql(
CREATE TABLE handoff_contents(
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  revision INTEGER NOT NULL,
  objective TEXT NOT NULL,
  disposition TEXT NOT NULL,  -- continuable, blocked, complete
  PRIMARY KEY(artifact_id, revision)) WITHOUT ROWID;
CREATE TABLE handoff_claims(
  artifact_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  claim TEXT NOT NULL,  -- state, next_action, omission
  seq INTEGER NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY(artifact_id, revision, claim, seq)) WITHOUT ROWID;
CREATE TABLE handoff_citations(
  artifact_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  claim TEXT NOT NULL,
  seq INTEGER NOT NULL,
  cseq INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- source, artifact, memory
  name TEXT NOT NULL,              -- source: SourceReference.name; else the artifact's family
  ref_id TEXT NOT NULL,            -- source: its source_id; else the artifact id
  ref_revision INTEGER NOT NULL,   -- 0 for a source
  entry_id TEXT NOT NULL,          -- memory citations only, else ''
  entry_version_id TEXT NOT NULL,
  PRIMARY KEY(artifact_id, revision, claim, seq, cseq)) WITHOUT ROWID;
)sql",
      // 7: scoped statistics (RFC 0072): daily aggregates of provider-reported model usage and of
      // the recall token estimate, keyed by the internal scope id and the UTC date "YYYY-MM-DD";
      // incremented by UPSERT, never rewritten otherwise. They hold no content and no identity.
      // `*_complete` is 0 once any call of the bucket came without that token count.
      R"sql(
CREATE TABLE model_usage_daily(
  scope_id TEXT NOT NULL,
  usage_date TEXT NOT NULL,
  purpose TEXT NOT NULL,
  operation TEXT NOT NULL,  -- generation, embedding
  requests INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  input_complete INTEGER NOT NULL,
  output_complete INTEGER NOT NULL,
  PRIMARY KEY(scope_id, usage_date, purpose, operation)) WITHOUT ROWID;
CREATE TABLE recall_token_daily(
  scope_id TEXT NOT NULL,
  usage_date TEXT NOT NULL,
  estimator_id TEXT NOT NULL,
  estimator_version TEXT NOT NULL,
  preparations INTEGER NOT NULL,
  ready_preparations INTEGER NOT NULL,
  comparable_preparations INTEGER NOT NULL,
  baseline_tokens INTEGER NOT NULL,
  recalled_tokens INTEGER NOT NULL,
  PRIMARY KEY(scope_id, usage_date, estimator_id, estimator_version)) WITHOUT ROWID;
)sql",
      // 8: API tokens (only the SHA-256 of each secret) and the audit log (DESIGN §11). A name
      // is unique among live tokens; a revoked token's row stays, so its audit rows keep meaning.
      R"sql(
CREATE TABLE api_tokens(
  token_rowid INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  scope_patterns TEXT NOT NULL,  -- JSON array of strings; [] = every scope
  secret_hash TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER,
  revoked_at_ms INTEGER);
CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens(name) WHERE revoked_at_ms IS NULL;
CREATE TABLE audit_log(
  seq INTEGER PRIMARY KEY,  -- rowids only grow: the retention never deletes the newest row
  at_ms INTEGER NOT NULL,
  actor TEXT NOT NULL,
  operation TEXT NOT NULL,
  scope_id TEXT NOT NULL,
  targets TEXT NOT NULL,
  result TEXT NOT NULL,
  request_id TEXT NOT NULL);
-- One index, by scope: every index is another page each write's commit carries. An actor or a
-- time filter reads newest first (seq) until its page is full.
CREATE INDEX audit_log_scope ON audit_log(scope_id, seq);
)sql",
      // 9: review (RFC 0050, docs/review.md): candidate heads (current version, status, the
      // approval's result or the rejection's reason) and their immutable versions (proposal and
      // evidence as the JSON the service validated); Experience revisions (one artifact per
      // experience, family "experience", its revision rows in `revisions`).
      R"sql(
CREATE TABLE candidate_heads(
  scope_id TEXT NOT NULL REFERENCES scopes(scope_id),
  candidate_id TEXT NOT NULL,
  family TEXT NOT NULL,
  version INTEGER NOT NULL,
  status TEXT NOT NULL,      -- pending, approved, rejected
  result TEXT,               -- approved: the artifact revision (JSON ArtifactReference)
  decision_reason TEXT,      -- rejected: the reviewer's reason
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY(scope_id, candidate_id)) WITHOUT ROWID;
CREATE INDEX candidate_heads_inbox ON candidate_heads(scope_id, status, candidate_id);
CREATE TABLE candidate_versions(
  scope_id TEXT NOT NULL,
  candidate_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  proposal TEXT NOT NULL,
  evidence TEXT NOT NULL,
  target TEXT,
  reason TEXT,
  actor TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY(scope_id, candidate_id, version)) WITHOUT ROWID;
CREATE TABLE experience_contents(
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  revision INTEGER NOT NULL,
  situation TEXT NOT NULL,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL,
  lesson TEXT NOT NULL,
  evidence TEXT NOT NULL,
  PRIMARY KEY(artifact_id, revision)) WITHOUT ROWID;
CREATE INDEX artifacts_scope_family ON artifacts(scope_id, family, created_at);
-- Per-scope settings of the write gates (service/write_policy.h): name → value.
CREATE TABLE scope_settings(
  scope_id TEXT NOT NULL REFERENCES scopes(scope_id),
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY(scope_id, name)) WITHOUT ROWID;
)sql",
      // 10: the graph projection (docs/graph.md): triples attached to entry versions, immutable;
      // at a revision, the edges added by then whose version is active there (via manifest).
      R"sql(
CREATE TABLE graph_edges(
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  revision INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  entry_id TEXT NOT NULL,
  entry_version_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  relation TEXT NOT NULL,
  object TEXT NOT NULL,
  subject_key TEXT NOT NULL,
  object_key TEXT NOT NULL,
  evidence TEXT NOT NULL,  -- source refs, one per line
  PRIMARY KEY(artifact_id, revision, seq)) WITHOUT ROWID;
)sql",
      // 11: the last flush that processed a window of each scope (service/flush/flush_record.h):
      // what it
      // committed and what it rejected, written in the flush's own transaction, replaced by the
      // next.
      R"sql(
CREATE TABLE last_flush(
  scope_id TEXT PRIMARY KEY REFERENCES scopes(scope_id),
  at_ms INTEGER NOT NULL,
  record TEXT NOT NULL) WITHOUT ROWID;
)sql",
      // 12: the audit log's retention (service/admin/audit_service.h) deletes its oldest rows.
      // Refused
      // requests' rows (at most 200 a second) have a cap and a shorter age of their own, found by
      // this partial index: an index only they carry, so acknowledged writes' commits do not.
      R"sql(
CREATE INDEX audit_log_denied ON audit_log(seq) WHERE result IN ('denied', 'dropped');
)sql",
      // 13: a scope's sources of one kind in log order (ReadTxn::ListSourcesOfKind): a Task
      // Outcome looks for later receipts among the receipts, not the whole log after one.
      R"sql(
CREATE INDEX sources_kind ON sources(scope_id, kind, position);
)sql",
      // 14: expiry (docs/expiry.md): a version may be valid until a moment; the expiry pass finds
      // the versions whose moment has come through the partial index (only they carry it).
      R"sql(
ALTER TABLE entry_versions ADD COLUMN valid_until INTEGER;
CREATE INDEX entry_versions_valid_until ON entry_versions(valid_until)
  WHERE valid_until IS NOT NULL;
)sql",
      // 15: managed Skills (docs/skills.md): the revisions of family "skill" (one artifact per
      // Skill, its revision rows in `revisions`), its validation checks a JSON list.
      R"sql(
CREATE TABLE skill_contents(
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  revision INTEGER NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  instructions TEXT NOT NULL,
  validation TEXT NOT NULL,
  evidence TEXT NOT NULL,
  PRIMARY KEY(artifact_id, revision)) WITHOUT ROWID;
)sql",
      // 16: the Handoff Report catalog (docs/handoff-reports.md): Projects and Workstreams (a
      // Workstream is a scope), each record's current version and every revision of it.
      R"sql(
CREATE TABLE report_projects(
  project_id TEXT PRIMARY KEY,
  project_key TEXT NOT NULL UNIQUE,
  catalog_state TEXT NOT NULL,
  version INTEGER NOT NULL,
  record TEXT NOT NULL,
  updated_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE report_project_revisions(
  project_id TEXT NOT NULL REFERENCES report_projects(project_id),
  version INTEGER NOT NULL,
  record TEXT NOT NULL,
  actor TEXT NOT NULL,
  effective_at INTEGER NOT NULL,
  PRIMARY KEY(project_id, version)) WITHOUT ROWID;
CREATE TABLE report_workstreams(
  scope_id TEXT PRIMARY KEY REFERENCES scopes(scope_id),
  project_id TEXT NOT NULL REFERENCES report_projects(project_id),
  key TEXT,
  catalog_state TEXT NOT NULL,
  version INTEGER NOT NULL,
  record TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE(project_id, key)) WITHOUT ROWID;
CREATE INDEX report_workstreams_project ON report_workstreams(project_id, scope_id);
CREATE TABLE report_workstream_revisions(
  scope_id TEXT NOT NULL REFERENCES report_workstreams(scope_id),
  version INTEGER NOT NULL,
  record TEXT NOT NULL,
  actor TEXT NOT NULL,
  effective_at INTEGER NOT NULL,
  PRIMARY KEY(scope_id, version)) WITHOUT ROWID;
)sql",
      // 17: Handoff Report workspace bindings and the Activity Event log (docs/handoff-reports.md):
      // an event's cursor comes from report_activity_sequence, which a purge never rewinds.
      R"sql(
CREATE TABLE report_workspace_bindings(
  workspace_instance_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES report_projects(project_id),
  state TEXT NOT NULL,
  version INTEGER NOT NULL,
  record TEXT NOT NULL,
  updated_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX report_workspace_bindings_project ON report_workspace_bindings(project_id);
CREATE TABLE report_activity_sequence(
  id INTEGER PRIMARY KEY CHECK(id = 1),
  last INTEGER NOT NULL);
CREATE TABLE report_activities(
  cursor INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL REFERENCES report_projects(project_id),
  source TEXT NOT NULL,
  source_event_id TEXT NOT NULL,
  period_at INTEGER,
  observed_at INTEGER NOT NULL,
  record TEXT NOT NULL,
  UNIQUE(source, source_event_id));
CREATE INDEX report_activities_project ON report_activities(project_id, cursor);
CREATE INDEX report_activities_observed ON report_activities(project_id, observed_at);
)sql",
      // 18: the full-text upkeep (SqliteStore::MergeTextSegments) merges a level's segments once
      // it has 2, not FTS5's default 4 (its `usermerge` option, kept in the table's config): a
      // query reads each phrase's document list once per segment (docs/benchmarks.md).
      R"sql(
INSERT INTO memory_fts(memory_fts, rank) VALUES('usermerge', 2);
INSERT INTO source_fts(source_fts, rank) VALUES('usermerge', 2);
)sql",
      // 19: each full-text index counts the rows ever removed from it (a revised or retired
      // entry's previous row), so that a phrase a search found common is known to be common in
      // any later snapshot with the same count (store/sqlite/common_phrases.h).
      R"sql(
ALTER TABLE fts_stats ADD COLUMN removed INTEGER NOT NULL DEFAULT 0;
)sql",
  };
  return kMigrations;
}

// Before migration 5 every memory had an FTS5 table fts_<artifact rowid> and every scope with
// sources one fts_src_<scope rowid>; their rows now live in the shared tables.
Status DropLegacyText(Db& db) {
  std::vector<std::string> tables;
  {
    PC_ASSIGN_OR_RETURN(Stmt s,
                        db.Prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql "
                                   "LIKE 'CREATE VIRTUAL TABLE%'"
                                   " AND (name GLOB 'fts_[0-9]*' OR name GLOB 'fts_src_[0-9]*')"));
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      tables.push_back(s.Text(0));
    }
  }
  for (const std::string& t : tables) PC_RETURN_IF_ERROR(db.Exec("DROP TABLE \"" + t + "\""));
  return Status::Ok();
}

// An upgrade says what it did, for the operator (docs/operations.md, Upgrading): a store is never
// migrated without a line in the server's log.
void LogUpgrade(int from, int to, std::chrono::steady_clock::time_point started) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  std::cerr << "powercontext: upgraded the store from schema " << from << " to " << to << " in "
            << ms << " ms" << std::endl;
}

}  // namespace

Status RebuildTextProjection(Db& db) { return db.Exec(kTextProjection); }

int LatestSchemaVersion() { return static_cast<int>(Migrations().size()); }

Status Migrate(Db& db) { return MigrateTo(db, LatestSchemaVersion()); }

Status MigrateTo(Db& db, int target) {
  PC_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  auto fail = [&](Status s) {
    (void)db.Exec("ROLLBACK");
    return s;
  };
  int current = 0;
  {
    auto stmt = db.Prepare("PRAGMA user_version");
    if (!stmt.ok()) return fail(stmt.status());
    auto row = stmt->Step();
    if (!row.ok()) return fail(row.status());
    current = static_cast<int>(stmt->Int(0));
  }
  if (current > LatestSchemaVersion())
    return fail(Internal("the data directory has schema version " + std::to_string(current) +
                         ", newer than this build's " + std::to_string(LatestSchemaVersion()) +
                         "; use a newer powercontext"));
  const auto started = std::chrono::steady_clock::now();
  for (int v = current + 1; v <= target; ++v) {
    Status s = db.Exec(Migrations()[static_cast<size_t>(v - 1)]);
    if (s.ok() && v == 5) s = DropLegacyText(db);
    if (s.ok() && v == 6) s = MigrateLegacyHandoffs(db);
    if (!s.ok())
      return fail(Internal("migration " + std::to_string(v) + " failed: " + s.message()));
    s = db.Exec("INSERT INTO schema_migrations(version, applied_at) VALUES(" + std::to_string(v) +
                ", " + std::to_string(NowMillis()) + ")");
    if (!s.ok()) return fail(s);
    s = db.Exec("PRAGMA user_version = " + std::to_string(v));
    if (!s.ok()) return fail(s);
  }
  PC_RETURN_IF_ERROR(db.Exec("COMMIT"));
  if (current > 0 && current < target) LogUpgrade(current, target, started);
  return Status::Ok();
}

}  // namespace pc::sqlite
