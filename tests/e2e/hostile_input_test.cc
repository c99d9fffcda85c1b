// Hostile input against the real binary: every one of these once crashed the process or answered
// 500. Each must get a clear 422 / JSON-RPC error, change nothing, and leave the server serving.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

class HostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    server = std::make_unique<ServerProcess>(dir.path() + "/data");
    ASSERT_TRUE(server->Start());
    http = std::make_unique<httplib::Client>("127.0.0.1", server->port());
    auto created = http->Post("/v1/scopes", R"({"key": "project:hostile"})", "application/json");
    ASSERT_TRUE(created);
    scope = json::parse(created->body)["scope_id"];
  }

  // POSTs `body` and expects 422 invalid_request; then checks the server still answers.
  void ExpectRefused(const std::string& path, const std::string& body, const std::string& says) {
    auto res = http->Post(path, body, "application/json");
    ASSERT_TRUE(res) << "no answer (did the server die?) for " << body.substr(0, 80);
    EXPECT_EQ(res->status, 422) << res->body;
    json err = json::parse(res->body);
    EXPECT_EQ(err["error"]["code"], "invalid_request") << res->body;
    EXPECT_NE(err["error"]["message"].get<std::string>().find(says), std::string::npos)
        << res->body;
    auto alive = http->Get("/v1/health");
    ASSERT_TRUE(alive) << "the server died after " << body.substr(0, 80);
    EXPECT_EQ(alive->status, 200);
  }

  int64_t Head() {
    auto res = http->Get(("/v1/memory/entries?scope_id=" + scope).c_str());
    return json::parse(res->body)["memory"]["revision"];
  }

  TempDir dir;
  std::unique_ptr<ServerProcess> server;
  std::unique_ptr<httplib::Client> http;
  std::string scope;
};

TEST_F(HostileInput, DeepNestingInsideAFieldIsA400) {
  // ~150 KB of nested arrays in metadata, and 285 KB in key: each overflowed the stack (SIGSEGV).
  ExpectRefused("/v1/sources",
                R"({"scope_id": ")" + scope + R"(", "content": "x", "metadata": {"a": )" +
                    Nested(75000) + "}}",
                "nested");
  ExpectRefused("/v1/scopes", R"({"key": )" + Nested(30000) + "}", "nested");
  ExpectRefused("/v1/memory/remember",
                R"({"scope_id": ")" + scope + R"(", "kind": "fact", "text": "t", "reason": )" +
                    Nested(70000) + "}",
                "nested");
  // Since issue 27 a body larger than its route's limit is not read at all: 285 KB to /v1/scopes.
  auto over = http->Post("/v1/scopes", R"({"key": )" + Nested(142500) + "}", "application/json");
  ASSERT_TRUE(over);
  EXPECT_EQ(over->status, 413);
  EXPECT_EQ(Head(), 0);
}

TEST_F(HostileInput, NumbersOutOfRangeAndRepeatedKeysAre400) {
  ExpectRefused("/v1/memory/search",
                R"({"scope_id": ")" + scope + R"(", "query": "x", "limit": 1e400})",
                "malformed JSON");
  // A body naming scope A, then scope B, used to write to B (the last one won).
  auto other = http->Post("/v1/scopes", R"({"key": "project:other"})", "application/json");
  std::string scope_b = json::parse(other->body)["scope_id"];
  ExpectRefused("/v1/memory/remember",
                R"({"scope_id": ")" + scope + R"(", "kind": "fact", "text": "t", "scope_id": ")" +
                    scope_b + R"("})",
                "duplicate key \"scope_id\"");
  EXPECT_EQ(Head(), 0);
}

// Issue 27, N1 and N2: a wide body was parsed in time that grew with the square of its values
// (320,000 objects: 21 s, the server deaf to SIGTERM meanwhile), and 8 MiB of small numbers cost
// ~190 MB. Now the wide body is one linear pass, and values past the route's limit are refused.
TEST_F(HostileInput, WideBodiesCostTheirSizeOnly) {
  std::string wide = R"({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": [{})";
  for (int i = 1; i < 320000; ++i) wide += ",{}";
  wide += "]}}";
  http->set_read_timeout(120, 0);  // not a timing check: bench/json_bench and tests/cost measure
  auto res = http->Post("/mcp", wide, "application/json");
  ASSERT_TRUE(res);
  EXPECT_LT(res->status, 500) << res->body.substr(0, 200);
  // 8 MiB of small numbers in a batch: more values than the route's 1,048,576.
  std::string numbers = R"({"scope_id": ")" + scope + R"(", "sources": [0)";
  numbers.reserve(8 << 20);
  while (numbers.size() < (size_t{8} << 20) - 16) numbers += ",0";
  numbers += "]}";
  auto many = http->Post("/v1/sources/batch", numbers, "application/json");
  ASSERT_TRUE(many);
  EXPECT_EQ(many->status, 413) << many->body;
  EXPECT_EQ(json::parse(many->body)["error"]["details"]["limit_values"], 1048576);
  auto alive = http->Get("/v1/health");
  ASSERT_TRUE(alive);
  EXPECT_EQ(alive->status, 200);
  EXPECT_EQ(Head(), 0);
}

TEST_F(HostileInput, EmptyPurposeIsRefused) {
  ExpectRefused(
      "/v1/sources",
      R"({"scope_id": ")" + scope + R"(", "kind": "chat", "content": "x", "purpose": ""})",
      "purpose");
  auto listed = http->Get(("/v1/sources?scope_id=" + scope).c_str());
  ASSERT_TRUE(listed);
  EXPECT_EQ(json::parse(listed->body)["high_watermark"], 0);
}

TEST_F(HostileInput, McpOverHttpNeverAnswers500) {
  for (
      const std::string& body :
      {std::string(R"({"jsonrpc": 2, "method": "ping"})"),
       std::string(R"({"jsonrpc": "2.0", "id": [], "method": "ping"})"),
       std::string(
           R"({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 5}})"),
       std::string(
           R"({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_scopes", "arguments": {"key": 5}}})"),
       Nested(100000)}) {
    auto res = http->Post("/mcp", body, "application/json");
    ASSERT_TRUE(res) << body.substr(0, 80);
    EXPECT_LT(res->status, 500) << body.substr(0, 80) << " → " << res->body;
    EXPECT_TRUE(json::parse(res->body).contains("jsonrpc")) << res->body;
  }
}

TEST_F(HostileInput, McpOverStdioGoesOnAfterMalformedMessages) {
  std::ostringstream in;
  in << R"({"jsonrpc": 2, "id": 1, "method": "ping"})"
     << "\n"
     << R"({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": 5}})"
     << "\n"
     << R"([{"jsonrpc": "2.0", "id": 3, "method": "ping"}, 7])"
     << "\n"
     << Nested(100000) << "\n"
     << std::string(10 << 20, 'x') << "\n"  // a 10 MB line
     << R"({"jsonrpc": "2.0", "id": 4, "method": "ping"})"
     << "\n";
  CliResult r = RunCli({"mcp", "--data", dir.path() + "/stdio"}, in.str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<json> replies;
  for (std::string line; std::getline(lines, line);) replies.push_back(json::parse(line));
  ASSERT_EQ(replies.size(), 6u) << r.out.substr(0, 500);
  EXPECT_EQ(replies[0]["error"]["code"], -32600);
  EXPECT_EQ(replies[1]["error"]["code"], -32602);
  ASSERT_TRUE(replies[2].is_array());
  EXPECT_EQ(replies[2][0]["id"], 3);
  EXPECT_EQ(replies[2][1]["error"]["code"], -32600);
  EXPECT_EQ(replies[3]["error"]["code"], -32700);
  EXPECT_EQ(replies[4]["error"]["code"], -32600);
  EXPECT_EQ(replies[5]["id"], 4);
  EXPECT_TRUE(replies[5].contains("result"));
}

// A dead embedding endpoint used to stop `serve` at start-up (it asked the dimension first), and
// then cost every remember its retries. Now the server starts with vectors degraded and says why.
TEST(DegradedProviders, ADeadEmbeddingEndpointDoesNotStopTheServer) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data", {"--embed-provider", "openai", "--embed-base-url",
                                              "http://127.0.0.1:1/v1", "--embed-model", "m"});
  ASSERT_TRUE(server.Start()) << "serve did not start with a dead embedding endpoint";
  httplib::Client http("127.0.0.1", server.port());
  auto created = http.Post("/v1/scopes", R"({"key": "project:degraded"})", "application/json");
  ASSERT_TRUE(created);
  std::string scope = json::parse(created->body)["scope_id"];
  for (int i = 0; i < 3; ++i) {
    auto res = http.Post(
        "/v1/memory/remember",
        json{{"scope_id", scope}, {"kind", "fact"}, {"text", "note " + std::to_string(i)}}.dump(),
        "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;
  }
  auto caps = http.Get(("/v1/capabilities/search?scope_id=" + scope).c_str());
  ASSERT_TRUE(caps);
  json modes = json::parse(caps->body)["modes"];
  EXPECT_FALSE(modes["vector"]["available"].get<bool>());
  EXPECT_FALSE(modes["vector"]["reason"].get<std::string>().empty());
  auto found = http.Post("/v1/memory/search", json{{"scope_id", scope}, {"query", "note"}}.dump(),
                         "application/json");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->status, 200) << found->body;
  EXPECT_EQ(json::parse(found->body)["mode"], "fts");
}

}  // namespace
}  // namespace pc::testing
