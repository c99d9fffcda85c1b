// The seed's walk-through through the real binary: remember → search → prepare_context cites the
// same entry version → revise → the old citation still reads, but revising with it is 409. Then
// the handoff over HTTP and the CLI.
#include <gtest/gtest.h>

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

std::pair<int, json> Post(httplib::Client& c, const std::string& path, const json& body) {
  auto res = c.Post(path, body.dump(), "application/json");
  if (!res) return {0, json()};
  return {res->status, json::parse(res->body, nullptr, false)};
}

TEST(ContextStory, SeedWalkThrough) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  httplib::Client c("127.0.0.1", server.port());
  std::string scope = Post(c, "/v1/scopes", {{"key", "project:orders-importer"}}).second["scope_id"];
  auto remembered = Post(c, "/v1/memory/remember", {{"scope_id", scope}, {"kind", "decision"},
                                                    {"text", "Run contract tests after the schema migration."}});
  ASSERT_EQ(remembered.first, 201);
  Post(c, "/v1/memory/remember", {{"scope_id", scope}, {"kind", "fact"}, {"text", "订单导入器使用 PostgreSQL 15 数据库。"}});

  auto found = Post(c, "/v1/memory/search", {{"scope_id", scope}, {"query", "What should happen before contract tests?"}});
  ASSERT_EQ(found.first, 200);
  std::string cited = found.second["hits"][0]["citation"]["ref"];
  EXPECT_EQ(cited.substr(0, cited.find('@')), remembered.second["citation"]["ref"].get<std::string>().substr(0, cited.find('@')));

  auto prepared = Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "What should happen before contract tests?"},
                                                  {"max_bytes", 4000}});
  ASSERT_EQ(prepared.first, 200) << prepared.second.dump();
  const json& p = prepared.second;
  EXPECT_EQ(p["status"], "ready");
  EXPECT_EQ(p["trust"], "untrusted_history");
  EXPECT_EQ(p["content_bytes"], p["content"].get<std::string>().size());
  ASSERT_FALSE(p["items"].empty());
  EXPECT_EQ(p["items"][0]["type"], "memory");
  EXPECT_EQ(p["items"][0]["citation"], cited);  // the same entry version, at the same revision
  EXPECT_NE(p["content"].get<std::string>().find(cited), std::string::npos);

  auto revised = Post(c, "/v1/memory/revise", {{"scope_id", scope}, {"citation", cited},
                                               {"text", "Run contract tests before the schema migration."}});
  ASSERT_EQ(revised.first, 201);
  auto old = Post(c, "/v1/memory/read", {{"scope_id", scope}, {"citation", cited}});
  EXPECT_EQ(old.first, 200);
  EXPECT_EQ(old.second["entry"]["text"], "Run contract tests after the schema migration.");
  auto stale = Post(c, "/v1/memory/revise", {{"scope_id", scope}, {"citation", cited}, {"text", "Something else."}});
  EXPECT_EQ(stale.first, 409);
  EXPECT_EQ(stale.second["error"]["details"]["current_revision"], 3);

  // Budgets: too small for anything is "empty"; out of range is 400.
  auto tiny = Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "contract tests"}, {"max_bytes", 10}});
  EXPECT_EQ(tiny.first, 200);
  EXPECT_EQ(tiny.second["status"], "empty");
  EXPECT_TRUE(tiny.second["content"].is_null());
  EXPECT_EQ(tiny.second["content_bytes"], 0);
  EXPECT_EQ(Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "x"}, {"max_bytes", 0}}).first, 400);
  EXPECT_EQ(Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "x"}}).first, 400);
  EXPECT_EQ(Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "x"}, {"max_bytes", 100}, {"mode", "vector"}}).first, 422);

  // Handoff over HTTP.
  auto h1 = Post(c, "/v1/handoff", {{"scope_id", scope}, {"from", "claude-code"}, {"to", "next session"},
                                    {"summary", "Contract tests moved before the migration."},
                                    {"next_steps", {"Wire the CSV validator"}}, {"expected_revision", 0}});
  ASSERT_EQ(h1.first, 201) << h1.second.dump();
  EXPECT_EQ(h1.second["handoff"]["revision"], 1);
  EXPECT_EQ(Post(c, "/v1/handoff", {{"scope_id", scope}, {"summary", "x"}, {"expected_revision", 0}}).first, 409);
  EXPECT_EQ(Post(c, "/v1/handoff", {{"scope_id", scope}, {"summary", "x"}, {"next_steps", "not a list"}}).first, 400);
  auto shown = c.Get("/v1/handoff?scope_id=" + scope);
  ASSERT_TRUE(shown);
  EXPECT_EQ(json::parse(shown->body)["next_steps"][0], "Wire the CSV validator");
  auto with_handoff = Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "contract tests"}, {"max_bytes", 4000}});
  EXPECT_EQ(with_handoff.second["items"][0]["type"], "handoff");
  EXPECT_EQ(with_handoff.second["items"][0]["handoff_ref"], h1.second["ref"]);

  // The CLI.
  auto cli = [&](std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(server.url());
    return RunCli(args);
  };
  CliResult written = cli({"handoff", "write", "--scope", "project:orders-importer", "Validator wired.",
                           "--next", "Run the import end to end", "--expected-revision", "1"});
  EXPECT_EQ(written.exit_code, 0) << written.err;
  CliResult show = cli({"handoff", "show", "--scope", "project:orders-importer"});
  EXPECT_NE(show.out.find("Run the import end to end"), std::string::npos);
  CliResult history = cli({"handoff", "history", "--scope", "project:orders-importer", "--json"});
  EXPECT_EQ(json::parse(history.out)["handoffs"].size(), 2u);
  CliResult prepare = cli({"prepare", "--scope", "project:orders-importer", "--max-bytes", "3000", "contract tests"});
  EXPECT_EQ(prepare.exit_code, 0);
  EXPECT_NE(prepare.out.find("untrusted history"), std::string::npos);
  EXPECT_NE(prepare.out.find("Validator wired."), std::string::npos);
  CliResult conflict = cli({"handoff", "write", "--scope", "project:orders-importer", "x", "--expected-revision", "1"});
  EXPECT_EQ(conflict.exit_code, 4);
}

}  // namespace
}  // namespace pc::testing
