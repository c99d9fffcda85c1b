// The handoff (RFC 0048, docs/handoff.md) through the real binary and a fake chat model: a source
// boundary activates a draft, the inspected draft is finalized, committed by compare-and-set, and
// continued with its evidence re-checked; bad input is refused with a JSON error and changes
// nothing.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

using Http = JsonHttp;

const char* kDraft = R"({"state":[{"text":"Error mapping changed.","evidence":["C1","C2"]}],
  "disposition":"continuable","next_action":{"text":"Run the regression tests.","evidence":["C1"]},
  "omissions":[{"text":"No recent test output.","evidence":null}]})";

TEST(HandoffStory, ActivateFinalizeCommitContinue) {
  TempDir dir;
  FakeOpenAi fake;
  ServerProcess server(dir.path() + "/data", ChatFlags(fake));
  ASSERT_TRUE(server.Start());
  Http http(server.port());
  const std::string scope = "project:parser";
  auto fact =
      http.Post("/v1/memory/remember",
                {{"scope_id", scope}, {"kind", "fact"}, {"text", "Errors map in errors.cc."}});
  ASSERT_EQ(fact.first, 200) << fact.second.dump();
  json mem_cite = {{"kind", "memory"}, {"memory_citation", fact.second["entry"]["citation"]}};
  ASSERT_EQ(http.Post("/v1/sources/content", {{"scope_id", scope},
                                              {"source_id", "chat-1"},
                                              {"content", "I changed the parser's error mapping."}})
                .first,
            202);

  fake.ScriptChat({{kDraft}});
  auto act = http.Post("/v1/handoff/activate",
                       {{"scope_id", scope},
                        {"boundary_source", {{"name", "content"}, {"source_id", "chat-1"}}},
                        {"objective", "Complete parser error handling."},
                        {"evidence", {mem_cite}}});
  ASSERT_EQ(act.first, 200) << act.second.dump();
  EXPECT_EQ(act.second["status"], "generated");
  EXPECT_EQ(act.second["previous_position"], 0);
  EXPECT_EQ(act.second["current_position"], 1);
  json draft = act.second["draft"];
  EXPECT_EQ(draft["objective"], "Complete parser error handling.");
  EXPECT_EQ(
      draft["state"][0]["citations"][0],
      (json{{"kind", "source"}, {"source_ref", {{"name", "content"}, {"source_id", "chat-1"}}}}));
  EXPECT_EQ(draft["state"][0]["citations"][1], mem_cite);
  auto again = http.Post("/v1/handoff/activate",
                         {{"scope_id", scope},
                          {"boundary_source", {{"name", "content"}, {"source_id", "chat-1"}}},
                          {"objective", "Complete parser error handling."}});
  EXPECT_EQ(again.second["status"], "ignored");
  EXPECT_TRUE(again.second["draft"].is_null());

  auto fin = http.Post("/v1/handoff/finalize", {{"scope_id", scope}, {"draft", draft}});
  ASSERT_EQ(fin.first, 200) << fin.second.dump();
  EXPECT_EQ(fin.second["schema"], "powercontext.prepared-handoff.v1");
  EXPECT_EQ(fin.second["scope_id"], scope);
  EXPECT_TRUE(fin.second["base"].is_null());
  EXPECT_EQ(fin.second["content"]["schema"], "powercontext.handoff.v1");

  // Unknown fields at any depth, a bad schema, a stale base: refused, nothing written.
  json extra = fin.second;
  extra["content"]["state"][0]["note"] = "x";
  EXPECT_EQ(http.Post("/v1/handoff/commit", {{"scope_id", scope}, {"handoff", extra}}).first, 422);
  EXPECT_EQ(
      http.Post("/v1/handoff/commit", {{"scope_id", scope}, {"handoff", fin.second}, {"x", 1}})
          .first,
      422);
  json stale = fin.second;
  stale["base"] = {{"family", "handoff"}, {"artifact_id", "hnd_x"}, {"revision", 3}};
  auto conflict = http.Post("/v1/handoff/commit", {{"scope_id", scope}, {"handoff", stale}});
  EXPECT_EQ(conflict.first, 409);
  EXPECT_EQ(conflict.second["error"]["code"], "revision_conflict");

  auto committed = http.Post("/v1/handoff/commit", {{"scope_id", scope}, {"handoff", fin.second}});
  ASSERT_EQ(committed.first, 200) << committed.second.dump();
  EXPECT_EQ(committed.second["reference"]["revision"], 1);
  EXPECT_EQ(committed.second["source_refs"],
            (json{{{"name", "content"}, {"source_id", "chat-1"}}}));
  EXPECT_EQ(committed.second["artifact_refs"].size(), 1u);
  EXPECT_EQ(committed.second.size(), 4u);

  auto cont = http.Post("/v1/handoff/continue", {{"scope_id", scope}, {"selection", "latest"}});
  ASSERT_EQ(cont.first, 200) << cont.second.dump();
  EXPECT_EQ(cont.second["trust"], "untrusted_history");
  EXPECT_EQ(cont.second["status"], "resolved");
  EXPECT_EQ(cont.second["selected_revision"], committed.second["reference"]);
  ASSERT_EQ(cont.second["evidence_checks"].size(), 2u);
  EXPECT_EQ(cont.second["evidence_checks"][0]["status"], "available");
  EXPECT_TRUE(cont.second["evidence_checks"][1]["state_index"].is_null());
  auto empty =
      http.Post("/v1/handoff/continue", {{"scope_id", "project:none"}, {"selection", "latest"}});
  EXPECT_EQ(empty.second["status"], "empty");

  // The prepared context shows the handoff first; our read route returns the structure.
  auto ctx = http.Post("/v1/context/prepare",
                       {{"scope_id", scope}, {"query", "parser errors"}, {"max_bytes", 4000}});
  ASSERT_EQ(ctx.first, 200) << ctx.second.dump();
  EXPECT_NE(ctx.second.dump().find("Error mapping changed."), std::string::npos);
  auto read = http.c.Get("/v1/handoff?scope_id=project:parser");
  ASSERT_TRUE(read);
  EXPECT_EQ(json::parse(read->body)["content"]["objective"], "Complete parser error handling.");
  EXPECT_EQ(http.Post("/v1/handoff", {{"scope_id", scope}, {"summary", "x"}}).first, 405);
}

TEST(HandoffStory, WithoutAModelPrepareIs503) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  Http http(server.port());
  auto r = http.Post(
      "/v1/handoff/prepare",
      {{"scope_id", "project:x"},
       {"objective", "o"},
       {"evidence",
        {{{"kind", "source"}, {"source_ref", {{"name", "content"}, {"source_id", "s"}}}}}}});
  EXPECT_EQ(r.first, 503);
  EXPECT_EQ(r.second["error"]["code"], "capability_unavailable");
}

}  // namespace
}  // namespace pc::testing
