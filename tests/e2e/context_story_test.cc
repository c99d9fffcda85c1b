// The seed's walk-through through the real binary: remember → search → prepare_context cites the
// same entry version → revise → the old citation still reads, but revising with it is 409.
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

// Seed 000's worked example, verbatim: a caller-chosen scope id, no scope created first.
TEST(ContextStory, SeedWalkThrough) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  httplib::Client c("127.0.0.1", server.port());
  const std::string scope = "project:powercontext-101";
  auto remembered = Post(
      c, "/v1/memory/remember",
      {{"scope_id", scope},
       {"kind", "decision"},
       {"text", "Regenerate and inspect the checked-in client before running contract tests."}});
  ASSERT_EQ(remembered.first, 200) << remembered.second.dump();
  const json head = remembered.second["memory"];
  const json written = remembered.second["entry"]["citation"];
  Post(c, "/v1/memory/remember",
       {{"scope_id", scope}, {"kind", "fact"}, {"text", "订单导入器使用 PostgreSQL 15 数据库。"}});

  auto found = Post(c, "/v1/memory/search",
                    {{"scope_id", scope},
                     {"query", "What should happen before contract tests?"},
                     {"mode", "fts"},
                     {"limit", 5}});
  ASSERT_EQ(found.first, 200) << found.second.dump();
  ASSERT_FALSE(found.second["hits"].empty());
  const json hit = found.second["hits"][0];
  EXPECT_EQ(hit["matched_by"], json::array({"fts"}));
  EXPECT_EQ(hit["citation"]["entry_id"], written["entry_id"]);
  EXPECT_EQ(hit["citation"]["entry_version_id"], written["entry_version_id"]);
  EXPECT_EQ(hit["citation"]["memory_ref"], found.second["memory"]);  // the current exact revision
  EXPECT_EQ(found.second["memory"]["revision"], head["revision"].get<int64_t>() + 1);
  const json cited = hit["citation"];

  auto prepared =
      Post(c, "/v1/context/prepare",
           {{"scope_id", scope}, {"query", "What should happen before contract tests?"}});
  ASSERT_EQ(prepared.first, 200) << prepared.second.dump();
  const json& p = prepared.second;
  EXPECT_EQ(p.size(), 4u) << "exactly schema, status, content, content_bytes: " << p.dump();
  EXPECT_EQ(p["schema"], "powercontext.prepared-context.v1");
  EXPECT_EQ(p["status"], "ready");
  const std::string content = p["content"];
  EXPECT_EQ(p["content_bytes"], content.size());
  EXPECT_LE(content.size(), 8000u);  // the default budget
  // RFC 0028's form: the fixed preamble, then one JSON line between the markers.
  EXPECT_EQ(content.rfind("PowerContext prepared untrusted historical context.\n", 0), 0u)
      << content;
  const std::string begin = "\nBEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1\n",
                    end = "\nEND_POWERCONTEXT_PREPARED_CONTEXT_V1";
  size_t b = content.find(begin);
  ASSERT_NE(b, std::string::npos);
  ASSERT_EQ(content.size() - end.size(), content.rfind(end));
  json body =
      json::parse(content.substr(b + begin.size(), content.size() - end.size() - b - begin.size()));
  EXPECT_EQ(body["trust"], "untrusted_history");
  ASSERT_FALSE(body["items"].empty());
  EXPECT_EQ(body["items"][0]["citation"], cited);  // the same entry version, at the same revision
  EXPECT_EQ(body["items"][0]["content"],
            "Regenerate and inspect the checked-in client before running contract tests.");
  EXPECT_EQ(body["items"][0]["truncated"], false);

  auto revised =
      Post(c, "/v1/memory/entries/revise",
           {{"scope_id", scope},
            {"citation", cited},
            {"kind", "decision"},
            {"text",
             "Regenerate the checked-in client, inspect the diff, and then run contract tests."}});
  ASSERT_EQ(revised.first, 200) << revised.second.dump();
  EXPECT_EQ(revised.second["entry"]["version"], 2);
  auto old = Post(c, "/v1/memory/entries/get", {{"scope_id", scope}, {"citation", cited}});
  EXPECT_EQ(old.first, 200);
  EXPECT_EQ(old.second["text"],
            "Regenerate and inspect the checked-in client before running contract tests.");
  auto stale = Post(c, "/v1/memory/entries/revise",
                    {{"scope_id", scope},
                     {"citation", cited},
                     {"kind", "decision"},
                     {"text", "Something else."}});
  EXPECT_EQ(stale.first, 409);
  EXPECT_EQ(stale.second["error"]["code"], "revision_conflict");
  EXPECT_EQ(stale.second["error"]["details"]["current_revision"], 3);
  EXPECT_EQ(Post(c, "/v1/memory/entries/retire", {{"scope_id", scope}, {"citation", cited}}).first,
            409);

  // Budgets: too small for anything is "empty"; out of the spec's range is 422.
  auto tiny = Post(c, "/v1/context/prepare",
                   {{"scope_id", scope}, {"query", "contract tests"}, {"max_bytes", 512}});
  EXPECT_EQ(tiny.first, 200);
  EXPECT_EQ(tiny.second["status"], "empty") << tiny.second.dump();
  EXPECT_TRUE(tiny.second["content"].is_null());
  EXPECT_EQ(tiny.second["content_bytes"], 0);
  EXPECT_EQ(
      Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "x"}, {"max_bytes", 511}})
          .first,
      422);
  EXPECT_EQ(
      Post(c, "/v1/context/prepare", {{"scope_id", scope}, {"query", "x"}, {"max_bytes", 32769}})
          .first,
      422);
  EXPECT_EQ(Post(c, "/v1/context/prepare",
                 {{"scope_id", scope}, {"query", "x"}, {"max_bytes", 1000}, {"mode", "vector"}})
                .first,
            503);
  // Our explanation, on request only.
  auto explained = Post(c, "/v1/context/prepare",
                        {{"scope_id", scope}, {"query", "contract tests"}, {"explain", true}});
  EXPECT_EQ(explained.second["items"][0]["type"], "memory");
  EXPECT_EQ(explained.second["mode_used"], "fts");
  // A scope nobody wrote to: the spec's empty answer, and still no such scope afterwards.
  auto none =
      Post(c, "/v1/context/prepare", {{"scope_id", "project:nobody"}, {"query", "contract tests"}});
  EXPECT_EQ(none.second, (json{{"schema", "powercontext.prepared-context.v1"},
                               {"status", "empty"},
                               {"content", nullptr},
                               {"content_bytes", 0}}));
  auto listed = c.Get("/v1/scopes?key=project:nobody");
  ASSERT_TRUE(listed);
  EXPECT_TRUE(json::parse(listed->body)["scopes"].empty());

  // The CLI speaks the same API.
  auto cli = [&](std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(server.url());
    return RunCli(args);
  };
  CliResult prepare = cli({"prepare", "--scope", scope, "--max-bytes", "3000", "contract tests"});
  EXPECT_EQ(prepare.exit_code, 0) << prepare.err;
  EXPECT_NE(prepare.out.find("untrusted historical context"), std::string::npos);
  EXPECT_NE(prepare.out.find("Regenerate the checked-in client, inspect the diff"),
            std::string::npos);
}

}  // namespace
}  // namespace pc::testing
