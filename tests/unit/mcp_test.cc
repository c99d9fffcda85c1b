// The MCP protocol layer and streamable-HTTP checks, in process against the real store: version
// negotiation, JSON-RPC errors, notifications, batches, tool errors, Host/Origin validation.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/router.h"
#include "mcp/transports.h"
#include "routed_services.h"
#include "test_util.h"

namespace pc {
namespace {

using nlohmann::json;

class McpTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  testing::RoutedServices routed{f};
  Router& router = routed.router;
  McpTools tools{InProcessRoutes(router)};
  McpServer server{tools};

  json Call(const json& request) { return json::parse(server.Handle(request.dump())); }
  // A tools/call of `name` with `arguments`: the whole JSON-RPC answer.
  json CallTool(const std::string& name, json arguments, int id = 1) {
    return Call({{"jsonrpc", "2.0"},
                 {"id", id},
                 {"method", "tools/call"},
                 {"params", {{"name", name}, {"arguments", std::move(arguments)}}}});
  }
};

TEST_F(McpTest, InitializeNegotiatesTheVersion) {
  auto r = Call({{"jsonrpc", "2.0"},
                 {"id", 1},
                 {"method", "initialize"},
                 {"params",
                  {{"protocolVersion", "2025-03-26"},
                   {"capabilities", json::object()},
                   {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-03-26");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "powercontext");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  auto future = Call({{"jsonrpc", "2.0"},
                      {"id", 2},
                      {"method", "initialize"},
                      {"params", {{"protocolVersion", "2099-01-01"}}}});
  EXPECT_EQ(future["result"]["protocolVersion"], kMcpProtocolVersions[0]);
}

TEST_F(McpTest, JsonRpcErrorsAndNotifications) {
  EXPECT_EQ(json::parse(server.Handle("{not json"))["error"]["code"], -32700);
  EXPECT_EQ(Call({{"id", 1}, {"method", "ping"}})["error"]["code"], -32600);  // no jsonrpc
  EXPECT_EQ(Call({{"jsonrpc", "2.0"}, {"id", 1}})["error"]["code"], -32600);  // no method
  EXPECT_EQ(Call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "resources/list"}})["error"]["code"],
            -32601);
  EXPECT_EQ(Call({{"jsonrpc", "2.0"},
                  {"id", 1},
                  {"method", "tools/call"},
                  {"params", {{"name", "nope"}}}})["error"]["code"],
            -32602);
  EXPECT_EQ(
      Call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}, {"params", 3}})["error"]["code"],
      -32602);
  EXPECT_EQ(server.Handle(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump()),
            "");
  auto batch = json::parse(
      server.Handle(json::array({json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}},
                                 json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}})
                        .dump()));
  ASSERT_TRUE(batch.is_array());
  EXPECT_EQ(batch.size(), 1u);
}

// Every malformed message gets the JSON-RPC error the specification names; nothing throws (a
// mistyped "jsonrpc" or protocolVersion used to abort the stdio process).
TEST_F(McpTest, MistypedMessagesAreJsonRpcErrors) {
  auto code = [&](const std::string& raw) {
    std::string reply = server.Handle(raw);
    if (reply.empty()) return 0;
    json r = json::parse(reply);
    return r.is_array() ? r[0]["error"]["code"].get<int>() : r["error"]["code"].get<int>();
  };
  EXPECT_EQ(code(R"({"jsonrpc": 2, "id": 1, "method": "ping"})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc": null, "id": 1, "method": "ping"})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc": "2.0", "id": 1, "method": 7})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]})"), -32602);
  EXPECT_EQ(
      code(
          R"({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 5}})"),
      -32602);
  EXPECT_EQ(code(R"({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}})"),
            -32602);
  EXPECT_EQ(
      code(
          R"({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_scopes", "arguments": [1]}})"),
      -32602);
  EXPECT_EQ(code(R"([1, "x", null])"), -32600);
  EXPECT_EQ(code(R"({"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"})"),
            -32700);  // repeated key
  EXPECT_EQ(code(std::string(100000, '[')), -32700);
  EXPECT_EQ(code("1e400"), -32700);
  EXPECT_EQ(code(std::string(kMaxMcpMessageBytes + 1, ' ')), -32600);
  // A tool argument of the wrong type is refused, not turned into text: {"key": 5} used to
  // answer an empty list.
  auto wrong = CallTool("list_scopes", {{"key", 5}}, 9);
  EXPECT_TRUE(wrong["result"]["isError"]);
  EXPECT_EQ(wrong["result"]["structuredContent"]["error"]["code"], "invalid_request");
  EXPECT_EQ(wrong["result"]["structuredContent"]["error"]["details"]["field"], "key");
  // And the session goes on.
  EXPECT_EQ(Call({{"jsonrpc", "2.0"}, {"id", 10}, {"method", "ping"}})["id"], 10);
}

TEST_F(McpTest, StdioSurvivesHostileLines) {
  std::string huge(kMaxMcpMessageBytes + 100, 'x');
  std::istringstream in(std::string(R"({"jsonrpc": 2, "id": 1, "method": "ping"})") + "\n" + huge +
                        "\n" + "not json\n" + R"({"jsonrpc": "2.0", "id": 2, "method": "ping"})" +
                        "\n");
  std::ostringstream out;
  ServeMcpStdio(server, in, out);
  std::istringstream lines(out.str());
  std::vector<json> replies;
  for (std::string line; std::getline(lines, line);) replies.push_back(json::parse(line));
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ(replies[0]["error"]["code"], -32600);
  EXPECT_EQ(replies[1]["error"]["code"], -32600);  // too large
  EXPECT_EQ(replies[2]["error"]["code"], -32700);
  EXPECT_EQ(replies[3]["id"], 2);
  EXPECT_TRUE(replies[3].contains("result"));
}

// A scope is named by the caller (scope_id: project:…): a read of one nobody wrote to answers
// the empty result and creates nothing; the first write creates it.
TEST_F(McpTest, ReadsNeverCreateScopes) {
  auto call = [&](const char* tool, json arguments) {
    return CallTool(tool, std::move(arguments))["result"];
  };
  auto searched = call("search_memory", {{"scope_id", "project:never-written"}, {"query", "x"}});
  EXPECT_FALSE(searched["isError"]) << searched.dump();
  EXPECT_TRUE(searched["structuredContent"]["hits"].empty());
  auto prepared = call("prepare_context", {{"scope_id", "project:never-written"}, {"query", "x"}});
  EXPECT_EQ(prepared["structuredContent"]["status"], "empty");
  EXPECT_TRUE(call("list_memory_entries",
                   {{"scope_id", "project:never-written"}})["structuredContent"]["entries"]
                  .empty());
  auto last = call("get_last_flush", {{"scope_id", "project:never-written"}});
  EXPECT_FALSE(last["isError"]) << last.dump();
  EXPECT_TRUE(last["structuredContent"]["last_flush"].is_null()) << last.dump();
  EXPECT_TRUE(call("list_scopes", {{"key", "project:never-written"}})["structuredContent"]["scopes"]
                  .empty());
  // A write creates it, and then reads find it (scope_key is the older name of scope_id).
  EXPECT_FALSE(call("remember_memory", {{"scope_key", "project:never-written"},
                                        {"kind", "fact"},
                                        {"text", "Now it exists."}})["isError"]);
  auto found = call("search_memory", {{"scope_id", "project:never-written"}, {"query", "exists"}});
  EXPECT_EQ(found["structuredContent"]["hits"].size(), 1u);
  EXPECT_EQ(
      call("list_scopes", {{"key", "project:never-written"}})["structuredContent"]["scopes"].size(),
      1u);
}

// Every tool says whether it only reads, can replace something, and is safe to repeat.
TEST_F(McpTest, ToolsCarryAnnotations) {
  auto list = Call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}})["result"]["tools"];
  std::map<std::string, json> by_name;
  for (const json& t : list) {
    ASSERT_TRUE(t["annotations"].is_object()) << t["name"];
    for (const char* hint : {"readOnlyHint", "destructiveHint", "idempotentHint"})
      EXPECT_TRUE(t["annotations"][hint].is_boolean()) << t["name"] << " " << hint;
    by_name[t["name"]] = t["annotations"];
  }
  for (const char* name :
       {"remember_memory", "search_memory", "revise_memory_entry", "retire_memory_entry",
        "list_memory_entries", "get_memory_entry", "capture_content_source"})
    EXPECT_TRUE(by_name.count(name)) << name;
  EXPECT_TRUE(by_name["search_memory"]["readOnlyHint"]);
  EXPECT_TRUE(by_name["get_last_flush"]["readOnlyHint"]);
  EXPECT_FALSE(by_name["run_daily_review"]["readOnlyHint"]);
  EXPECT_TRUE(by_name["run_daily_review"]["idempotentHint"])
      << "a day reviewed once changes nothing";
  EXPECT_FALSE(by_name["remember_memory"]["readOnlyHint"]);
  EXPECT_TRUE(by_name["retire_memory_entry"]["destructiveHint"]);
  EXPECT_TRUE(by_name["capture_content_source"]["idempotentHint"]);
}

TEST_F(McpTest, ToolErrorsCarryOurCode) {
  auto bad = CallTool("remember_memory", {{"scope_key", "project:t"}, {"kind", "fact"}});
  EXPECT_TRUE(bad["result"]["isError"]);
  EXPECT_EQ(bad["result"]["structuredContent"]["error"]["code"], "invalid_request");
  EXPECT_EQ(bad["result"]["structuredContent"]["error"]["details"]["field"], "text");
  auto ok = CallTool("remember_memory",
                     {{"scope_key", "project:t"}, {"kind", "fact"}, {"text", "Kept."}}, 2);
  EXPECT_FALSE(ok["result"]["isError"]);
  EXPECT_EQ(ok["result"]["structuredContent"]["entry"]["text"], "Kept.");
  EXPECT_EQ(json::parse(ok["result"]["content"][0]["text"].get<std::string>())["entry"]["text"],
            "Kept.");
  // A citation goes back as it came: the object the answer gave.
  auto got = CallTool("get_memory_entry",
                      {{"scope_id", "project:t"},
                       {"citation", ok["result"]["structuredContent"]["entry"]["citation"]}},
                      4);
  EXPECT_FALSE(got["result"]["isError"]) << got.dump();
  EXPECT_EQ(got["result"]["structuredContent"]["text"], "Kept.");
  auto unknown_field =
      CallTool("search_memory", {{"scope_key", "project:t"}, {"query", "x"}, {"colour", "red"}}, 3);
  EXPECT_EQ(unknown_field["result"]["structuredContent"]["error"]["code"], "invalid_request");
}

// The review tools (docs/review.md) with the same lifecycle and compare-and-set as HTTP.
TEST_F(McpTest, ReviewToolsProposeReviseApprove) {
  auto tool = [&](const std::string& name, json arguments) {
    arguments["scope_id"] = "project:mcp-review";
    return CallTool(name, std::move(arguments))["result"];
  };
  auto captured = tool("capture_content_source",
                       {{"source_id", "run-1"}, {"content", "Run 1: contract tests passed."}});
  ASSERT_FALSE(captured["isError"]) << captured.dump();
  const json lesson = {
      {"situation", "s"}, {"action", "a"}, {"outcome", "o"}, {"lesson", "Run the contract tests."}};
  auto proposed =
      tool("propose_experience",
           {{"proposal", lesson},
            {"source_refs", json::array({{{"name", "content"}, {"source_id", "run-1"}}})}});
  ASSERT_FALSE(proposed["isError"]) << proposed.dump();
  const std::string id = proposed["structuredContent"]["candidate_id"];
  auto listed = tool("list_artifact_candidates", json::object());
  ASSERT_EQ(listed["structuredContent"]["candidates"].size(), 1u) << listed.dump();
  auto revised =
      tool("revise_artifact_candidate",
           {{"candidate_id", id},
            {"expected_version", 1},
            {"proposal", lesson},
            {"source_refs", json::array({{{"name", "content"}, {"source_id", "run-1"}}})}});
  EXPECT_EQ(revised["structuredContent"]["version"], 2) << revised.dump();
  auto stale = tool("approve_artifact_candidate", {{"candidate_id", id}, {"expected_version", 1}});
  EXPECT_TRUE(stale["isError"]);
  EXPECT_EQ(stale["structuredContent"]["error"]["code"], "candidate_conflict");
  auto approved =
      tool("approve_artifact_candidate", {{"candidate_id", id}, {"expected_version", 2}});
  ASSERT_FALSE(approved["isError"]) << approved.dump();
  auto got =
      tool("get_experience", {{"artifact", approved["structuredContent"]["result_artifact"]}});
  EXPECT_EQ(got["structuredContent"]["content"]["lesson"], "Run the contract tests.") << got.dump();
  auto found = tool("search_experience", {{"query", "contract tests"}});
  EXPECT_EQ(found["structuredContent"]["experiences"].size(), 1u) << found.dump();
  auto no_evidence = tool("propose_experience", {{"proposal", lesson}});
  EXPECT_TRUE(no_evidence["isError"]);
  EXPECT_EQ(no_evidence["structuredContent"]["error"]["code"], "invalid_request");
  // Without a model, generating is a capability error; a bad request is still the request's error.
  auto generated =
      tool("generate_experience",
           {{"source_refs", json::array({{{"name", "content"}, {"source_id", "run-1"}}})}});
  EXPECT_TRUE(generated["isError"]);
  EXPECT_EQ(generated["structuredContent"]["error"]["code"], "capability_unavailable")
      << generated.dump();
  auto generated_bad = tool("generate_experience", {{"colour", "blue"}});
  EXPECT_EQ(generated_bad["structuredContent"]["error"]["code"], "invalid_request")
      << generated_bad.dump();
}

// Host and Origin are the edge guard's (tests/e2e/http_edge_test.cc); here the transport itself.
TEST_F(McpTest, StreamableHttpTransport) {
  const std::string init = json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}.dump();
  EXPECT_EQ(HandleMcpHttp(server, "POST", {{"host", "127.0.0.1:8787"}}, init).status, 200);
  RawHttpReply get = HandleMcpHttp(server, "GET", {{"host", "127.0.0.1"}}, "");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(json::parse(get.body)["error"]["code"], "method_not_allowed") << get.body;
  EXPECT_EQ(HandleMcpHttp(server, "POST", {{"host", "127.0.0.1"}},
                          json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump())
                .status,
            202);
  EXPECT_EQ(HandleMcpHttp(server, "POST", {{"host", "127.0.0.1"}}, "{oops").status, 400);
  // Mistyped JSON-RPC fields are a JSON-RPC error at HTTP 400, never a 500.
  EXPECT_EQ(HandleMcpHttp(server, "POST", {{"host", "127.0.0.1"}},
                          R"({"jsonrpc": 2, "id": 1, "method": "ping"})")
                .status,
            200);
  EXPECT_EQ(
      HandleMcpHttp(server, "POST", {{"host", "127.0.0.1"}}, R"({"jsonrpc": 2, "method": "ping"})")
          .status,
      400);
}

TEST_F(McpTest, StdioIsOneMessagePerLine) {
  std::istringstream in(
      json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}.dump() + "\n\n" +
      json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump() + "\n" +
      json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}}.dump() + "\n");
  std::ostringstream out;
  ServeMcpStdio(server, in, out);
  std::istringstream lines(out.str());
  std::string a, b, c;
  ASSERT_TRUE(std::getline(lines, a));
  ASSERT_TRUE(std::getline(lines, b));
  EXPECT_FALSE(std::getline(lines, c));
  EXPECT_EQ(json::parse(a)["id"], 1);
  EXPECT_EQ(json::parse(b)["result"]["tools"].size(), McpTools::List().size());
}

}  // namespace
}  // namespace pc
