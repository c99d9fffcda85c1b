// `powercontext migrate --from DIR --to postgresql://…` (issue 15, docs/deploy.md): a SQLite data
// directory filled through the real binary, moved into PostgreSQL, then served from there: the
// same answers as the SQLite server (searches, history, citations, sources, the handoff, tokens,
// the audit log), and writes continue. A target with data is refused and left as it was; a copy
// that does not verify is rolled back whole. Against the cluster of POWERCONTEXT_TEST_PG (each
// test in a database of its own): without it these tests skip, saying so, except in CI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "cli_on.h"
#include "fake_openai.h"
#include "server_process.h"
#include "service/core/actor.h"
#include "service/flush/source_service.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_import.h"
#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

class MigrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestingPostgres())  // these tests use both stores already; the "pg:" run would repeat them
      GTEST_SKIP() << "migrate's tests run in the plain suite (they move SQLite into PostgreSQL)";
    PC_REQUIRE_TEST_PG();
    base_ = std::getenv("POWERCONTEXT_TEST_PG");
    auto admin = pg::Conn::Open(base_);
    ASSERT_TRUE(admin.ok()) << admin.status().message();
    admin_ = std::move(admin).value();
    name_ =
        "pc_migrate_" + std::to_string(std::random_device{}()) + "_" + std::to_string(::getpid());
    ASSERT_TRUE(admin_->Exec("CREATE DATABASE " + name_).ok());
    url_ = base_.substr(0, base_.rfind('/') + 1) + name_;
  }
  void TearDown() override {
    if (admin_ && !name_.empty())
      (void)admin_->Exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  }

  // Rows of every table of the target (-1: no such table yet).
  std::map<std::string, int64_t> TargetCounts() {
    std::map<std::string, int64_t> out;
    auto c = pg::Conn::Open(url_);
    EXPECT_TRUE(c.ok()) << c.status().message();
    if (!c.ok()) return out;
    for (const char* t : {"scopes",
                          "artifacts",
                          "revisions",
                          "revision_changes",
                          "entries",
                          "entry_versions",
                          "manifest",
                          "entry_vectors",
                          "sources",
                          "cursors",
                          "handoff_contents",
                          "handoff_claims",
                          "handoff_citations",
                          "model_usage_daily",
                          "recall_token_daily",
                          "api_tokens",
                          "audit_log",
                          "text_docs",
                          "text_postings",
                          "text_stats"}) {
      auto rows = (*c)->Query(std::string("SELECT count(*) FROM ") + t);
      out[t] = rows.ok() ? rows->Int(0, 0) : -1;
    }
    return out;
  }

  std::string base_, url_, name_;
  std::unique_ptr<pg::Conn> admin_;
};

TEST_F(MigrateTest, CopiesEverythingAndThePostgresServerAnswersAlike) {
  TempDir dir;
  const std::string src = dir.path() + "/sqlite", dst = dir.path() + "/pg";
  // Offline lexical vectors (the hash embedder), so vectors are moved too.
  FakeOpenAi model;  // for one flush, so the last-flush record moves too
  ServerProcess sqlite(
      src, {"--store", "sqlite", "--embed-provider", "hash", "--extract-provider", "openai",
            "--extract-base-url", model.base_url(), "--extract-model", "fake-chat"});
  ASSERT_TRUE(sqlite.Start());

  // A memory with a revision history: adds, a revise, a retire; text in two scripts.
  json first =
      JsonOn(sqlite, {"remember", "-s", "project:move", "-k", "decision", "Ship on Tuesdays."});
  const std::string cite1 = CitationString(first["entry"]["citation"]);
  const std::string entry1 = first["entry"]["citation"]["entry_id"];
  JsonOn(sqlite, {"remember", "-s", "project:move", "-k", "fact", "从标准输入读取的事实。"});
  json csv = JsonOn(sqlite, {"remember", "-s", "project:move", "-k", "fact",
                             "The importer reads CSV files nightly."});
  json revised =
      JsonOn(sqlite, {"revise", "-s", "project:move", AtHead(sqlite, "project:move", entry1),
                      "Ship on Wednesdays.", "--reason", "team moved"});
  ASSERT_TRUE(revised.contains("entry")) << revised.dump();
  JsonOn(sqlite, {"retire", "-s", "project:move",
                  AtHead(sqlite, "project:move", csv["entry"]["citation"]["entry_id"]), "--reason",
                  "obsolete"});
  JsonOn(sqlite, {"remember", "-s", "project:other", "-k", "fact",
                  "Billing closes on the first of the month."});
  // Sources, one with an idempotency key and metadata.
  JsonOn(sqlite, {"source", "add", "-s", "project:move", "Deployed the importer to staging.",
                  "--idempotency-key", "deploy-1", "--metadata", "{\"host\":\"stage-2\"}"});
  JsonOn(sqlite, {"source", "add", "-s", "project:move", "-k", "chat",
                  "Customers asked about Wednesday releases."});
  // A flush whose model keeps nothing: the cursor moves, no revision, and the flush is recorded.
  model.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Invented.", "evidence": ["S9"]}]})"}});
  json flushed = JsonOn(sqlite, {"flush", "-s", "project:move"});
  ASSERT_EQ(flushed["status"], "processed") << flushed.dump();
  ASSERT_EQ(flushed["rejected"].size(), 1u) << flushed.dump();
  // A handoff citing the revised entry.
  ASSERT_NO_FATAL_FAILURE(CommitHandoffCitingFirstEntry(sqlite, "project:move"));
  // Tokens on the data directory (while the server runs): one live, one revoked.
  CliResult agent = RunCli({"token", "create", "--data", src, "--store", "sqlite", "--name",
                            "agent", "--role", "writer", "--scope", "project:*", "--json"});
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  const std::string agent_secret = json::parse(agent.out)["token"];
  ASSERT_EQ(RunCli({"token", "create", "--data", src, "--store", "sqlite", "--name", "old",
                    "--role", "reader"})
                .exit_code,
            0);
  ASSERT_EQ(RunCli({"token", "revoke", "--data", src, "--store", "sqlite", "old"}).exit_code, 0);

  // Moved while the SQLite server still runs (the store is only read).
  CliResult moved = RunCli({"migrate", "--from", src, "--to", url_, "--json"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err << moved.out;
  json report = json::parse(moved.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << moved.out;
  EXPECT_EQ(report["committed"], true);
  EXPECT_EQ(report["verification"]["result"], "identical");
  EXPECT_EQ(report["tables"]["scopes"], 2);
  EXPECT_EQ(report["tables"]["entry_versions"], 5);  // 4 remembered, 1 revised
  EXPECT_EQ(report["tables"]["sources"], 2);
  EXPECT_EQ(report["tables"]["handoff_contents"], 1);
  EXPECT_EQ(report["tables"]["api_tokens"], 2);
  EXPECT_EQ(report["tables"]["last_flush"], 1);
  EXPECT_GT(report["tables"]["audit_log"].get<int64_t>(), 8);
  EXPECT_EQ(report["verification"]["manifests"], 6);  // project:move r1..r5, project:other r1
  EXPECT_EQ(report["verification"]["entry_versions"], 5);
  EXPECT_EQ(report["verification"]["tokens"], 2);
  EXPECT_EQ(report["verification"]["vector_rows"], 4);  // one per entry, at its head version
  EXPECT_EQ(report["verification"]["audit_rows"], report["tables"]["audit_log"]);
  EXPECT_EQ(report["full_text"]["memory_documents"], 4);  // head entries, the retired one too
  EXPECT_EQ(report["full_text"]["source_documents"], 2);
  EXPECT_EQ(report["to"].get<std::string>().find(name_) != std::string::npos, true);

  ServerProcess postgres(dst, {"--store", url_, "--embed-provider", "hash"});
  ASSERT_TRUE(postgres.Start()) << Slurp(postgres.log_path());

  // Reads through both servers agree.
  for (const std::vector<std::string>& read : std::vector<std::vector<std::string>>{
           {"scope", "list"},
           {"entries", "-s", "project:move"},
           {"entries", "-s", "project:move", "--include-inactive"},
           {"entries", "-s", "project:move", "--revision", "2"},
           {"history", "-s", "project:move"},
           {"history", "-s", "project:move", "--revision", "4"},
           {"history", "-s", "project:move", "--entry", entry1},
           {"read", "-s", "project:move", cite1},
           {"source", "list", "-s", "project:move"},
           {"handoff", "show", "-s", "project:move"},
           {"handoff", "history", "-s", "project:move"},
           {"token", "list"},
           {"audit"},
           {"flush", "--last", "-s", "project:move"},
       })
    EXPECT_EQ(JsonOn(sqlite, read), JsonOn(postgres, read))
        << read[0] << " " << (read.size() > 1 ? read[1] : "");
  for (const std::vector<std::string>& search : std::vector<std::vector<std::string>>{
           {"search", "-s", "project:move", "Wednesdays", "--include-inactive"},
           {"search", "-s", "project:move", "标准输入"},
           {"search", "-s", "project:move", "importer CSV", "--include-inactive"},
           {"search", "-s", "project:move", "importer CSV"},
           {"search", "-s", "project:other", "billing"},
           {"search", "-s", "project:move", "shipping day", "--mode", "vector"},
           {"search", "-s", "project:move", "ship Wednesdays", "--mode", "hybrid"},
       }) {
    json a = JsonOn(sqlite, search), b = JsonOn(postgres, search);
    EXPECT_EQ(Hits(a), Hits(b)) << search[3];
    EXPECT_FALSE(Hits(b).empty() && search[3] != "importer CSV") << search[3] << ": " << b.dump();
  }
  // The sources' full text: `prepare` brings matching sources as experience.
  json pa = JsonOn(sqlite, {"prepare", "-s", "project:move", "staging deploy"});
  json pb = JsonOn(postgres, {"prepare", "-s", "project:move", "staging deploy"});
  EXPECT_NE(pb.dump().find("Deployed the importer to staging."), std::string::npos) << pb.dump();
  EXPECT_EQ(pa.dump().find("Deployed the importer to staging.") != std::string::npos,
            pb.dump().find("Deployed the importer to staging.") != std::string::npos);

  // Writes continue on PostgreSQL: the next revision, a new document number, a new audit row.
  json next = JsonOn(postgres, {"remember", "-s", "project:move", "-k", "fact",
                                "Wednesday releases need a freeze."});
  EXPECT_EQ(next["entry"]["citation"]["memory_ref"]["revision"], 6) << next.dump();
  json found = JsonOn(postgres, {"search", "-s", "project:move", "freeze"});
  ASSERT_EQ(found["hits"].size(), 1u) << found.dump();
  EXPECT_EQ(JsonOn(postgres, {"read", "-s", "project:move", cite1})["text"],
            JsonOn(sqlite, {"read", "-s", "project:move", cite1})["text"]);
  CliResult token = RunCli(
      {"token", "create", "--data", dst, "--store", url_, "--name", "later", "--role", "reader"});
  EXPECT_EQ(token.exit_code, 0) << token.err;

  // A second migrate into the same database is refused, and changes nothing. The PostgreSQL
  // server stops first: it flushes its read counters (recall_token_daily) on a timer, which would
  // change the counts below on its own.
  postgres.Stop();
  JsonOn(sqlite, {"remember", "-s", "project:move", "-k", "fact", "Written after the move."});
  const auto before = TargetCounts();
  CliResult again = RunCli({"migrate", "--from", src, "--to", url_});
  EXPECT_EQ(again.exit_code, 4) << again.err << again.out;
  EXPECT_NE(again.err.find("already holds data"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("nothing was changed"), std::string::npos) << again.err;
  EXPECT_EQ(TargetCounts(), before);
}

TEST_F(MigrateTest, BadArgumentsAreClearErrors) {
  TempDir dir;
  const std::string src = dir.path() + "/sqlite";
  ASSERT_EQ(RunCli({"token", "create", "--data", src, "--store", "sqlite", "--name", "a", "--role",
                    "admin"})
                .exit_code,
            0);

  CliResult no_store = RunCli({"migrate", "--from", dir.path() + "/nothing-here", "--to", url_});
  EXPECT_EQ(no_store.exit_code, 3) << no_store.err;
  EXPECT_NE(no_store.err.find("no PowerContext store"), std::string::npos) << no_store.err;

  CliResult unreachable =
      RunCli({"migrate", "--from", src, "--to", "postgresql://nobody:secret@127.0.0.1:1/none"});
  EXPECT_EQ(unreachable.exit_code, 7) << unreachable.err;
  EXPECT_NE(unreachable.err.find("cannot connect to PostgreSQL"), std::string::npos)
      << unreachable.err;
  EXPECT_EQ(unreachable.err.find("secret"), std::string::npos)
      << "the password is never shown: " << unreachable.err;

  CliResult not_pg = RunCli({"migrate", "--from", src, "--to", "mysql://127.0.0.1/db"});
  EXPECT_EQ(not_pg.exit_code, 2) << not_pg.err;
  EXPECT_NE(not_pg.err.find("postgresql://"), std::string::npos) << not_pg.err;

  // A store an older build wrote (schema 4) is not upgraded here: the source is only read.
  const std::string old = dir.path() + "/old";
  std::filesystem::create_directories(old);
  {
    auto db = sqlite::Db::Open(old + "/powercontext.db", 1000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    ASSERT_TRUE(sqlite::MigrateTo(**db, 4).ok());
  }
  CliResult older = RunCli({"migrate", "--from", old, "--to", url_});
  EXPECT_EQ(older.exit_code, 2) << older.err;
  EXPECT_NE(older.err.find("schema version 4, older than"), std::string::npos) << older.err;

  CliResult usage = RunCli({"migrate", "--from", src});
  EXPECT_EQ(usage.exit_code, 2) << usage.err;

  // None of these touched the target.
  for (const auto& [table, rows] : TargetCounts()) EXPECT_LE(rows, 0) << table;
}

// A copy that does not verify is rolled back whole: each corruption, made inside the migration's
// transaction after the copy, is found, and the target stays empty; then a clean run commits.
TEST_F(MigrateTest, ACopyThatDoesNotVerifyIsRolledBack) {
  TempDir dir;
  {
    sqlite::SqliteOptions options;
    options.data_dir = dir.path();
    auto store = sqlite::SqliteStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    MemoryService memory(**store, {});
    auto scope = memory.CreateScope("project:rollback");
    ASSERT_TRUE(scope.ok());
    const std::string id = scope->scope.scope_id;
    auto a = memory.Remember({id, "fact", "Alpha ships first.", "", "local", std::nullopt, {}, ""});
    ASSERT_TRUE(a.ok()) << a.status().message();
    auto b = memory.Remember({id, "fact", "Beta ships second.", "", "local", std::nullopt, {}, ""});
    ASSERT_TRUE(b.ok()) << b.status().message();
    const Citation head{b->memory, a->citation->entry_id, a->citation->entry_version_id};
    auto revised =
        memory.Revise({id, head, "Alpha ships last.", std::nullopt, "", "local", {}, ""});
    ASSERT_TRUE(revised.ok()) << revised.status().message();
    ASSERT_TRUE((*store)
                    ->Write(RequestActor(),
                            [](WriteTxn& txn) {
                              return txn.CreateToken(ApiToken{"agent",
                                                              "writer",
                                                              {"project:*"},
                                                              std::string(64, 'a'),
                                                              "local",
                                                              1,
                                                              std::nullopt,
                                                              std::nullopt});
                            })
                    .ok());
    SourceService sources(**store);
    ASSERT_TRUE(
        sources.Add(id, {SourceInput{"work_log", "", "Alpha was tested.", "{}", std::nullopt}})
            .ok());
  }
  struct Corruption {
    const char* sql;
    const char* found;  // in the error
  };
  const Corruption corruptions[] = {
      {"UPDATE entry_versions SET text = text || ' ' WHERE entry_version_id = (SELECT "
       "min(entry_version_id) FROM entry_versions)",
       "text"},
      {"UPDATE manifest SET active = NOT active WHERE to_revision IS NULL AND entry_id = (SELECT "
       "min(entry_id) FROM manifest)",
       "manifest"},
      {"UPDATE sources SET content = content || '!'", "source"},
      {"UPDATE revisions SET reason = 'forged' WHERE revision = 1", "revision"},
      {"UPDATE text_docs SET retired = NOT retired WHERE kind = 0 AND doc = (SELECT min(doc) FROM "
       "text_docs WHERE kind = 0)",
       "full-text"},
      {"DELETE FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)", "audit_log"},
      {"UPDATE entry_vectors SET active = NOT active WHERE entry_id = (SELECT min(entry_id) FROM "
       "entry_vectors)",
       "vector row"},
      {"UPDATE api_tokens SET role = 'admin'", "token"},
  };
  for (const Corruption& c : corruptions) {
    pg::ImportOptions options;
    options.from_dir = dir.path();
    options.to_url = url_;
    options.before_verify = [&](pg::Conn& conn) { return conn.Exec(c.sql); };
    auto failed = pg::ImportSqlite(options);
    ASSERT_FALSE(failed.ok()) << c.sql;
    EXPECT_EQ(failed.status().code(), Code::kInternal) << failed.status().message();
    EXPECT_NE(failed.status().message().find("verification failed"), std::string::npos)
        << failed.status().message();
    EXPECT_NE(failed.status().message().find(c.found), std::string::npos)
        << failed.status().message();
    for (const auto& [table, rows] : TargetCounts())
      EXPECT_EQ(rows, 0) << table << " after " << c.sql;
  }
  pg::ImportOptions options;
  options.from_dir = dir.path();
  options.to_url = url_;
  auto done = pg::ImportSqlite(options);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(done->verified.manifests, 3);
  EXPECT_EQ(done->verified.entry_versions, 3);
  EXPECT_EQ(TargetCounts()["scopes"], 1);
}

}  // namespace
}  // namespace pc::testing
