// The SQLite store's own guarantees: migrations, atomic commits, rollback, interval manifest.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "bulk_fill.h"
#include "common/clock.h"
#include "common/ids.h"
#include "search/hash_embedder.h"
#include "service/core/actor.h"
#include "service/flush/source_service.h"
#include "service/search/search_service.h"
#include "store/sqlite/db.h"
#include "store/sqlite/doc_lengths.h"
#include "store/sqlite/fts_extensions.h"
#include "store/sqlite/schema.h"
#include "test_util.h"

namespace pc {
namespace {

using testing::Fixture;

int64_t PragmaInt(const std::string& dir, const char* pragma) {
  sqlite3* db = nullptr;
  sqlite3_open((std::filesystem::path(dir) / "powercontext.db").c_str(), &db);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, pragma, -1, &s, nullptr);
  sqlite3_step(s);
  int64_t v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

void SetUserVersion(const std::string& dir, int v) {
  sqlite3* db = nullptr;
  sqlite3_open((std::filesystem::path(dir) / "powercontext.db").c_str(), &db);
  sqlite3_exec(db, ("PRAGMA user_version=" + std::to_string(v)).c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
}

TEST(SqliteStore, MigratesAndRecordsVersionInWalMode) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's own schema history";
  Fixture f;
  EXPECT_EQ(PragmaInt(f.dir.path(), "PRAGMA user_version"), sqlite::LatestSchemaVersion());
  EXPECT_EQ(PragmaInt(f.dir.path(), "SELECT count(*) FROM schema_migrations"),
            sqlite::LatestSchemaVersion());
  f.Reopen();  // migrating an up-to-date database is a no-op
  EXPECT_EQ(PragmaInt(f.dir.path(), "SELECT count(*) FROM schema_migrations"),
            sqlite::LatestSchemaVersion());
}

// A data directory written before full-text search (schema 1) is indexed when it is opened.
TEST(SqliteStore, MigrationBackfillsTheTextProjection) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's own schema history";
  Fixture f;
  std::string scope = f.NewScope();
  PC_ASSERT_OK(f.memory->Remember({scope, "fact", "written before search existed", "", "", {}}));
  f.store.reset();
  {
    sqlite3* db = nullptr;
    sqlite3_open((std::filesystem::path(f.dir.path()) / "powercontext.db").c_str(), &db);
    // Undo migrations 2 to 4 and the memory's text table, leaving the file as a schema-1 build
    // would.
    PC_ASSERT_OK(sqlite::RegisterFtsExtensions(db));
    ASSERT_EQ(sqlite3_exec(db,
                           "DROP TABLE memory_fts; DROP TABLE source_fts; DROP TABLE fts_stats;"
                           "DROP TABLE entry_vectors;"
                           "DROP TABLE sources; DROP TABLE cursors;"
                           "DROP TABLE handoff_versions; DROP TABLE handoff_items;"
                           "DROP TABLE handoff_contents; DROP TABLE handoff_claims;"
                           "DROP TABLE handoff_citations;"
                           "DROP TABLE model_usage_daily; DROP TABLE recall_token_daily;"
                           "DROP TABLE api_tokens; DROP TABLE audit_log;"
                           "DROP TABLE candidate_heads; DROP TABLE candidate_versions; DROP TABLE "
                           "experience_contents;"
                           "DROP TABLE scope_settings; DROP INDEX artifacts_scope_family; DROP "
                           "TABLE graph_edges; DROP TABLE last_flush;"
                           "DROP INDEX entry_versions_valid_until; DROP TABLE skill_contents;"
                           "DROP TABLE report_activities; DROP TABLE report_activity_sequence; "
                           "DROP TABLE report_workspace_bindings; DROP TABLE "
                           "report_workstream_revisions; DROP TABLE report_workstreams; "
                           "DROP TABLE report_project_revisions; DROP TABLE report_projects;"
                           "ALTER TABLE entry_versions DROP COLUMN valid_until;"
                           "ALTER TABLE artifacts DROP COLUMN vector_profile;"
                           "ALTER TABLE artifacts DROP COLUMN vector_missing;"
                           "DELETE FROM schema_migrations WHERE version >= 2;"
                           "PRAGMA user_version = 1;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  f.Reopen();
  SearchService search(*f.store);
  auto r = search.Search({scope, "search existed", SearchMode::kFts, 10, false, std::nullopt});
  PC_ASSERT_OK(r);
  ASSERT_EQ(r->hits.size(), 1u);
  // The vector projection starts out missing for the old entry, until a reindex.
  HashEmbedder embedder;
  SearchService with_vectors(*f.store, &embedder);
  EXPECT_EQ(with_vectors.Search({scope, "search", SearchMode::kVector, 10, false, std::nullopt})
                .status()
                .code(),
            Code::kCapabilityUnavailable);
  auto done = with_vectors.Reindex(scope);
  PC_ASSERT_OK(done);
  EXPECT_EQ(done->embedded, 1);
  EXPECT_EQ(done->missing, 0);
  auto v =
      with_vectors.Search({scope, "search existed", SearchMode::kVector, 10, false, std::nullopt});
  PC_ASSERT_OK(v);
  EXPECT_EQ(v->hits.size(), 1u);
}

// A data directory of schema 4 had one FTS5 table per memory (fts_<artifact rowid>) and per
// source log (fts_src_<scope rowid>). Migration 5 moves their rows into the shared tables, with
// each index's statistics, and drops them: search answers as before.
TEST(SqliteStore, MigrationMovesPerScopeTextTablesIntoTheSharedOnes) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's own schema history";
  Fixture f;
  std::string a = f.NewScope("project:a"), b = f.NewScope("project:b");
  auto kept =
      f.memory->Remember({a, "fact", "Invoices are exported as parquet files.", "", "", {}});
  PC_ASSERT_OK(kept);
  auto gone = f.memory->Remember({a, "fact", "Invoices were exported as CSV files.", "", "", {}});
  PC_ASSERT_OK(gone);
  Citation at_head = *gone->citation;
  PC_ASSERT_OK(f.memory->Retire({a, at_head, "superseded", "t"}));
  PC_ASSERT_OK(f.memory->Remember({b, "fact", "Parquet is not used in project b.", "", "", {}}));
  SourceService sources(*f.store);
  PC_ASSERT_OK(sources.Add(
      a, {{"work_log", "", "Switched the invoice export to parquet.", "{}", std::nullopt}}));
  SearchService before_search(*f.store);
  auto before =
      before_search.Search({a, "invoices parquet", SearchMode::kFts, 10, true, std::nullopt});
  PC_ASSERT_OK(before);
  f.store.reset();
  {
    sqlite3* db = nullptr;
    sqlite3_open((std::filesystem::path(f.dir.path()) / "powercontext.db").c_str(), &db);
    PC_ASSERT_OK(sqlite::RegisterFtsExtensions(db));
    // What a schema-4 build wrote: a table per memory and per source log, filled the same way.
    std::string sql;
    for (int owner : {1, 2, 3, 4}) {  // artifacts' rowids (memories and handoffs alike)
      const std::string t = "fts_" + std::to_string(owner);
      sql += "CREATE VIRTUAL TABLE " + t +
             " USING fts5(text, state, entry_version_id UNINDEXED, tokenize = 'porter pc');"
             "INSERT INTO " +
             t +
             "(rowid, text, state, entry_version_id) SELECT e.rowid, v.text,"
             " CASE WHEN m.active THEN '' ELSE 'retired' END, v.entry_version_id FROM manifest m"
             " JOIN artifacts a ON a.artifact_id = m.artifact_id JOIN entries e ON e.entry_id = "
             "m.entry_id"
             " JOIN entry_versions v ON v.entry_version_id = m.entry_version_id"
             " WHERE m.to_revision IS NULL AND a.rowid = " +
             std::to_string(owner) + ";";
    }
    sql +=
        "CREATE VIRTUAL TABLE fts_src_1 USING fts5(text, tokenize = 'porter pc');"
        "INSERT INTO fts_src_1(rowid, text) SELECT position, content FROM sources;"
        "DROP TABLE memory_fts; DROP TABLE source_fts; DROP TABLE fts_stats;"
        "DROP TABLE handoff_contents; DROP TABLE handoff_claims; DROP TABLE handoff_citations;"
        "DROP TABLE model_usage_daily; DROP TABLE recall_token_daily;"
        "DROP TABLE api_tokens; DROP TABLE audit_log;"
        "DROP TABLE candidate_heads; DROP TABLE candidate_versions; DROP TABLE experience_contents;"
        "DROP TABLE scope_settings; DROP INDEX artifacts_scope_family; DROP TABLE graph_edges; "
        "DROP TABLE last_flush; DROP INDEX sources_kind;"
        "DROP INDEX entry_versions_valid_until; ALTER TABLE entry_versions DROP COLUMN valid_until;"
        "DROP TABLE skill_contents;"
        "DROP TABLE report_activities; DROP TABLE report_activity_sequence; "
        "DROP TABLE report_workspace_bindings; DROP TABLE report_workstream_revisions; DROP TABLE "
        "report_workstreams; DROP TABLE "
        "report_project_revisions; DROP TABLE report_projects;"
        "DELETE FROM schema_migrations WHERE version >= 5; PRAGMA user_version = 4;";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  f.Reopen();
  EXPECT_EQ(
      PragmaInt(f.dir.path(), "SELECT count(*) FROM sqlite_schema WHERE name GLOB 'fts_[0-9]*'"),
      0);
  EXPECT_EQ(
      PragmaInt(f.dir.path(), "SELECT count(*) FROM sqlite_schema WHERE name GLOB 'fts_src_*'"), 0);
  SearchService search(*f.store);
  auto after = search.Search({a, "invoices parquet", SearchMode::kFts, 10, true, std::nullopt});
  PC_ASSERT_OK(after);
  ASSERT_EQ(after->hits.size(), before->hits.size());
  for (size_t i = 0; i < after->hits.size(); ++i) {
    EXPECT_EQ(after->hits[i].item.version.entry_version_id,
              before->hits[i].item.version.entry_version_id);
    EXPECT_DOUBLE_EQ(after->hits[i].score, before->hits[i].score);  // the same statistics
    EXPECT_EQ(after->hits[i].item.active, before->hits[i].item.active);
  }
  auto active_only = search.Search({a, "invoices", SearchMode::kFts, 10, false, std::nullopt});
  PC_ASSERT_OK(active_only);
  ASSERT_EQ(active_only->hits.size(), 1u);
  EXPECT_EQ(active_only->hits[0].item.version.text, "Invoices are exported as parquet files.");
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    auto hits = txn.SearchSources(a, BuildTextQuery("parquet export"), 5);
    if (!hits.ok()) return hits.status();
    EXPECT_EQ(hits->size(), 1u);
    auto none = txn.SearchSources(b, BuildTextQuery("parquet export"), 5);
    if (!none.ok()) return none.status();
    EXPECT_TRUE(none->empty());
    return Status::Ok();
  }));
  // And writes go on in the shared tables.
  PC_ASSERT_OK(f.memory->Remember({b, "fact", "Project b exports JSON lines.", "", "", {}}));
  auto b_hits = search.Search({b, "json lines", SearchMode::kFts, 10, false, std::nullopt});
  PC_ASSERT_OK(b_hits);
  // (The entry remembered before it in b may follow, lifted as its neighbour: docs/quality.md.)
  ASSERT_FALSE(b_hits->hits.empty());
  EXPECT_EQ(b_hits->hits[0].item.version.text, "Project b exports JSON lines.");
}

TEST(SqliteStore, RefusesANewerSchema) {
  testing::TempDir dir;
  {
    sqlite::SqliteOptions o;
    o.data_dir = dir.path();
    PC_ASSERT_OK(sqlite::SqliteStore::Open(o));
  }
  SetUserVersion(dir.path(), sqlite::LatestSchemaVersion() + 1);
  sqlite::SqliteOptions o;
  o.data_dir = dir.path();
  auto again = sqlite::SqliteStore::Open(o);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("newer"), std::string::npos);
}

TEST(SqliteStore, FailedWriteRollsBackEverything) {
  Fixture f;
  std::string scope_id;
  Status s = f.store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Scope scope, txn.CreateScope("k"));
    scope_id = scope.scope_id;
    return Conflict("changed my mind");
  });
  EXPECT_EQ(s.code(), Code::kConflict);
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto found, txn.FindScope(scope_id));
    EXPECT_FALSE(found.has_value());
    return Status::Ok();
  }));
}

TEST(SqliteStore, ExceptionInTransactionIsInternalAndRollsBack) {
  Fixture f;
  Status s = f.store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    (void)txn.CreateScope("k");
    throw std::runtime_error("boom");
  });
  EXPECT_EQ(s.code(), Code::kInternal);
  EXPECT_EQ(f.memory->GetScopeByKey("k").status().code(), Code::kNotFound);
}

TEST(SqliteStore, CommitRejectsARevisionThatIsNotNext) {
  Fixture f;
  std::string scope_id = f.NewScope();
  Scope scope = *f.memory->GetScope(scope_id);
  NewRevision rev;
  rev.info.memory = MemoryRef{kMemoryFamily, scope.memory_artifact_id, 2};  // head is 0
  rev.info.created_at_ms = NowMillis();
  Status s = f.store->Write(RequestActor(), [&](WriteTxn& txn) { return txn.CommitRevision(rev); });
  EXPECT_EQ(s.code(), Code::kConflict);
}

// The manifest at every revision stays exact while entries change around it.
TEST(SqliteStore, ManifestAtEveryRevision) {
  Fixture f;
  std::string scope = f.NewScope();
  std::vector<std::vector<std::string>> expected;  // texts of active entries at r1, r2, ...
  std::vector<Citation> cites;
  std::vector<std::string> texts;
  for (int i = 0; i < 5; ++i) {
    auto r = f.memory->Remember({scope, "fact", "t" + std::to_string(i), "", "", {}});
    PC_ASSERT_OK(r);
    texts.push_back("t" + std::to_string(i));
    expected.push_back(texts);
    cites.push_back(*r->citation);
  }
  auto head_cite = [&](int i) {
    Citation c = cites[static_cast<size_t>(i)];
    c.memory.revision = static_cast<int64_t>(expected.size());
    return c;
  };
  auto rev = f.memory->Revise({scope, head_cite(1), "t1'", std::nullopt, "", ""});
  PC_ASSERT_OK(rev);
  cites[1] = *rev->citation;
  texts[1] = "t1'";
  expected.push_back(texts);
  PC_ASSERT_OK(f.memory->Retire({scope, head_cite(3), "", ""}));
  texts.erase(texts.begin() + 3);
  expected.push_back(texts);

  for (size_t r = 0; r < expected.size(); ++r) {
    auto page = f.memory->ListEntries({scope, static_cast<int64_t>(r + 1), false, {}});
    PC_ASSERT_OK(page);
    std::vector<std::string> got;
    for (const auto& m : page->items) got.push_back(m.version.text);
    EXPECT_EQ(got, expected[r]) << "at revision " << r + 1;
  }
}

// A bind that fails (here an index the statement does not have) fails the statement: it used to
// be ignored, and the statement ran with NULL in place of the value.
TEST(SqliteDb, AFailedBindFailsTheStatement) {
  testing::TempDir dir;
  auto db = sqlite::Db::Open(dir.path() + "/t.db", 1000);
  PC_ASSERT_OK(db);
  PC_ASSERT_OK((*db)->Exec("CREATE TABLE t (x TEXT)"));
  {
    auto s = (*db)->Prepare("INSERT INTO t (x) VALUES (?1)");
    PC_ASSERT_OK(s);
    Status run = s->Bind(2, std::string("lost")).Run();
    EXPECT_FALSE(run.ok());
    EXPECT_NE(run.message().find("cannot bind parameter 2"), std::string::npos) << run.message();
  }
  {
    auto s = (*db)->Prepare("INSERT INTO t (x) VALUES (?1)");
    PC_ASSERT_OK(s);
    PC_ASSERT_OK(s->Bind(1, std::string("kept")).Run());  // the cached statement is clean again
  }
  auto count = (*db)->Prepare("SELECT count(*), min(x) FROM t");
  PC_ASSERT_OK(count);
  auto row = count->Step();
  PC_ASSERT_OK(row);
  EXPECT_EQ(count->Int(0), 1);
  EXPECT_EQ(count->Text(1), "kept");
}

// The full-text upkeep (SqliteStore, kMergeEveryCommits): a memory written in many commits keeps
// its full-text index at a few segments. Without it FTS5 leaves a level's segments until it has 4
// of them: these 120 commits left 17 (measured with the upkeep switched off).
TEST(SqliteStore, TheFullTextIndexIsKeptAtAFewSegments) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's FTS5 segments";
  Fixture f;
  Scope scope = f.memory->CreateScope("project:segments").value().scope;
  const char* words[] = {"importer", "orders",  "cents",   "schema",    "migration",
                         "csv",      "rows",    "decimal", "validator", "client",
                         "deploy",   "release", "config",  "cache"};
  auto text = [&](int64_t i) {
    std::string t = "note " + std::to_string(i);
    for (int w = 0; w < 8; ++w) t += std::string(" ") + words[(i * 7 + w * 3) % 14];
    return t;
  };
  PC_ASSERT_OK(FillMemory(*f.store, scope, 30000, text, nullptr, 250));  // 120 commits
  // The last merges run on the store's own thread: wait for them (20 s at most).
  int64_t segments = 0;
  for (int tries = 0; tries < 200; ++tries) {
    segments = PragmaInt(f.dir.path(), "SELECT count(DISTINCT segid) FROM memory_fts_idx");
    if (segments <= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_LE(segments, 3);
  EXPECT_EQ(PragmaInt(f.dir.path(), "PRAGMA user_version"), sqlite::LatestSchemaVersion());
}

// A full-text plan does not count a phrase the store knows is common in the index (CommonPhrases),
// and knows it exactly: once revisions remove rows, the phrase is counted again. "alpha" is first
// in 505 documents, over the plan's cap of 500: common, so only the newest 200 with it are ranked
// and the oldest (three times "alpha") is not among them. Ten revisions take "alpha" out of ten
// documents, leaving 495: rare, ranked by BM25 over all of them, and the oldest comes first. A memo
// keyed by the document count alone (505 before and after) would still call it common.
TEST(SqliteStore, APhraseKnownCommonIsCountedAgainAfterRowsAreRemoved) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's full-text plan";
  Fixture f;
  Scope scope = f.memory->CreateScope("project:common").value().scope;
  auto text = [](int64_t i) {
    return i == 0 ? std::string("alpha alpha alpha the oldest")
                  : "alpha note number " + std::to_string(i);
  };
  PC_ASSERT_OK(FillMemory(*f.store, scope, 495, text, nullptr, 495));
  std::vector<Citation> fresh;
  for (int i = 0; i < 10; ++i) {
    auto r = f.memory->Remember({scope.scope_id,
                                 "fact",
                                 "alpha fresh remember " + std::to_string(i) + " of ten",
                                 "",
                                 "",
                                 {}});
    PC_ASSERT_OK(r);
    fresh.push_back(*r->citation);
  }
  auto oldest_first = [&]() -> std::optional<bool> {
    std::vector<ReadTxn::TextHit> hits;
    Status s = f.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(
          hits, txn.SearchText(scope.memory_artifact_id, TextQuery{{"alpha"}}, false, 10));
      return Status::Ok();
    });
    if (!s.ok() || hits.empty()) return std::nullopt;
    return hits[0].item.version.text == text(0);
  };
  for (int round = 0; round < 2; ++round)  // counted, then known
    EXPECT_EQ(oldest_first(), std::optional<bool>(false)) << round;
  int64_t head = fresh.back().memory.revision;
  for (int i = 0; i < 10; ++i) {
    Citation current = fresh[i];
    current.memory.revision = head;  // a revise cites the memory's head
    auto r = f.memory->Revise({scope.scope_id,
                               current,
                               "beta fresh remember " + std::to_string(i) + " of ten",
                               std::nullopt,
                               "",
                               "test",
                               {}});
    PC_ASSERT_OK(r);
    head = r->citation->memory.revision;
  }
  for (int round = 0; round < 2; ++round)
    EXPECT_EQ(oldest_first(), std::optional<bool>(true)) << round;
}

// An index's kept lengths belong to one removal count: a snapshot with the same count shares
// them, a newer one (more removals) starts them anew, an older one gets none; other indexes
// are apart; and all are forgotten at once when full.
TEST(DocLengths, KeepsAnIndexsLengthsForOneRemovalCount) {
  sqlite::DocLengths lengths;
  auto at2 = lengths.For(0, 7, 2);
  ASSERT_NE(at2, nullptr);
  at2->Add(100, 12);
  int n = 0;
  ASSERT_TRUE(lengths.For(0, 7, 2)->Find(100, n));
  EXPECT_EQ(n, 12);
  EXPECT_FALSE(lengths.For(1, 7, 2)->Find(100, n));  // the source log of owner 7
  EXPECT_FALSE(lengths.For(0, 8, 2)->Find(100, n));  // another memory
  auto at3 = lengths.For(0, 7, 3);                   // a row was removed since
  ASSERT_NE(at3, nullptr);
  EXPECT_FALSE(at3->Find(100, n));
  EXPECT_EQ(lengths.For(0, 7, 2), nullptr);  // an older snapshot reads without them
  EXPECT_TRUE(at2->Find(100, n));            // what a reader holds stays its snapshot's
  for (int64_t i = 0; i < static_cast<int64_t>(sqlite::DocLengths::kCapacity); ++i) at3->Add(i, 5);
  EXPECT_LT(lengths.size(), sqlite::DocLengths::kCapacity);
  EXPECT_FALSE(lengths.For(0, 7, 3)->Find(1, n));
}

// The lengths a common-word search ranks by are kept between searches (DocLengths), and exactly:
// a revise gives the entry's row a new text under the same rowid, and the next search ranks it by
// its new length. "alpha" is in 600 documents (common: the newest 200 with it are ranked by tf and
// length). The newest holds it once among 30 other words, so 4-word documents outrank it; revised
// to "alpha" alone it is the shortest, and first. A memo keyed by rowid alone would still rank it
// by its 31 words.
TEST(SqliteStore, AKeptDocumentLengthFollowsARevise) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's full-text plan";
  Fixture f;
  Scope scope = f.memory->CreateScope("project:lengths").value().scope;
  PC_ASSERT_OK(FillMemory(
      *f.store, scope, 600, [](int64_t i) { return "alpha note number " + std::to_string(i); },
      nullptr, 600));
  std::string long_text = "alpha";
  for (int w = 0; w < 30; ++w) long_text += " word" + std::to_string(w);
  auto r = f.memory->Remember({scope.scope_id, "fact", long_text, "", "", {}});
  PC_ASSERT_OK(r);
  auto first = [&]() -> std::string {
    std::vector<ReadTxn::TextHit> hits;
    Status s = f.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(
          hits, txn.SearchText(scope.memory_artifact_id, TextQuery{{"alpha"}}, false, 10));
      return Status::Ok();
    });
    return s.ok() && !hits.empty() ? hits[0].item.version.text : "";
  };
  for (int round = 0; round < 2; ++round) {  // read, then kept
    std::string top = first();
    EXPECT_TRUE(top.rfind("alpha note number ", 0) == 0) << round << ": " << top;
  }
  EXPECT_GT(f.sqlite()->text_memo().lengths.size(), 0u);
  auto revised =
      f.memory->Revise({scope.scope_id, *r->citation, "alpha", std::nullopt, "", "test", {}});
  PC_ASSERT_OK(revised);
  for (int round = 0; round < 2; ++round) EXPECT_EQ(first(), "alpha") << round;
}

// Reads go through SQLite's page cache, not a memory map of the database: with a map, every commit
// made each reader unmap all of it at its next read, and those munmap() calls held the process's
// memory-map lock (docs/benchmarks.md, "Searches while writing"). The log's index (-shm) is mapped
// whatever the setting; the database file must not be.
TEST(SqliteStore, ReadsDoNotMapTheDatabaseFile) {
  Fixture f;
  if (!f.sqlite()) GTEST_SKIP() << "SQLite's own page cache";
  const std::string scope_id = f.NewScope();
  for (int i = 0; i < 20; ++i)
    PC_ASSERT_OK(f.memory->Remember(
        {scope_id, "fact", "statement number " + std::to_string(i) + " of the test", "", "", {}}));
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto found, txn.FindScope(scope_id));
    EXPECT_TRUE(found.has_value());
    std::ifstream maps("/proc/self/maps");
    std::string line;
    int mapped = 0;
    while (std::getline(maps, line)) {
      const std::string db = "/powercontext.db";
      mapped +=
          line.size() >= db.size() && line.compare(line.size() - db.size(), db.size(), db) == 0;
    }
    EXPECT_EQ(mapped, 0) << "the database file is memory-mapped";
    return Status::Ok();
  }));
}

// A burst of concurrent reads opens as many connections as it needs; at most kMaxIdleReaders stay
// open after it (each keeps its page cache while idle), and reads go on as before.
TEST(SqliteStore, KeepsABoundedNumberOfIdleReadConnections) {
  Fixture f;
  if (!f.sqlite()) GTEST_SKIP() << "SQLite's own read connections";
  const std::string scope_id = f.NewScope();
  constexpr int kBurst = static_cast<int>(sqlite::kMaxIdleReaders) + 8;
  std::mutex mu;
  std::condition_variable cv;
  int inside = 0;
  std::vector<std::thread> readers;
  for (int i = 0; i < kBurst; ++i)
    readers.emplace_back([&] {
      const Status read = f.store->Read([&](ReadTxn& txn) -> Status {
        std::unique_lock<std::mutex> lock(mu);
        ++inside;
        cv.notify_all();
        cv.wait(lock, [&] { return inside == kBurst; });  // all at once: one connection each
        return txn.FindScope(scope_id).status();
      });
      EXPECT_TRUE(read.ok()) << read.ToString();
    });
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(f.sqlite()->idle_readers(), sqlite::kMaxIdleReaders);
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto found, txn.FindScope(scope_id));
    EXPECT_TRUE(found.has_value());
    return Status::Ok();
  }));
  EXPECT_EQ(f.sqlite()->idle_readers(), sqlite::kMaxIdleReaders);
}

// SQLite's memory statistics take one process-wide mutex on every allocation: the store turns
// them off before SQLite starts, so concurrent searches do not queue on it. A death test runs the
// statement in a fresh process (this binary again), where the store's open is SQLite's first use:
// with the statistics on, the counter below is far from zero after writing 100 kB.
TEST(SqliteDb, SqlitesMemoryStatisticsAreOff) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        testing::TempDir dir;
        auto db = sqlite::Db::Open(dir.path() + "/t.db", 1000, sqlite::OpenMode::kCreate);
        if (!db.ok() ||
            !(*db)->Exec("CREATE TABLE t (x); INSERT INTO t VALUES (zeroblob(100000))").ok())
          std::_Exit(2);
        std::_Exit(sqlite3_memory_used() == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace pc
