// GET /v1/stats (RFC 0072) through the real binary with a fake model that reports usage: the
// inventory, every model call counted by purpose with exact token sums (and unknown once the
// provider leaves a count out), nothing counted for a failed flush, recall measured exactly, and
// the CLI's summary.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

struct Http : JsonHttp {
  using JsonHttp::JsonHttp;
  std::pair<int, json> Stats(const std::string& query, std::string* cache_control = nullptr) {
    httplib::Headers headers;
    auto answer = Get("/v1/stats?" + query, &headers);
    if (cache_control) {
      auto it = headers.find("Cache-Control");
      *cache_control = it == headers.end() ? "" : it->second;
    }
    return answer;
  }
};

// The RFC's estimator, written again here: 4 ASCII characters a token, one a non-ASCII character.
int64_t Tokens(const std::string& s) {
  int64_t ascii = 0, other = 0;
  for (unsigned char c : s) {
    if (c < 0x80)
      ++ascii;
    else if ((c & 0xC0) != 0x80)
      ++other;
  }
  return (ascii + 3) / 4 + other;
}

json Usage(int64_t requests, json input, json output) {
  return {{"requests", requests}, {"input_tokens", input}, {"output_tokens", output}};
}

constexpr int kPrompt = 100, kCompletion = 20, kEmbed = 7;

TEST(StatsStory, UsageAndRecallCountedExactly) {
  FakeOpenAi fake(64);
  fake.set_usage({kPrompt, kCompletion, kEmbed});
  TempDir dir;
  ServerProcess server(
      dir.path() + "/data",
      {"--embed-provider", "openai", "--embed-base-url", fake.base_url(), "--embed-model", "fake",
       "--embed-dimension", "64", "--extract-provider", "openai", "--extract-base-url",
       fake.base_url(), "--extract-model", "fake-chat", "--extract-timeout-seconds", "5"});
  ASSERT_TRUE(server.Start());
  Http http(server.port());
  const std::string a = "project:stats-a";

  // Scope A: a remember, a flush, a search and a prepare; each model call reports usage.
  ASSERT_EQ(http.Post("/v1/memory/remember", {{"scope_id", a},
                                              {"kind", "fact"},
                                              {"text", "Amounts are stored as integer cents."}})
                .first,
            200);
  ASSERT_EQ(http.Post("/v1/sources", {{"scope_id", a},
                                      {"kind", "work_log"},
                                      {"content", "We chose Decimal for conversion."}})
                .first,
            201);
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "decision", "text": "Convert with Decimal.", "evidence": ["S1"]}]})"}});
  ASSERT_EQ(http.Post("/v1/memory/flush", {{"scope_id", a}}).first, 200);
  ASSERT_EQ(http.Post("/v1/memory/search", {{"scope_id", a}, {"query", "integer cents"}}).first,
            200);
  ASSERT_EQ(http.Post("/v1/context/prepare", {{"scope_id", a}, {"query", "integer cents"}}).first,
            200);

  // A flush whose model answers nonsense fails: nothing of it is counted, the cursor stays.
  ASSERT_EQ(
      http.Post("/v1/sources", {{"scope_id", a}, {"kind", "work_log"}, {"content", "Second note."}})
          .first,
      201);
  fake.ScriptChat({{"this is not JSON"}});
  EXPECT_EQ(http.Post("/v1/memory/flush", {{"scope_id", a}}).first, 502);
  // A provider that leaves completion_tokens out: that day's output count becomes unknown.
  fake.set_usage({kPrompt, -1, kEmbed});
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "A second note exists.", "evidence": ["S1"]}]})"}});
  ASSERT_EQ(http.Post("/v1/memory/flush", {{"scope_id", a}}).first, 200);

  std::string cache;
  auto [status, s] = http.Stats("scope_id=" + a + "&period=7d", &cache);
  ASSERT_EQ(status, 200) << s.dump();
  EXPECT_EQ(cache, "no-store");
  EXPECT_EQ(s["scope_id"], a);
  EXPECT_EQ(s["inventory"]["sources"],
            json({{"total", 2}, {"memory_processed", 2}, {"memory_pending", 0}}));
  EXPECT_EQ(s["inventory"]["artifacts"],
            json({{"total", 1}, {"by_family", {{{"family", "memory"}, {"total", 1}}}}}));
  EXPECT_EQ(s["inventory"]["memory"]["entries"],
            json({{"total", 3},
                  {"active", 3},
                  {"inactive", 0},
                  {"by_kind",
                   {{{"kind", "decision"}, {"total", 1}, {"active", 1}, {"inactive", 0}},
                    {{"kind", "fact"}, {"total", 2}, {"active", 2}, {"inactive", 0}}}}}));
  EXPECT_EQ(s["inventory"]["candidates"], json({{"total", 0},
                                                {"pending", 0},
                                                {"approved", 0},
                                                {"rejected", 0},
                                                {"by_family", json::array()}}));
  const json& usage = s["usage"];
  // generation: two successful flushes (the failed one not counted); the second omitted output.
  EXPECT_EQ(usage["totals"]["generation"], Usage(2, 2 * kPrompt, nullptr));
  // embedding: remember, two flushed entries, the search's and the prepare's query.
  EXPECT_EQ(usage["totals"]["embedding"], Usage(5, 5 * kEmbed, nullptr));
  ASSERT_EQ(usage["by_purpose"].size(), 3u) << usage["by_purpose"].dump();
  EXPECT_EQ(usage["by_purpose"][0], json({{"purpose", "memory_extraction"},
                                          {"generation", Usage(2, 2 * kPrompt, nullptr)},
                                          {"embedding", Usage(0, 0, 0)}}));
  EXPECT_EQ(usage["by_purpose"][1]["purpose"], "memory_indexing");
  EXPECT_EQ(usage["by_purpose"][1]["embedding"], Usage(3, 3 * kEmbed, nullptr));
  EXPECT_EQ(usage["by_purpose"][2]["purpose"], "memory_recall");
  EXPECT_EQ(usage["by_purpose"][2]["embedding"], Usage(2, 2 * kEmbed, nullptr));
  ASSERT_EQ(usage["daily"].size(), 7u);
  for (size_t i = 0; i + 1 < 7; ++i) {
    EXPECT_EQ(usage["daily"][i]["generation"], Usage(0, 0, 0));
    EXPECT_TRUE(usage["daily"][i]["by_purpose"].empty());
    EXPECT_LT(usage["daily"][i]["date"].get<std::string>(),
              usage["daily"][i + 1]["date"].get<std::string>());
  }
  EXPECT_EQ(usage["daily"][6]["date"], usage["period"]["end_date"]);
  EXPECT_EQ(usage["daily"][6]["generation"], usage["totals"]["generation"]);
  EXPECT_EQ(usage["daily"][6]["by_purpose"], usage["by_purpose"]);
  EXPECT_EQ(s["recall"]["totals"]["preparations"], 1);
  EXPECT_EQ(s["recall"]["totals"]["ready_preparations"], 1);

  // Scope B: one source, one flushed entry citing it; a prepare whose items all stand on it is
  // comparable (baseline: that source once), an empty one is not.
  const std::string b = "project:stats-b";
  const std::string source =
      "The importer rejects rows without a CSV line number; 订单 must carry it.";
  fake.set_usage({kPrompt, kCompletion, kEmbed});
  ASSERT_EQ(
      http.Post("/v1/sources", {{"scope_id", b}, {"kind", "work_log"}, {"content", source}}).first,
      201);
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "constraint", "text": "Import errors carry the CSV line number.", "evidence": ["S1"]}]})"}});
  ASSERT_EQ(http.Post("/v1/memory/flush", {{"scope_id", b}}).first, 200);
  auto prepared = http.Post("/v1/context/prepare",
                            {{"scope_id", b}, {"query", "CSV line number"}, {"mode", "fts"}});
  ASSERT_EQ(prepared.first, 200);
  ASSERT_EQ(prepared.second["status"], "ready");
  auto empty =
      http.Post("/v1/context/prepare", {{"scope_id", b}, {"query", "zzqqxx"}, {"mode", "fts"}});
  ASSERT_EQ(empty.first, 200);
  ASSERT_EQ(empty.second["status"], "empty");
  // Both preparations are counted (their statistics were added up in memory; the read writes them).
  auto sb = http.Stats("scope_id=" + b + "&period=today").second;
  const int64_t baseline = Tokens(source),
                recalled = Tokens(prepared.second["content"].get<std::string>());
  EXPECT_EQ(sb["recall"]["totals"], json({{"preparations", 2},
                                          {"ready_preparations", 1},
                                          {"comparable_preparations", 1},
                                          {"baseline_tokens", baseline},
                                          {"recalled_tokens", recalled},
                                          {"token_reduction", baseline - recalled}}));
  EXPECT_EQ(sb["recall"]["daily"].size(), 1u);
  EXPECT_EQ(sb["recall"]["estimator"],
            json({{"estimator_id", "powercontext.chars.v1"}, {"version", "1"}}));
  EXPECT_EQ(sb["usage"]["totals"]["generation"], Usage(1, kPrompt, kCompletion));

  // Errors: 422 invalid_request; an unknown scope is zeros, and reading it creates nothing.
  for (const std::string& q : std::vector<std::string>{
           "period=today", "scope_id=%20", "scope_id=" + a + "&period=1y",
           "scope_id=" + a + "&colour=red", "scope_id=" + std::string(257, 'x')}) {
    auto bad = http.Stats(q);
    EXPECT_EQ(bad.first, 422) << q;
    EXPECT_EQ(bad.second["error"]["code"], "invalid_request") << q;
  }
  auto unknown = http.Stats("scope_id=project:never&period=30d").second;
  EXPECT_EQ(unknown["inventory"]["memory"]["entries"]["total"], 0);
  EXPECT_EQ(unknown["usage"]["daily"].size(), 30u);
  auto scopes = httplib::Client("127.0.0.1", server.port()).Get("/v1/scopes?key=project:never");
  ASSERT_TRUE(scopes);
  EXPECT_EQ(json::parse(scopes->body)["scopes"].size(), 0u) << scopes->body;

  // The CLI's summary: unknown token counts read "unknown".
  CliResult cli = RunCli({"stats", "--scope", a, "--period", "7d", "--server", server.url()});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_NE(cli.out.find("generation: 2 requests, 200 input tokens, unknown output tokens"),
            std::string::npos)
      << cli.out;
  CliResult cli_json = RunCli({"stats", "--scope", a, "--json", "--server", server.url()});
  EXPECT_EQ(json::parse(cli_json.out)["usage"]["period"]["preset"], "30d");
  EXPECT_EQ(
      RunCli({"stats", "--scope", a, "--period", "1y", "--server", server.url()}).exit_code != 0,
      true);
}

// Issue 28 (3): reads never write on the request path. Statistics are added up in memory and
// written once per statistics_interval_seconds (here an hour, so the test sees between two
// flushes): searches and prepares leave the database files as they were; GET /v1/stats writes what
// is pending first (read your writes); a stop writes the rest.
TEST(StatsStory, ReadsLeaveTheDatabaseAsItWasBetweenFlushes) {
  if (TestingPostgres()) GTEST_SKIP() << "looks at the SQLite data directory's files";
  TempDir dir;
  const std::string data = dir.path() + "/data";
  auto serve = [&] {
    auto server = std::make_unique<ServerProcess>(
        data, std::vector<std::string>{"--statistics-interval-seconds", "3600"});
    EXPECT_TRUE(server->Start());
    return server;
  };
  auto server = serve();
  Http http(server->port());
  const std::string scope = "project:reads";
  for (const char* text : {"Run contract tests after the schema migration.", "订单金额使用整数分。",
                           "The importer rejects rows without a CSV line number."})
    ASSERT_EQ(
        http.Post("/v1/memory/remember", {{"scope_id", scope}, {"kind", "fact"}, {"text", text}})
            .first,
        200);
  auto files = [&] {
    std::string out;
    for (const char* name : {"/powercontext.db", "/powercontext.db-wal"}) {
      struct stat st {};
      if (stat((data + name).c_str(), &st) == 0)
        out += std::string(name) + ":" + std::to_string(st.st_size) + "@" +
               std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + " ";
    }
    return out;
  };
  // The writes' own upkeep runs after them, off the request path (the full-text merge once
  // writes pause, SqliteStore): the files settle first (unchanged for 500 ms; 10 s at most).
  std::string before = files();
  for (int quiet_ms = 0, waited_ms = 0; quiet_ms < 500 && waited_ms < 10000;
       quiet_ms += 50, waited_ms += 50) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (std::string now = files(); now != before) {
      before = now;
      quiet_ms = 0;
    }
  }
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(
        http.Post("/v1/memory/search", {{"scope_id", scope}, {"query", "contract tests"}}).first,
        200);
    ASSERT_EQ(
        http.Post("/v1/context/prepare", {{"scope_id", scope}, {"query", "CSV line number"}}).first,
        200);
  }
  EXPECT_EQ(files(), before) << "a read wrote to the database";
  auto stats = http.Stats("scope_id=" + scope + "&period=today").second;
  EXPECT_EQ(stats["recall"]["totals"]["preparations"], 5) << stats.dump();
  EXPECT_NE(files(), before);
  // Pending at the stop: written then.
  ASSERT_EQ(http.Post("/v1/context/prepare", {{"scope_id", scope}, {"query", "订单"}}).first, 200);
  ASSERT_EQ(server->Stop(), 0);
  server = serve();
  Http again(server->port());
  EXPECT_EQ(
      again.Stats("scope_id=" + scope + "&period=today").second["recall"]["totals"]["preparations"],
      6);
}

}  // namespace
}  // namespace pc::testing
