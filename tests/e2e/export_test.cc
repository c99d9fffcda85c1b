// `powercontext export store` and `import store` (issue 32, docs/export.md): a store filled
// through the real binary, exported while its server runs, imported into PostgreSQL, exported
// from there, imported into a new SQLite data directory: every row of every table comes back
// identical, and the last server answers reads and searches as the first did, citations reading
// back byte for byte. A file the build does not fully understand is refused before anything is
// written; a non-empty target is refused; a killed import resumes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli_on.h"
#include "common/sha256.h"
#include "fake_openai.h"
#include "portable/import.h"
#include "server_process.h"
#include "store/postgres/pg_conn.h"
#include "test_util.h"

namespace pc::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The file's rows, table by table, each table's rows sorted (the stores keep some tables in
// different orders); the header and the trailer are not rows.
std::map<std::string, std::vector<std::string>> RowsOf(const std::string& path) {
  std::map<std::string, std::vector<std::string>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, false);
    if (j.contains("t")) out[j["t"]].push_back(j["r"].dump());
  }
  for (auto& [table, rows] : out) std::sort(rows.begin(), rows.end());
  return out;
}

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::trunc);
  for (const std::string& l : lines) out << l << "\n";
}

class ExportImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestingPostgres())  // these tests use both stores already
      GTEST_SKIP() << "export and import are tested in the plain suite, on both stores";
  }

  // The arguments of a SQLite server whose extraction model is `model`.
  static std::vector<std::string> Serving(FakeOpenAi& model, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {
        "--store",        "sqlite",          "--extract-provider", "openai", "--extract-base-url",
        model.base_url(), "--extract-model", "fake-chat"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }
  void StartFilled(ServerProcess& server, FakeOpenAi& model, const std::string& data) {
    ASSERT_TRUE(server.Start()) << Slurp(server.log_path());
    Fill(server, model, data);
  }

  // A memory with history in two scopes, sources, a flush that keeps an entry and a graph edge, a
  // handoff, an approved Experience and a pending one, a scope setting, and a token.
  void Fill(ServerProcess& server, FakeOpenAi& model, const std::string& data) {
    json first =
        JsonOn(server, {"remember", "-s", "project:move", "-k", "decision", "Ship on Tuesdays."});
    cite1_ = CitationString(first["entry"]["citation"]);
    entry1_ = first["entry"]["citation"]["entry_id"];
    JsonOn(server, {"remember", "-s", "project:move", "-k", "fact", "从标准输入读取的事实。"});
    json csv = JsonOn(server, {"remember", "-s", "project:move", "-k", "fact",
                               "The importer reads CSV files nightly.", "--valid-until", "30d"});
    JsonOn(server, {"revise", "-s", "project:move", AtHead(server, "project:move", entry1_),
                    "Ship on Wednesdays.", "--reason", "team moved"});
    JsonOn(server, {"retire", "-s", "project:move",
                    AtHead(server, "project:move", csv["entry"]["citation"]["entry_id"]),
                    "--reason", "obsolete"});
    for (int i = 0; i < 6; ++i)
      JsonOn(server, {"remember", "-s", "project:other", "-k", "fact",
                      "Billing closes on day " + std::to_string(i + 1) + " of the month."});
    JsonOn(server, {"source", "add", "-s", "project:move", "Deployed the importer to staging.",
                    "--idempotency-key", "deploy-1", "--metadata", "{\"host\":\"stage-2\"}"});
    model.ScriptChat({{R"({"operations": [{"op": "add", "kind": "fact",
        "text": "Alice owns the importer.", "evidence": ["S1"]}],
        "triples": [{"subject": "Alice", "relation": "owns", "object": "importer",
        "evidence": ["S1"]}]})"}});
    json flushed = JsonOn(server, {"flush", "-s", "project:move"});
    ASSERT_EQ(flushed["status"], "processed") << flushed.dump();
    ASSERT_EQ(RunCli({"scope", "settings", "-s", "project:move", "--set", "expiry=working_note=14d",
                      "--server", server.url()})
                  .exit_code,
              0);
    const json head = JsonOn(server, {"entries", "-s", "project:move"})["entries"][0]["citation"];
    const std::string ref = "memory/" + head["memory_ref"]["artifact_id"].get<std::string>() + "@" +
                            std::to_string(head["memory_ref"]["revision"].get<int64_t>());
    for (const char* lesson : {"Run the import with --strict.", "Check the CSV header first."}) {
      json proposed = JsonOn(server, {"experience", "propose", "-s", "project:move", "--situation",
                                      "A CSV import fails.", "--action", "Re-ran it.", "--outcome",
                                      "It passed.", "--lesson", lesson, "--artifact-ref", ref});
      ASSERT_TRUE(proposed.contains("candidate_id")) << proposed.dump();
      if (lesson[0] == 'R')
        JsonOn(server, {"candidate", "approve", "-s", "project:move",
                        proposed["candidate_id"].get<std::string>(), "--expected-version", "1"});
    }
    // A managed Skill, approved (skill_contents, format version 2).
    json skill = JsonOn(server, {"skill", "propose", "-s", "project:move", "--name", "csv-import",
                                 "--description", "Use when a CSV import fails.", "--instructions",
                                 "1. Check the header.\n2. Re-run with --strict.", "--validation",
                                 "the import passes", "--artifact-ref", ref});
    ASSERT_TRUE(skill.contains("candidate_id")) << skill.dump();
    JsonOn(server, {"candidate", "approve", "-s", "project:move",
                    skill["candidate_id"].get<std::string>(), "--expected-version", "1"});
    ASSERT_NO_FATAL_FAILURE(CommitHandoffCitingFirstEntry(server, "project:move"));
    // The Handoff Report catalog (format version 3): a Project with the scope as its Workstream.
    json project = JsonOn(
        server, {"handoff-report", "project", "create", "--key", "move", "--title", "The move"});
    JsonOn(server, {"handoff-report", "workstream", "register", "--project",
                    project["project_id"].get<std::string>(), "-s", "project:move", "--title",
                    "Moving stores", "--kind", "operations"});
    // Format version 4: a workspace binding and an Activity Event of the Project.
    JsonOn(server, {"handoff-report", "workspace", "attach", "ws_move", "--project",
                    project["project_id"].get<std::string>(), "--provider", "local"});
    JsonOn(server, {"handoff-report", "activity", "record", "--project",
                    project["project_id"].get<std::string>(), "--source", "git_commit", "--event",
                    "c0ffee", "--time-basis", "source_reported", "--occurred-at",
                    "2026-12-01T10:00:00Z", "--workstream", "project:move"});
    ASSERT_EQ(RunCli({"token", "create", "--data", data, "--store", "sqlite", "--name", "agent",
                      "--role", "writer", "--scope", "project:*"})
                  .exit_code,
              0);
  }

  std::string cite1_, entry1_;
};

TEST_F(ExportImportTest, RoundTripSqliteToPostgresToSqliteKeepsEveryRowAndCitation) {
  PC_REQUIRE_TEST_PG();
  const std::string base = std::getenv("POWERCONTEXT_TEST_PG");
  auto admin = pg::Conn::Open(base);
  ASSERT_TRUE(admin.ok()) << admin.status().message();
  const std::string name =
      "pc_export_" + std::to_string(std::random_device{}()) + "_" + std::to_string(::getpid());
  ASSERT_TRUE((*admin)->Exec("CREATE DATABASE " + name).ok());
  struct Drop {
    pg::Conn& c;
    std::string name;
    ~Drop() { (void)c.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); }
  } drop{**admin, name};
  const std::string url = base.substr(0, base.rfind('/') + 1) + name;

  TempDir dir;
  const std::string src = dir.path() + "/src", dst = dir.path() + "/dst";
  const std::string f1 = dir.path() + "/1.jsonl", f2 = dir.path() + "/2.jsonl",
                    f3 = dir.path() + "/3.jsonl";
  FakeOpenAi model;
  ServerProcess first(src, Serving(model, {"--embed-provider", "hash"}));
  StartFilled(first, model, src);
  if (HasFatalFailure()) return;

  // Exported while the server runs (one snapshot).
  CliResult exported = RunCli({"export", "store", "--data", src, "--out", f1, "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  json report = json::parse(exported.out);
  EXPECT_EQ(report["tables"]["scopes"], 2);
  EXPECT_EQ(report["tables"]["entry_versions"], 11);  // 9 remembered, 1 flushed, 1 revised
  EXPECT_EQ(report["tables"]["graph_edges"], 1);
  EXPECT_EQ(report["tables"]["candidate_heads"], 3);  // two Experience, one Skill
  EXPECT_EQ(report["tables"]["experience_contents"], 1);
  EXPECT_EQ(report["tables"]["skill_contents"], 1);
  EXPECT_EQ(report["tables"]["report_projects"], 1);
  EXPECT_EQ(report["tables"]["report_workstreams"], 1);
  EXPECT_EQ(report["tables"]["report_workspace_bindings"], 1);
  EXPECT_EQ(report["tables"]["report_activities"], 1);
  EXPECT_EQ(report["tables"]["report_activity_sequence"], 1);
  EXPECT_EQ(report["tables"]["scope_settings"], 1);
  EXPECT_EQ(report["tables"]["handoff_contents"], 1);
  EXPECT_EQ(report["tables"]["api_tokens"], 1);
  EXPECT_EQ(report["tables"]["last_flush"], 1);
  EXPECT_EQ(report["sha256"].get<std::string>().size(), 64u);

  // Into PostgreSQL, out again, into a new SQLite data directory, out again.
  CliResult to_pg = RunCli(
      {"import", "store", "--store", url, "--data", dir.path() + "/stage1", "--in", f1, "--json"});
  ASSERT_EQ(to_pg.exit_code, 0) << to_pg.err << to_pg.out;
  EXPECT_EQ(json::parse(to_pg.out)["postgresql_copy"], "identical");
  CliResult from_pg = RunCli({"export", "store", "--store", url, "--out", f2});
  ASSERT_EQ(from_pg.exit_code, 0) << from_pg.err;
  CliResult to_sqlite =
      RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f2, "--json"});
  ASSERT_EQ(to_sqlite.exit_code, 0) << to_sqlite.err << to_sqlite.out;
  EXPECT_FALSE(fs::exists(dst + "/import-staging")) << "the staging is removed when done";
  ASSERT_EQ(RunCli({"export", "store", "--data", dst, "--out", f3}).exit_code, 0);

  const auto rows = RowsOf(f1);
  EXPECT_EQ(RowsOf(f2), rows) << "SQLite → PostgreSQL";
  EXPECT_EQ(RowsOf(f3), rows) << "SQLite → PostgreSQL → SQLite";
  EXPECT_EQ(json::parse(Lines(f2).front())["from"]["store"], "postgresql");

  // verify finds every invariant holding on the imported stores.
  CliResult verified = RunCli({"verify", "--data", dst, "--store", "sqlite"});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  CliResult verified_pg = RunCli({"verify", "--store", url});
  EXPECT_EQ(verified_pg.exit_code, 0) << verified_pg.out << verified_pg.err;

  // The last server answers as the first: citations read the same bytes, searches find the same.
  ServerProcess last(dst, {"--store", "sqlite", "--embed-provider", "hash"});
  ASSERT_TRUE(last.Start()) << Slurp(last.log_path());
  for (const std::vector<std::string>& read : std::vector<std::vector<std::string>>{
           {"scope", "list"},
           {"entries", "-s", "project:move"},
           {"entries", "-s", "project:move", "--include-inactive"},
           {"entries", "-s", "project:move", "--revision", "2"},
           {"history", "-s", "project:move"},
           {"history", "-s", "project:move", "--entry", entry1_},
           {"read", "-s", "project:move", cite1_},
           {"source", "list", "-s", "project:move"},
           {"handoff", "show", "-s", "project:move"},
           {"flush", "--last", "-s", "project:move"},
       })
    EXPECT_EQ(JsonOn(first, read), JsonOn(last, read)) << read[0] << " " << read[1];
  EXPECT_EQ(JsonOn(first, {"candidate", "list", "-s", "project:move", "--status", "approved"}),
            JsonOn(last, {"candidate", "list", "-s", "project:move", "--status", "approved"}));
  EXPECT_EQ(JsonOn(first, {"scope", "settings", "-s", "project:move"}),
            JsonOn(last, {"scope", "settings", "-s", "project:move"}));
  EXPECT_EQ(Hits(JsonOn(first, {"search", "-s", "project:move", "Alice", "--mode", "graph"})),
            Hits(JsonOn(last, {"search", "-s", "project:move", "Alice", "--mode", "graph"})));
  EXPECT_FALSE(
      Hits(JsonOn(last, {"search", "-s", "project:move", "Alice", "--mode", "graph"})).empty());
  for (const char* q : {"Wednesdays", "标准输入", "billing month"}) {
    json a = JsonOn(
        first,
        {"search", "-s", q == std::string("billing month") ? "project:other" : "project:move", q});
    json b = JsonOn(
        last,
        {"search", "-s", q == std::string("billing month") ? "project:other" : "project:move", q});
    EXPECT_EQ(Hits(a), Hits(b)) << q;
    EXPECT_FALSE(Hits(b).empty()) << q;
  }
  // Writes go on after the import: the next revision, and the token still works.
  json next = JsonOn(last, {"remember", "-s", "project:move", "-k", "fact", "Freeze on Fridays."});
  const json history = JsonOn(first, {"history", "-s", "project:move"});
  EXPECT_EQ(next["entry"]["citation"]["memory_ref"]["revision"],
            history["head"]["revision"].get<int64_t>() + 1)
      << next.dump();

  // A second import into either target is refused and changes nothing: while its server runs,
  // and after.
  CliResult busy = RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f1});
  EXPECT_EQ(busy.exit_code, 8) << busy.err;
  EXPECT_NE(busy.err.find("stop it first"), std::string::npos) << busy.err;
  last.Stop();
  CliResult again = RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f1});
  EXPECT_EQ(again.exit_code, 4) << again.err;
  EXPECT_NE(again.err.find("already holds data"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("(store_not_empty)"), std::string::npos) << again.err;
  CliResult again_pg =
      RunCli({"import", "store", "--store", url, "--data", dir.path() + "/stage2", "--in", f1});
  EXPECT_EQ(again_pg.exit_code, 4) << again_pg.err;
  EXPECT_NE(again_pg.err.find("nothing was changed"), std::string::npos) << again_pg.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/stage2/import-staging"))
      << "refused before anything was staged";
}

TEST_F(ExportImportTest, OneScopeAloneIntoAnEmptyServer) {
  TempDir dir;
  const std::string src = dir.path() + "/src", dst = dir.path() + "/dst";
  FakeOpenAi model;
  ServerProcess first(src, Serving(model));
  StartFilled(first, model, src);
  if (HasFatalFailure()) return;
  const std::string f = dir.path() + "/move.jsonl";
  CliResult exported =
      RunCli({"export", "store", "--data", src, "--scope", "project:move", "--out", f, "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  json report = json::parse(exported.out);
  EXPECT_EQ(report["scope"]["key"], "project:move");
  EXPECT_EQ(report["tables"]["scopes"], 1);
  EXPECT_EQ(report["tables"]["api_tokens"], 0) << "tokens belong to the server, not a scope";
  ASSERT_EQ(RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f}).exit_code,
            0);
  ServerProcess last(dst, {"--store", "sqlite"});
  ASSERT_TRUE(last.Start());
  EXPECT_EQ(JsonOn(first, {"history", "-s", "project:move"}),
            JsonOn(last, {"history", "-s", "project:move"}));
  EXPECT_EQ(JsonOn(first, {"read", "-s", "project:move", cite1_})["text"],
            JsonOn(last, {"read", "-s", "project:move", cite1_})["text"]);
  EXPECT_EQ(JsonOn(last, {"scope", "list"})["scopes"].size(), 1u);

  CliResult missing =
      RunCli({"export", "store", "--data", src, "--scope", "project:none", "--out", f + ".x"});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_FALSE(fs::exists(f + ".x"));
  CliResult exists = RunCli({"export", "store", "--data", src, "--out", f});
  EXPECT_EQ(exists.exit_code, 2) << exists.err;
  EXPECT_NE(exists.err.find("--force"), std::string::npos) << exists.err;
}

TEST_F(ExportImportTest, AFileNotFullyUnderstoodIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string src = dir.path() + "/src";
  FakeOpenAi model;
  ServerProcess first(src, Serving(model));
  StartFilled(first, model, src);
  if (HasFatalFailure()) return;
  const std::string good = dir.path() + "/good.jsonl";
  ASSERT_EQ(RunCli({"export", "store", "--data", src, "--out", good}).exit_code, 0);
  const std::vector<std::string> lines = Lines(good);
  ASSERT_GT(lines.size(), 20u);

  struct Case {
    std::string name, expect;
    std::function<void(std::vector<std::string>&)> damage;
  };
  const std::vector<Case> cases = {
      {"one changed byte", "SHA-256",
       [](auto& l) {
         for (std::string& x : l)
           if (size_t at = x.find("Wednesdays"); at != std::string::npos) {
             x[at] = 'w';
             return;
           }
       }},
      {"no trailer", "partial", [](auto& l) { l.pop_back(); }},
      {"a newer format", "use a newer powercontext",
       [](auto& l) {
         json h = json::parse(l[0]);
         h["format_version"] = 99;
         l[0] = h.dump();
       }},
      {"an unknown column", "not this build's",
       [](auto& l) {
         json h = json::parse(l[0]);
         h["tables"][0]["columns"].push_back({{"name", "colour"}, {"type", "text"}});
         l[0] = h.dump();
       }},
      {"an unknown table", "not one this build knows",
       [](auto& l) { l.insert(l.begin() + 2, R"({"t":"gossip","r":[]})"); }},
      {"a value of the wrong type", "must be int",
       [](auto& l) {
         json r = json::parse(l[1]);
         r["r"][2] = "yesterday";
         l[1] = r.dump();
       }},
      {"not an export", "not a PowerContext export",
       [](auto& l) { l[0] = R"({"kind":"fact","text":"hello"})"; }},
  };
  for (const Case& c : cases) {
    std::vector<std::string> damaged = lines;
    c.damage(damaged);
    const std::string bad = dir.path() + "/bad.jsonl";
    WriteLines(bad, damaged);
    const std::string target = dir.path() + "/t-" + std::to_string(&c - cases.data());
    CliResult r = RunCli({"import", "store", "--data", target, "--store", "sqlite", "--in", bad});
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find("nothing was changed"), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(target)) << c.name << ": nothing made, not even the directory";
  }
  // A file whose rows are well-formed but break the store's invariants: staged, verified,
  // refused, and the target still empty. A revision's change that names an entry version no row
  // holds.
  {
    // Drop the first entry version, then fix the trailer: a consistent file whose history is
    // broken.
    std::vector<std::string> damaged;
    bool dropped = false;
    Sha256Stream hash;
    int64_t rows = 0;
    for (const std::string& l : lines) {
      json j = json::parse(l);
      if (j.contains("end")) break;
      if (!dropped && j.contains("t") && j["t"] == "entry_versions") {
        dropped = true;
        continue;
      }
      if (j.contains("t")) ++rows;
      damaged.push_back(l);
      hash.Add(l + "\n");
    }
    damaged.push_back(json{{"end", {{"rows", rows}, {"sha256", hash.FinishHex()}}}}.dump());
    const std::string bad = dir.path() + "/broken.jsonl";
    WriteLines(bad, damaged);
    const std::string target = dir.path() + "/broken";
    CliResult r = RunCli({"import", "store", "--data", target, "--store", "sqlite", "--in", bad});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("invariants"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(target)) << "the staging and the directory made for it are removed";
  }
}

// A file of format version 1 (before managed Skills) is read by this build: its header lists the
// tables of version 1, and the tables added since import empty. A version-1 file carrying a
// version-2 table's rows is refused.
TEST_F(ExportImportTest, AnOlderFormatVersionImportsAndATableItCannotHaveIsRefused) {
  TempDir dir;
  const std::string src = dir.path() + "/src";
  FakeOpenAi model;
  ServerProcess first(src, Serving(model));
  StartFilled(first, model, src);
  if (HasFatalFailure()) return;
  const std::string now = dir.path() + "/now.jsonl";
  ASSERT_EQ(RunCli({"export", "store", "--data", src, "--out", now}).exit_code, 0);
  // As version 1 wrote it: no skill_contents in the header or the rows; the trailer recomputed.
  auto as_version_1 = [&](bool keep_skill_rows) {
    std::vector<std::string> out;
    Sha256Stream hash;
    int64_t rows = 0;
    bool skill_rows = false;
    std::set<std::string> skills, skill_candidates;
    for (const std::string& l : Lines(now)) {
      json j = json::parse(l);
      if (j.contains("end")) break;
      if (j.contains("format")) {
        EXPECT_EQ(j["format_version"], 4);
        j["format_version"] = 1;
        json tables = json::array();
        for (const json& t : j["tables"])
          if (t["name"] != "skill_contents" &&
              t["name"].get<std::string>().rfind("report_", 0) != 0)
            tables.push_back(t);
        EXPECT_EQ(tables.size() + 8, j["tables"].size())
            << "versions 2, 3 and 4 added eight tables";
        j["tables"] = tables;
      } else if (j["t"].get<std::string>().rfind("report_", 0) == 0) {
        continue;  // the catalog came with version 3, bindings and activities with 4
      } else if (j["t"] == "skill_contents") {
        skill_rows = true;
        if (!keep_skill_rows) continue;
      } else if (!keep_skill_rows) {
        // Version 1 had no Skill artifacts, revisions or candidates either.
        const json& row = j["r"];
        if (j["t"] == "artifacts" && row[2] == "skill") skills.insert(row[0].get<std::string>());
        if (j["t"] == "candidate_heads" && row[2] == "skill")
          skill_candidates.insert(row[1].get<std::string>());
        if ((j["t"] == "artifacts" || j["t"] == "revisions") &&
            skills.count(row[0].get<std::string>()))
          continue;
        if ((j["t"] == "candidate_heads" || j["t"] == "candidate_versions") &&
            skill_candidates.count(row[1].get<std::string>()))
          continue;
        if (j["t"] == "audit_log") {  // nor the audit rows of their writes
          const std::string text = row.dump();
          bool skill_write = false;
          for (const std::string& id : skills) skill_write |= text.find(id) != std::string::npos;
          for (const std::string& id : skill_candidates)
            skill_write |= text.find(id) != std::string::npos;
          if (skill_write) continue;
        }
      }
      const std::string line = j.dump();
      if (j.contains("t")) ++rows;
      out.push_back(line);
      hash.Add(line + "\n");
    }
    EXPECT_TRUE(skill_rows) << "the filled store has an approved Skill";
    out.push_back(json{{"end", {{"rows", rows}, {"sha256", hash.FinishHex()}}}}.dump());
    return out;
  };
  const std::string old = dir.path() + "/v1.jsonl";
  WriteLines(old, as_version_1(false));
  const std::string target = dir.path() + "/from-v1";
  CliResult r = RunCli({"import", "store", "--data", target, "--store", "sqlite", "--in", old});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RunCli({"verify", "--data", target, "--store", "sqlite"}).exit_code, 0);
  ServerProcess second(target, {"--store", "sqlite"});
  ASSERT_TRUE(second.Start());
  EXPECT_EQ(JsonOn(first, {"history", "-s", "project:move"}),
            JsonOn(second, {"history", "-s", "project:move"}));

  const std::string mixed = dir.path() + "/v1-with-skills.jsonl";
  WriteLines(mixed, as_version_1(true));
  CliResult refused =
      RunCli({"import", "store", "--data", dir.path() + "/t2", "--store", "sqlite", "--in", mixed});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("skill_contents"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/t2"));
}

TEST_F(ExportImportTest, AKilledImportResumesWhereItsLastChunkCommitted) {
  TempDir dir;
  const std::string src = dir.path() + "/src", dst = dir.path() + "/dst";
  FakeOpenAi model;
  ServerProcess first(src, Serving(model));
  StartFilled(first, model, src);
  if (HasFatalFailure()) return;
  const std::string f = dir.path() + "/all.jsonl", again = dir.path() + "/again.jsonl";
  ASSERT_EQ(RunCli({"export", "store", "--data", src, "--out", f}).exit_code, 0);

  // The first run stops after its second chunk of 5 rows has committed, as a kill there would.
  auto file = portable::ReadExportFile(f);
  ASSERT_TRUE(file.ok()) << file.status().message();
  portable::StageOptions stage;
  stage.dir = dst + "/import-staging";
  stage.chunk_rows = 5;
  stage.after_chunk = [](int64_t rows) { return rows >= 10 ? Internal("killed") : Status::Ok(); };
  EXPECT_EQ(portable::Stage(*file, stage).status().message(), "killed");
  EXPECT_FALSE(fs::exists(dst + "/powercontext.db"));

  // The command, run again, goes on from row 10.
  CliResult resumed = RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f,
                              "--chunk-rows", "5", "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(json::parse(resumed.out)["resumed_after_rows"], 10) << resumed.out;
  ASSERT_EQ(RunCli({"export", "store", "--data", dst, "--out", again}).exit_code, 0);
  EXPECT_EQ(RowsOf(again), RowsOf(f));
}

TEST_F(ExportImportTest, NeitherTheStagingNorTheOutputEverTouchesAStore) {
  TempDir dir;
  const std::string src = dir.path() + "/src", dst = dir.path() + "/dst";
  ServerProcess first(src, {"--store", "sqlite"});
  ASSERT_TRUE(first.Start());
  JsonOn(first, {"remember", "-s", "project:move", "-k", "fact", "Ship on Tuesdays."});
  const std::string f = dir.path() + "/all.jsonl";
  ASSERT_EQ(RunCli({"export", "store", "--data", src, "--out", f}).exit_code, 0);
  const std::string db = src + "/powercontext.db";

  // A staging directory that holds a store (here one a server is serving) is never used.
  CliResult other =
      RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f, "--staging", src});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("not an import's staging"), std::string::npos) << other.err;
  // Nor the data directory itself, or one holding it.
  CliResult itself =
      RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f, "--staging", dst});
  EXPECT_EQ(itself.exit_code, 2) << itself.err;
  EXPECT_NE(itself.err.find("holds the data directory"), std::string::npos) << itself.err;
  CliResult parent = RunCli(
      {"import", "store", "--data", dst, "--store", "sqlite", "--in", f, "--staging", dir.path()});
  EXPECT_EQ(parent.exit_code, 2) << parent.err;
  EXPECT_FALSE(fs::exists(dst));
  // An export never writes over the store it reads, --force or not.
  CliResult over = RunCli({"export", "store", "--data", src, "--out", db, "--force"});
  EXPECT_EQ(over.exit_code, 2) << over.err;
  EXPECT_NE(over.err.find("part of the store"), std::string::npos) << over.err;
  // A target whose database cannot be read is not taken for an empty one.
  fs::create_directories(dst);
  { std::ofstream(dst + "/powercontext.db") << "not a database, but someone's file"; }
  CliResult unreadable = RunCli({"import", "store", "--data", dst, "--store", "sqlite", "--in", f});
  EXPECT_NE(unreadable.exit_code, 0) << unreadable.out;
  EXPECT_EQ(Slurp(dst + "/powercontext.db"), "not a database, but someone's file");

  first.Stop();
  const std::string again = dir.path() + "/again.jsonl";
  ASSERT_EQ(RunCli({"export", "store", "--data", src, "--out", again}).exit_code, 0);
  EXPECT_TRUE(RowsOf(again) == RowsOf(f)) << "the source store is as it was";
  EXPECT_EQ(RunCli({"verify", "--data", src, "--store", "sqlite"}).exit_code, 0);
}

}  // namespace
}  // namespace pc::testing
