// Sources and flush through the real binary: HTTP routes and their errors, the seed's example,
// a crash while the model is thinking (nothing committed, the cursor where it was), and the CLI.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

using Http = JsonHttp;

TEST(FlushStory, SourcesAndFlushOverHttp) {
  TempDir dir;
  FakeOpenAi fake;
  ServerProcess server(dir.path() + "/data", ChatFlags(fake));
  ASSERT_TRUE(server.Start());
  Http http(server.port());
  std::string scope =
      http.Post("/v1/scopes", {{"key", "project:orders-importer"}}).second["scope_id"];
  auto e1 = http.Post(
      "/v1/memory/remember",
      {{"scope_id", scope}, {"kind", "fact"}, {"text", "amount: stored as integer cents"}});
  ASSERT_EQ(e1.first, 200);

  // Bad inputs: clear errors, nothing appended.
  EXPECT_EQ(http.Post("/v1/sources", {{"scope_id", scope}, {"kind", "work_log"}}).first, 422);
  EXPECT_EQ(http.Post("/v1/sources", {{"scope_id", scope},
                                      {"kind", "work_log"},
                                      {"content", "x"},
                                      {"metadata", "not an object"}})
                .first,
            422);
  EXPECT_EQ(
      http.Post("/v1/sources",
                {{"scope_id", scope}, {"kind", "work_log"}, {"content", "x"}, {"colour", "red"}})
          .first,
      422);
  EXPECT_EQ(http.Post("/v1/sources", {{"scope_id", "scp_01JDZZZZZZZZZZZZZZZZZZZZZZ"},
                                      {"kind", "work_log"},
                                      {"content", "x"}})
                .first,
            422);
  auto bad_batch =
      http.Post("/v1/sources/batch",
                {{"scope_id", scope},
                 {"sources", {{{"kind", "chat"}, {"content", "ok"}}, {{"kind", "chat"}}}}});
  EXPECT_EQ(bad_batch.first, 422);
  EXPECT_EQ(bad_batch.second["error"]["details"]["field"], "sources[1].content");
  EXPECT_EQ(http.Get("/v1/sources?scope_id=" + scope).second["high_watermark"], 0);

  auto s1 =
      http.Post("/v1/sources", {{"scope_id", scope},
                                {"kind", "work_log"},
                                {"content", "conversion now uses Decimal, still integer cents"},
                                {"metadata", {{"session", "a"}}},
                                {"idempotency_key", "k1"}});
  ASSERT_EQ(s1.first, 201);
  EXPECT_EQ(s1.second["position"], 1);
  auto again =
      http.Post("/v1/sources", {{"scope_id", scope},
                                {"kind", "work_log"},
                                {"content", "conversion now uses Decimal, still integer cents"},
                                {"idempotency_key", "k1"}});
  EXPECT_EQ(again.first, 200);
  EXPECT_EQ(again.second["source_id"], s1.second["source_id"]);
  auto batch = http.Post(
      "/v1/sources/batch",
      {{"scope_id", scope},
       {"sources",
        {{{"kind", "work_log"}, {"content", "import errors must include the CSV line number"}},
         {{"kind", "tool_output"}, {"purpose", "archive"}, {"content", "raw log"}}}}});
  ASSERT_EQ(batch.first, 201);
  EXPECT_EQ(batch.second["sources"][1]["position"], 3);
  auto listed = http.Get("/v1/sources?scope_id=" + scope + "&after=1&limit=1");
  EXPECT_EQ(listed.first, 200);
  EXPECT_EQ(listed.second["sources"][0]["position"], 2);
  EXPECT_EQ(listed.second["next_after"], 2);
  EXPECT_EQ(listed.second["high_watermark"], 3);

  fake.ScriptChat({{R"({"operations": [
      {"op": "revise", "target": "E1", "text": "amount: integer cents; conversion uses Decimal", "evidence": ["S1"]},
      {"op": "add", "kind": "constraint", "text": "Import errors must include the CSV line number.", "evidence": ["S2"]},
      {"op": "add", "kind": "fact", "text": "Made up", "evidence": ["S3"]}]})"}});
  auto flushed = http.Post("/v1/memory/flush", {{"scope_id", scope}, {"explain", true}});
  ASSERT_EQ(flushed.first, 200) << flushed.second.dump();
  const json& f = flushed.second;
  EXPECT_EQ(f["status"], "processed");
  EXPECT_EQ(f["previous_cursor"], 0);
  EXPECT_EQ(f["current_cursor"], 3);
  EXPECT_EQ(f["processed_source_count"], 2);  // the archive source is not shown
  EXPECT_EQ(f["memory"]["revision"], 2);
  ASSERT_EQ(f["changes"].size(), 2u);
  EXPECT_EQ(f["changes"][0]["op"], "revise");
  EXPECT_EQ(f["changes"][0]["entry"]["version"], 2);
  EXPECT_EQ(f["changes"][0]["entry"]["source_refs"][0], s1.second["source_ref"]);
  EXPECT_EQ(f["changes"][1]["entry"]["source_refs"][0], batch.second["sources"][0]["source_ref"]);
  EXPECT_EQ(s1.second["source_ref"], "source/k1@1");  // the id it was given, as its idempotency key
  // The same id with other content is no retry: 409, nothing appended.
  auto reused = http.Post(
      "/v1/sources",
      {{"scope_id", scope}, {"kind", "work_log"}, {"content", "other"}, {"idempotency_key", "k1"}});
  EXPECT_EQ(reused.first, 409);
  EXPECT_EQ(reused.second["error"]["code"], "source_conflict");
  ASSERT_EQ(f["rejected"].size(), 1u);
  EXPECT_EQ(f["rejected"][0]["candidate"]["text"], "Made up");
  auto idle = http.Post("/v1/memory/flush", {{"scope_id", scope}});
  EXPECT_EQ(idle.second["status"], "idle");
  EXPECT_EQ(http.Post("/v1/memory/flush", {{"scope_id", scope}, {"window", 3}}).first, 422);

  // A model that answers HTTP 500: 502 provider_error, nothing committed.
  http.Post("/v1/sources", {{"scope_id", scope}, {"kind", "work_log"}, {"content", "more"}});
  fake.ScriptChat({{"", 500}, {"", 500}, {"", 500}});
  auto failed = http.Post("/v1/memory/flush", {{"scope_id", scope}});
  EXPECT_EQ(failed.first, 502);
  EXPECT_EQ(failed.second["error"]["code"], "provider_error");
  EXPECT_EQ(http.Get("/v1/memory/revisions?scope_id=" + scope).second["head"]["revision"], 2);
}

TEST(FlushStory, CrashWhileTheModelThinksCommitsNothing) {
  TempDir dir;
  FakeOpenAi fake;
  ServerProcess server(dir.path() + "/data", ChatFlags(fake));
  ASSERT_TRUE(server.Start());
  Http http(server.port());
  std::string scope = http.Post("/v1/scopes", {{"key", "crash"}}).second["scope_id"];
  http.Post("/v1/sources", {{"scope_id", scope}, {"kind", "work_log"}, {"content", "keep this"}});
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Kept.", "evidence": ["S1"]}]})",
        200, 1500}});
  std::thread flusher([&] {
    Http other(server.port());
    other.Post("/v1/memory/flush", {{"scope_id", scope}});  // the server dies under it
  });
  while (fake.chat_requests() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  server.Kill();
  flusher.join();

  ServerProcess restarted(dir.path() + "/data", ChatFlags(fake));
  ASSERT_TRUE(restarted.Start());
  Http after(restarted.port());
  EXPECT_EQ(after.Get("/v1/memory/revisions?scope_id=" + scope).second["head"]["revision"], 0);
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Kept.", "evidence": ["S1"]}]})"}});
  auto flushed = after.Post("/v1/memory/flush", {{"scope_id", scope}});
  ASSERT_EQ(flushed.first, 200);
  EXPECT_EQ(flushed.second["previous_cursor"], 0);  // the window was not lost or half-done
  EXPECT_EQ(flushed.second["current_cursor"], 1);
  EXPECT_EQ(flushed.second["memory"]["revision"], 1);
}

TEST(FlushStory, TheSchedulerFlushesPendingScopes) {
  TempDir dir;
  FakeOpenAi fake;
  auto flags = ChatFlags(fake);
  flags.insert(flags.end(), {"--memory-schedule-seconds", "1", "--source-window-limit", "2"});
  ServerProcess server(dir.path() + "/data", flags);
  ASSERT_TRUE(server.Start());
  Http http(server.port());
  std::string scope = http.Post("/v1/scopes", {{"key", "scheduled"}}).second["scope_id"];
  for (int i = 0; i < 3; ++i)
    http.Post(
        "/v1/sources",
        {{"scope_id", scope}, {"kind", "work_log"}, {"content", "record " + std::to_string(i)}});
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "From the scheduler.", "evidence": ["S1"]}]})"}});
  // Only the scheduler calls the model here: windows of 2, so two flushes catch up.
  for (int i = 0; i < 100 && fake.chat_requests() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(fake.chat_requests(), 2) << "the scheduler did not catch up within 10 s";
  json idle;
  for (int i = 0; i < 50; ++i) {  // its second commit may still be landing
    idle = http.Post("/v1/memory/flush", {{"scope_id", scope}}).second;
    if (idle["current_cursor"] == 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(idle["status"], "idle");
  EXPECT_EQ(idle["current_cursor"], 3);
  EXPECT_EQ(idle["memory"]["revision"], 1);
  EXPECT_EQ(fake.chat_requests(), 2);
  // The schedule's second flush is the scope's last flush, by the system (docs/extraction.md); the
  // idle one after it changed nothing. The CLI reads it too.
  auto last = http.Get("/v1/memory/flush/last?scope_id=" + scope);
  ASSERT_EQ(last.first, 200) << last.second.dump();
  EXPECT_EQ(last.second["last_flush"]["actor"], "system");
  EXPECT_EQ(last.second["last_flush"]["previous_cursor"], 2);
  EXPECT_EQ(last.second["last_flush"]["current_cursor"], 3);
  EXPECT_EQ(last.second["last_flush"]["status"], "processed");
  CliResult shown = RunCli({"flush", "--last", "--scope", "scheduled", "--server", server.url()});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("by system"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("cursor 2 -> 3"), std::string::npos) << shown.out;
  EXPECT_EQ(http.Get("/v1/memory/flush/last?scope_id=" + scope + "&limit=1").first, 422);
  // An agent reads it over MCP (docs/mcp.md, get_last_flush): the same record.
  httplib::Client mcp("127.0.0.1", server.port());
  auto called =
      mcp.Post("/mcp", {{"Accept", "application/json, text/event-stream"}},
               json{{"jsonrpc", "2.0"},
                    {"id", 1},
                    {"method", "tools/call"},
                    {"params", {{"name", "get_last_flush"}, {"arguments", {{"scope_id", scope}}}}}}
                   .dump(),
               "application/json");
  ASSERT_TRUE(called);
  ASSERT_EQ(called->status, 200) << called->body;
  json tool = json::parse(called->body)["result"];
  EXPECT_FALSE(tool["isError"]) << called->body;
  EXPECT_EQ(tool["structuredContent"], last.second) << called->body;
}

TEST(FlushStory, CliSourcesAndFlush) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");  // no extraction provider
  ASSERT_TRUE(server.Start());
  auto cli = [&](std::vector<std::string> args, const std::string& in = "") {
    args.push_back("--server");
    args.push_back(server.url());
    return RunCli(args, in);
  };
  CliResult added = cli({"source", "add", "--scope", "project:cli", "--kind", "chat", "-"},
                        "we agreed to ship on Tuesday");
  EXPECT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("@1"), std::string::npos);
  CliResult listed = cli({"source", "list", "--scope", "project:cli", "--json"});
  EXPECT_EQ(listed.exit_code, 0);
  EXPECT_EQ(json::parse(listed.out)["sources"][0]["content"], "we agreed to ship on Tuesday");
  CliResult flushed = cli({"flush", "--scope", "project:cli"});
  EXPECT_EQ(flushed.exit_code, 6);  // capability_unavailable
  EXPECT_NE(flushed.err.find("extract_provider"), std::string::npos);
  CliResult last = cli({"flush", "--last", "--scope", "project:cli"});  // reading needs no model
  EXPECT_EQ(last.exit_code, 0) << last.err;
  EXPECT_NE(last.out.find("no flush has processed"), std::string::npos) << last.out;
  CliResult bad = cli({"source", "add", "--scope", "project:cli", "--metadata", "[1]", "x"});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace pc::testing
