// Security at the real binary's edge (issue 14, docs/security.md): bearer tokens made by
// `powercontext token create`, revocation seen by the next request, PowerContext's static token
// and its 401, the refusal to serve a network address without auth, the per-token rate limit,
// MCP's challenge and protected-resource metadata, and an access log that never holds a secret
// or a memory's text.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

// `token create` on the data directory (while the server runs, as an operator would).
std::string CreateToken(const std::string& data, const std::string& name, const std::string& role,
                        const std::vector<std::string>& scopes = {}) {
  std::vector<std::string> args = {"token", "create", "--data", data,    "--name",
                                   name,    "--role", role,     "--json"};
  for (const std::string& s : scopes) args.insert(args.end(), {"--scope", s});
  CliResult r = RunCli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out, nullptr, false).value("token", "");
}

json Remember(const std::string& scope, const std::string& text) {
  return {{"scope_id", scope}, {"kind", "fact"}, {"text", text}};
}

TEST(Security, TokensAreCheckedOnEveryRouteAndRevocationIsImmediate) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  ServerProcess server(data, {"--auth", "on", "--rate-limit", "0"});
  ASSERT_TRUE(server.Start());
  const std::string admin = CreateToken(data, "admin", "admin");
  const std::string agent = CreateToken(data, "agent-a", "writer", {"project:orders-*"});
  ASSERT_EQ(admin.rfind("pct_", 0), 0u);
  // A live token's name is taken: the CLI says so with the conflict exit, the API with 409.
  CliResult again =
      RunCli({"token", "create", "--data", data, "--name", "admin", "--role", "reader"});
  EXPECT_EQ(again.exit_code, 4) << again.err;
  EXPECT_NE(again.err.find("name_taken"), std::string::npos) << again.err;
  auto taken = JsonHttp(server.port())
                   .Bearer(admin)
                   .Post("/v1/tokens", {{"name", "agent-a"}, {"role", "reader"}});
  EXPECT_EQ(taken.first, 409) << taken.second.dump();
  EXPECT_EQ(taken.second["error"]["code"], "name_taken");

  JsonHttp anon(server.port());
  httplib::Headers headers;
  auto [status, body] =
      anon.Post("/v1/memory/remember", Remember("project:orders-1", "x"), &headers);
  EXPECT_EQ(status, 401);
  EXPECT_EQ(body["error"]["code"], "unauthorized");
  EXPECT_EQ(body["error"]["message"], "A valid bearer token is required.");
  EXPECT_EQ(headers.find("WWW-Authenticate")->second, "Bearer");
  EXPECT_EQ(anon.Get("/health/live").first, 200);
  EXPECT_EQ(anon.Get("/health/ready").first, 200);
  EXPECT_EQ(anon.Get("/v1/no-such-route").first, 401) << "no route map for strangers";
  EXPECT_EQ(JsonHttp(server.port()).Bearer("pct_not-a-real-token").Get("/v1/scopes").first, 401);

  JsonHttp as_agent(server.port());
  as_agent.Bearer(agent);
  auto ok =
      as_agent.Post("/v1/memory/remember", Remember("project:orders-1", "Orders import nightly."));
  ASSERT_EQ(ok.first, 200) << ok.second.dump();
  auto other = as_agent.Post("/v1/memory/remember", Remember("project:billing", "nope"));
  EXPECT_EQ(other.first, 403) << other.second.dump();
  EXPECT_EQ(as_agent.Get("/v1/tokens").first, 403) << "a writer does not manage tokens";

  CliResult revoked = RunCli({"token", "revoke", "--data", data, "agent-a"});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  auto after =
      as_agent.Post("/v1/memory/remember", Remember("project:orders-1", "after revocation"));
  EXPECT_EQ(after.first, 401) << "revocation is seen by the very next request";
  EXPECT_EQ(after.second["error"]["details"]["reason"], "revoked");

  // The CLI against the server uses POWERCONTEXT_TOKEN; the list never shows a secret. An explicit
  // --server wins over a POWERCONTEXT_DATA in the environment.
  setenv("POWERCONTEXT_TOKEN", admin.c_str(), 1);
  setenv("POWERCONTEXT_DATA", (dir.path() + "/not-the-server-data").c_str(), 1);
  CliResult list = RunCli({"--server", server.url(), "token", "list", "--json"});
  CliResult audit_cli = RunCli({"--server", server.url(), "audit", "--scope", "project:orders-1"});
  unsetenv("POWERCONTEXT_DATA");
  unsetenv("POWERCONTEXT_TOKEN");
  CliResult no_token = RunCli({"--server", server.url(), "audit"});
  EXPECT_NE(no_token.exit_code, 0);
  EXPECT_NE(no_token.err.find("unauthorized"), std::string::npos) << no_token.err;
  ASSERT_EQ(audit_cli.exit_code, 0) << audit_cli.err;
  EXPECT_NE(audit_cli.out.find("agent-a  remember_memory  ok"), std::string::npos) << audit_cli.out;
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out.find("pct_"), std::string::npos);
  EXPECT_NE(list.out.find("\"revoked\""), std::string::npos);

  // The audit log: the agent's write under its name, and the refusals (written within a second).
  JsonHttp as_admin(server.port());
  as_admin.Bearer(admin);
  json events;
  for (int i = 0; i < 50; ++i) {
    events = as_admin.Get("/v1/audit?limit=100").second["events"];
    bool has_denial = false;
    for (const json& e : events) has_denial = has_denial || e["result"] == "denied";
    if (has_denial) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  int writes = 0, denied = 0;
  for (const json& e : events) {
    if (e["operation"] == "remember_memory" && e["result"] == "ok") {
      EXPECT_EQ(e["actor"], "agent-a");
      ++writes;
    }
    if (e["result"] == "denied") ++denied;
  }
  EXPECT_EQ(writes, 1) << events.dump();
  EXPECT_GE(denied, 4) << events.dump();

  // Neither a secret nor a memory's text ever reaches the log.
  server.Stop();
  std::string log = Slurp(server.log_path());
  EXPECT_NE(log.find("remember_memory 200"), std::string::npos) << log;
  EXPECT_EQ(log.find(admin), std::string::npos);
  EXPECT_EQ(log.find(agent), std::string::npos);
  EXPECT_EQ(log.find("pct_"), std::string::npos);
  EXPECT_EQ(log.find("Orders import nightly"), std::string::npos);
}

TEST(Security, PowerContextsStaticTokenWorks) {
  TempDir dir;
  const std::string secret = "static-secret-of-sixteen-plus";
  ServerProcess server(dir.path() + "/data", {"--auth-token", secret});
  ASSERT_TRUE(server.Start());
  JsonHttp plugin(server.port());
  EXPECT_EQ(plugin.Get("/v1/capabilities").first, 401);
  plugin.Bearer(secret);
  auto [status, body] =
      plugin.Post("/v1/memory/remember", Remember("project:x", "Static tokens still work."));
  EXPECT_EQ(status, 200) << body.dump();
  EXPECT_EQ(plugin.Get("/v1/capabilities").first, 200);
}

TEST(Security, ANetworkAddressNeedsAuthOrAnExplicitOverride) {
  TempDir dir;
  for (const char* listen :
       {"0.0.0.0:0", "127.corp.invalid:0"}) {  // a name is not a loopback address
    CliResult refused = RunCli({"serve", "--data", dir.path() + "/a", "--listen", listen});
    EXPECT_NE(refused.exit_code, 0) << listen;
    EXPECT_NE(refused.err.find("--allow-unauthenticated"), std::string::npos) << refused.err;
  }

  ServerProcess open(dir.path() + "/b", {"--allow-unauthenticated"});
  open.set_listen_host("0.0.0.0");
  ASSERT_TRUE(open.Start());
  auto [status, ready] = JsonHttp(open.port()).Get("/health/ready");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(ready["status"], "degraded") << ready.dump();
  EXPECT_TRUE(ready["checks"].contains("authentication")) << ready.dump();
  open.Stop();
  EXPECT_NE(Slurp(open.log_path()).find("WARNING"), std::string::npos);

  ServerProcess secured(dir.path() + "/c", {"--auth", "on"});
  secured.set_listen_host("0.0.0.0");
  ASSERT_TRUE(secured.Start());
  EXPECT_EQ(JsonHttp(secured.port()).Get("/health/ready").second["status"], "ready");
}

TEST(Security, ATokenOverItsRateIsToldWhenToComeBack) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  ServerProcess server(data, {"--auth", "on", "--rate-limit", "1", "--rate-limit-burst", "3"});
  ASSERT_TRUE(server.Start());
  JsonHttp c(server.port());
  c.Bearer(CreateToken(data, "busy", "reader"));
  int limited = 0;
  httplib::Headers headers;
  for (int i = 0; i < 6; ++i) {
    auto r = c.c.Get("/v1/scopes");
    ASSERT_TRUE(r);
    if (r->status == 429) {
      ++limited;
      EXPECT_GE(std::stoi(r->get_header_value("Retry-After")), 1);
      EXPECT_NE(r->body.find("rate_limited"), std::string::npos);
    }
  }
  EXPECT_GE(limited, 2);
  // An MCP batch pays for each of its calls: a batch larger than the burst is refused whole.
  httplib::Client mcp("127.0.0.1", server.port());
  mcp.set_bearer_token_auth(CreateToken(data, "batcher", "reader"));
  json batch = json::array();
  for (int i = 0; i < 10; ++i)
    batch.push_back({{"jsonrpc", "2.0"}, {"id", i}, {"method", "tools/list"}});
  auto big = mcp.Post("/mcp", {{"Accept", "application/json, text/event-stream"}}, batch.dump(),
                      "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 429) << big->body;
  // Another token has its own bucket.
  JsonHttp other(server.port());
  other.Bearer(CreateToken(data, "calm", "reader"));
  EXPECT_EQ(other.Get("/v1/scopes").first, 200);
}

TEST(Security, McpOverHttpChallengesAndPublishesItsResourceMetadata) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  ServerProcess server(data, {"--auth", "on"});
  ASSERT_TRUE(server.Start());
  httplib::Client c("127.0.0.1", server.port());
  json init = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-06-18"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
  httplib::Headers accept = {{"Accept", "application/json, text/event-stream"}};
  auto r = c.Post("/mcp", accept, init.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  std::string challenge = r->get_header_value("WWW-Authenticate");
  EXPECT_NE(challenge.find("resource_metadata=\"http://127.0.0.1:" + std::to_string(server.port()) +
                           "/.well-known/oauth-protected-resource\""),
            std::string::npos)
      << challenge;
  auto meta = JsonHttp(server.port()).Get("/.well-known/oauth-protected-resource");
  EXPECT_EQ(meta.first, 200);
  EXPECT_EQ(meta.second["resource"], "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp");
  EXPECT_EQ(meta.second["bearer_methods_supported"], json::array({"header"}));

  c.set_bearer_token_auth(CreateToken(data, "agent", "writer"));
  r = c.Post("/mcp", accept, init.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST(Security, MetricsAreForAdminsAndMetricsTokensAndNameNoScope) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  ServerProcess server(data, {"--auth", "on", "--rate-limit", "0"});
  ASSERT_TRUE(server.Start());
  JsonHttp writer(server.port());
  writer.Bearer(CreateToken(data, "w", "writer"));
  ASSERT_EQ(
      writer
          .Post("/v1/memory/remember", Remember("project:secret-scope-name", "a metric-free text"))
          .first,
      200);
  ASSERT_EQ(
      writer
          .Post("/v1/memory/search", {{"scope_id", "project:secret-scope-name"}, {"query", "text"}})
          .first,
      200);
  EXPECT_EQ(writer.Get("/metrics").first, 403);
  EXPECT_EQ(JsonHttp(server.port()).Get("/metrics").first, 401);
  for (const char* role : {"metrics", "admin"}) {
    httplib::Client c("127.0.0.1", server.port());
    c.set_bearer_token_auth(CreateToken(data, std::string("scraper-") + role, role));
    auto r = c.Get("/metrics");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u);
    EXPECT_NE(r->body.find("powercontext_http_requests_total{operation=\"remember_memory\",status_"
                           "class=\"2xx\"} 1"),
              std::string::npos);
    EXPECT_NE(r->body.find("powercontext_search_duration_seconds_count{mode=\"fts\"} 1"),
              std::string::npos);
    EXPECT_NE(r->body.find("powercontext_commit_seconds_count"), std::string::npos);
    EXPECT_NE(r->body.find("powercontext_http_open_connections"), std::string::npos);
    EXPECT_EQ(r->body.find("secret-scope-name"), std::string::npos) << "a scope in a label";
    EXPECT_EQ(r->body.find("scp_"), std::string::npos);
  }
  // A metrics token reads nothing else.
  JsonHttp scraper(server.port());
  scraper.Bearer(CreateToken(data, "scraper-only", "metrics"));
  EXPECT_EQ(scraper.Get("/v1/scopes").first, 403);
}

}  // namespace
}  // namespace pc::testing
