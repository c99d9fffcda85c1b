// Listwise rerank by the chat model (rerank_provider = chat, upstream RFC 0080) through the real
// binary and a fake chat model: off unless a request asks; the model's ranking reorders the hits,
// which keep their citations; an unusable answer or a failing model is an error, never the
// unreranked order; prepare reranks only when asked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

std::vector<std::string> RerankFlags(const FakeOpenAi& fake) {
  std::vector<std::string> flags = ChatFlags(fake);
  for (const char* f : {"--rerank-provider", "chat", "--rerank-rest-seconds", "0"})
    flags.push_back(f);
  return flags;
}

TEST(RerankStory, TheChatModelReordersOnlyWhenAsked) {
  TempDir dir;
  FakeOpenAi fake;
  ServerProcess server(dir.path() + "/data", RerankFlags(fake));
  ASSERT_TRUE(server.Start());
  JsonHttp http(server.port());
  const std::string scope = "project:importer";
  for (const char* text :
       {"The orders importer runs nightly.", "The orders importer reads CSV files.",
        "The orders importer stores amounts in cents."})
    ASSERT_EQ(
        http.Post("/v1/memory/remember", {{"scope_id", scope}, {"kind", "fact"}, {"text", text}})
            .first,
        200);
  const json query = {
      {"scope_id", scope}, {"query", "orders importer"}, {"mode", "fts"}, {"explain", true}};

  // Off by default: no model call, no rerank score.
  auto coarse = http.Post("/v1/memory/search", query);
  ASSERT_EQ(coarse.first, 200) << coarse.second.dump();
  ASSERT_EQ(coarse.second["hits"].size(), 3u);
  EXPECT_TRUE(coarse.second["hits"][0]["rerank_score"].is_null());
  EXPECT_EQ(fake.chat_requests(), 0);

  json ask = query;
  ask["rerank"] = true;
  fake.ScriptChat({{R"({"ranking": [3, 7, 3]})"}});
  auto reranked = http.Post("/v1/memory/search", ask);
  ASSERT_EQ(reranked.first, 200) << reranked.second.dump();
  EXPECT_EQ(fake.chat_requests(), 1);
  const json& before = coarse.second["hits"];
  const json& after = reranked.second["hits"];
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0]["citation"], before[2]["citation"]);
  EXPECT_EQ(after[1]["citation"], before[0]["citation"]);
  EXPECT_EQ(after[2]["citation"], before[1]["citation"]);
  EXPECT_EQ(after[0]["text"], before[2]["text"]);
  EXPECT_EQ(after[0]["score"], before[2]["score"]);
  EXPECT_EQ(after[0]["rerank_score"], 1.0);
  EXPECT_EQ(reranked.second["memory"], coarse.second["memory"]);

  // An answer that ranks nothing usable: an error with the reason, not the coarse order.
  fake.ScriptChat({{R"({"ranking": [0, 9]})"}});
  auto bad = http.Post("/v1/memory/search", ask);
  EXPECT_EQ(bad.first, 503) << bad.second.dump();
  EXPECT_EQ(bad.second["error"]["code"], "provider_unavailable");
  EXPECT_NE(bad.second["error"]["message"].get<std::string>().find("names none"), std::string::npos)
      << bad.second.dump();
  EXPECT_FALSE(bad.second.contains("hits"));
  // A model that is down: every attempt fails.
  fake.ScriptChat({{"", 503}, {"", 503}, {"", 503}});
  auto down = http.Post("/v1/memory/search", ask);
  EXPECT_EQ(down.first, 503) << down.second.dump();
  EXPECT_TRUE(down.second["error"]["code"] == "provider_unavailable" ||
              down.second["error"]["code"] == "capability_unavailable")
      << down.second.dump();
  EXPECT_FALSE(down.second.contains("hits"));

  // Prepared context: not reranked unless asked.
  const int calls = fake.chat_requests();
  json prepare = {
      {"scope_id", scope}, {"query", "orders importer"}, {"mode", "fts"}, {"explain", true}};
  auto plain = http.Post("/v1/context/prepare", prepare);
  ASSERT_EQ(plain.first, 200) << plain.second.dump();
  EXPECT_EQ(fake.chat_requests(), calls);
  prepare["rerank"] = true;
  fake.ScriptChat({{R"({"ranking": [2]})"}});
  auto packed = http.Post("/v1/context/prepare", prepare);
  ASSERT_EQ(packed.first, 200) << packed.second.dump();
  EXPECT_EQ(fake.chat_requests(), calls + 1);
  ASSERT_GE(plain.second["items"].size(), 3u) << plain.second.dump();
  EXPECT_EQ(packed.second["items"][0]["ref"], plain.second["items"][1]["ref"]);
  EXPECT_EQ(packed.second["items"][1]["ref"], plain.second["items"][0]["ref"]);

  // Each call to the model is counted once, as a rerank: never also as an extraction.
  httplib::Client scraper("127.0.0.1", server.port());
  auto metrics = scraper.Get("/metrics");
  ASSERT_TRUE(metrics);
  ASSERT_EQ(metrics->status, 200) << metrics->body;
  EXPECT_NE(
      metrics->body.find("powercontext_provider_calls_total{provider=\"rerank\",outcome=\"ok\"} 2"),
      std::string::npos)
      << metrics->body;
  for (const char* outcome : {"ok", "error", "unavailable"})
    EXPECT_NE(metrics->body.find(
                  std::string("powercontext_provider_calls_total{provider=\"extract\",outcome=\"") +
                  outcome + "\"} 0"),
              std::string::npos)
        << outcome;

  // The CLI asks for it with --rerank, and only then.
  const int before_cli = fake.chat_requests();
  CliResult cli_plain = RunCli({"search", "-s", scope, "orders importer", "--mode", "fts", "--json",
                                "--server", server.url()});
  ASSERT_EQ(cli_plain.exit_code, 0) << cli_plain.err;
  EXPECT_EQ(fake.chat_requests(), before_cli);
  fake.ScriptChat({{R"({"ranking": [3]})"}});
  CliResult cli = RunCli({"search", "-s", scope, "orders importer", "--mode", "fts", "--rerank",
                          "--json", "--server", server.url()});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(fake.chat_requests(), before_cli + 1);
  EXPECT_EQ(json::parse(cli.out)["hits"][0]["citation"],
            json::parse(cli_plain.out)["hits"][2]["citation"])
      << cli.out;
}

}  // namespace
}  // namespace pc::testing
