// A data directory as a schema-4 build left it (before the shared full-text tables of migration 5):
// one scope whose memory holds `entries` entries, one revision each, in a full-text table of its
// own (fts_<artifact rowid>), and `entries / 4` sources in the scope's own (fts_src_<scope rowid>).
// For the upgrade benchmark (bench/migrate_bench) and the upgrade's crash test.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "model/canonical.h"
#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"

namespace pc::testing {

// Deterministic prose of `words` words drawn from a small vocabulary (so phrases repeat).
inline std::string LegacyText(uint64_t seed, int words) {
  static const char* kWords[] = {
      "importer",  "invoice",  "amount",  "cents",    "deploy",    "staging",  "release",
      "freeze",    "parquet",  "export",  "schema",   "migration", "token",    "review",
      "handoff",   "budget",   "latency", "index",    "cursor",    "backfill", "scope",
      "wednesday", "customer", "ledger",  "currency", "rounding",  "retry",    "queue"};
  constexpr uint64_t kCount = sizeof(kWords) / sizeof(kWords[0]);
  std::string out;
  uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int i = 0; i < words; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    if (!out.empty()) out += ' ';
    out += kWords[(x >> 33) % kCount];
  }
  return out + " #" + std::to_string(seed);
}

// Creates dir/powercontext.db at schema 4 with `entries` entries. Returns "" or the error.
inline std::string BuildSchema4Store(const std::string& dir, int entries) {
  std::filesystem::create_directories(dir);
  auto opened = sqlite::Db::Open((std::filesystem::path(dir) / "powercontext.db").string(), 10000);
  if (!opened.ok()) return opened.status().ToString();
  sqlite::Db& db = **opened;
  if (Status s = sqlite::MigrateTo(db, 4); !s.ok()) return s.ToString();
  auto run = [&](const std::string& sql) { return db.Exec(sql); };
  const int64_t t = 1767225600000;  // 2026-01-01
  Status s = run("PRAGMA journal_mode=WAL");
  if (s.ok()) s = run("BEGIN");
  if (s.ok())
    s = run(
        "INSERT INTO scopes(scope_id, key, created_at) VALUES('scp_legacy', 'project:legacy', " +
        std::to_string(t) +
        ");"
        "INSERT INTO artifacts(artifact_id, scope_id, family, is_default, head_revision, "
        "created_at, vector_missing)"
        " VALUES('mem_legacy', 'scp_legacy', 'memory', 1, " +
        std::to_string(entries) + ", " + std::to_string(t) + ", " + std::to_string(entries) +
        ");"
        "CREATE VIRTUAL TABLE fts_1 USING fts5(text, state, entry_version_id UNINDEXED, tokenize = "
        "'porter pc');"
        "CREATE VIRTUAL TABLE fts_src_1 USING fts5(text, tokenize = 'porter pc');");
  const char* kInserts[] = {
      "INSERT INTO revisions(artifact_id, revision, actor, reason, lineage, created_at)"
      " VALUES('mem_legacy', ?1, 'local', '', '[]', ?2)",
      "INSERT INTO revision_changes(artifact_id, revision, seq, op, entry_id, from_version_id, "
      "to_version_id)"
      " VALUES('mem_legacy', ?1, 1, 'add', ?3, NULL, ?4)",  // seq from 1, as every build wrote it
      "INSERT INTO entries(entry_id, artifact_id, created_revision) VALUES(?3, 'mem_legacy', ?1)",
      "INSERT INTO entry_versions(entry_version_id, entry_id, version, previous_version_id, kind, "
      "text,"
      " content_hash, source_refs, created_by_revision, reason, created_at)"
      " VALUES(?4, ?3, 1, NULL, 'fact', ?5, ?6, '[]', ?1, '', ?2)",
      "INSERT INTO manifest(artifact_id, entry_id, entry_version_id, active, from_revision, "
      "to_revision)"
      " VALUES('mem_legacy', ?3, ?4, 1, ?1, NULL)",
      "INSERT INTO entry_vectors(entry_rowid, artifact_id, entry_id, entry_version_id, active)"
      " VALUES((SELECT rowid FROM entries WHERE entry_id = ?3), 'mem_legacy', ?3, ?4, 1)",
      "INSERT INTO fts_1(rowid, text, state, entry_version_id)"
      " VALUES((SELECT rowid FROM entries WHERE entry_id = ?3), ?5, '', ?4)",
  };
  char id[32];
  for (int i = 1; s.ok() && i <= entries; ++i) {
    std::snprintf(id, sizeof id, "%08d", i);
    const std::string text = LegacyText(static_cast<uint64_t>(i), 16);
    for (const char* sql : kInserts) {
      auto stmt = db.Prepare(sql);
      if (!stmt.ok()) return stmt.status().ToString();
      // Each statement binds the parameters it names (a bind past its last one is an error).
      const std::string text_sql = sql;
      stmt->Bind(1, int64_t{i});
      if (text_sql.find("?2") != std::string::npos) stmt->Bind(2, t + i);
      if (text_sql.find("?3") != std::string::npos) stmt->Bind(3, std::string("ent_") + id);
      if (text_sql.find("?4") != std::string::npos) stmt->Bind(4, std::string("env_") + id);
      if (text_sql.find("?5") != std::string::npos) stmt->Bind(5, text);
      if (text_sql.find("?6") != std::string::npos) {
        // The hash every build wrote (verify checks it).
        Result<std::string> hash = ContentHash("fact", text);
        if (!hash.ok()) return hash.status().ToString();
        stmt->Bind(6, *hash);
      }
      s = stmt->Run();
      if (!s.ok()) break;
    }
    if (s.ok() && i % 4 == 0) {
      const int64_t position = i / 4;
      auto src = db.Prepare(
          "INSERT INTO sources(scope_id, position, source_id, kind, purpose, content, metadata, "
          "idempotency_key,"
          " created_at) VALUES('scp_legacy', ?1, ?2, 'work_log', 'memory', ?3, '{}', NULL, ?4)");
      if (!src.ok()) return src.status().ToString();
      src->Bind(1, position)
          .Bind(2, std::string("src_") + id)
          .Bind(3, LegacyText(1000000 + position, 24))
          .Bind(4, t + i);
      s = src->Run();
      if (s.ok()) {
        auto fts = db.Prepare(
            "INSERT INTO fts_src_1(rowid, text) SELECT position, content FROM sources"
            " WHERE scope_id = 'scp_legacy' AND position = ?1");
        if (!fts.ok()) return fts.status().ToString();
        fts->Bind(1, position);
        s = fts->Run();
      }
    }
  }
  if (s.ok()) s = run("COMMIT");
  if (s.ok()) s = run("PRAGMA wal_checkpoint(TRUNCATE)");
  return s.ok() ? "" : s.ToString();
}

}  // namespace pc::testing
