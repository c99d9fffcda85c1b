// Who may do what, walked over the real route table (issue 14): every route declares an
// operation and a permission, and each role × route × in-scope/out-of-scope request answers as
// the route declares — generated from Router::Routes(), not listed by hand. In process against
// the real store and services, each request under the principal a token would give.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "api/router.h"
#include "auth/request_context.h"
#include "mcp/tools.h"
#include "mcp/transports.h"
#include "routed_services.h"
#include "test_util.h"

namespace pc {
namespace {

using nlohmann::json;

constexpr const char* kInScope = "project:orders-1";
constexpr const char* kOutOfScope = "project:billing";

class Authorization : public ::testing::Test {
 protected:
  testing::Fixture f;
  testing::RoutedServices routed{f};
  Router& router = routed.router;
  TokenService& tokens = routed.tokens;
  AuditService& audit = routed.audit;

  ApiResponse Send(const Principal& who, const std::string& method, const std::string& path,
                   const json& body = json(), std::multimap<std::string, std::string> query = {}) {
    ScopedRequest as(who, "test");
    ApiRequest req{
        method, path, {}, std::move(query), body.is_null() ? "" : body.dump(), "http://127.0.0.1"};
    return router.Dispatch(req);
  }

  // A request to `route` naming `scope` where the route takes its scope.
  ApiResponse Call(const Principal& who, const RouteInfo& route, const std::string& scope) {
    std::string path = route.pattern;  // each capture group "([^/]+)" becomes a value
    const std::string group = "([^/]+)";
    for (size_t at; (at = path.find(group)) != std::string::npos;)
      path.replace(at, group.size(), route.access.scope == ScopeIn::kPath ? scope : "1");
    json body = json::object();
    std::multimap<std::string, std::string> query;
    switch (route.access.scope) {
      case ScopeIn::kBody:
        body["scope_id"] = scope;
        break;
      case ScopeIn::kBodyKey:
        body["key"] = scope;
        break;
      case ScopeIn::kQuery:
      case ScopeIn::kQueryOptional:
        query.emplace("scope_id", scope);
        break;
      default:
        break;
    }
    return Send(who, route.method, path, route.method == "GET" ? json() : body, query);
  }
};

TEST_F(Authorization, EveryRouteDeclaresOneOperationAndPermission) {
  std::set<std::string> seen;
  auto routes = router.Routes();
  ASSERT_GT(routes.size(), 30u);
  for (const RouteInfo& r : routes) {
    ASSERT_NE(r.access.operation, nullptr);
    EXPECT_FALSE(std::string(r.access.operation).empty()) << r.method << " " << r.pattern;
    EXPECT_TRUE(seen.insert(r.method + " " + r.pattern).second) << "declared twice: " << r.pattern;
    // Only liveness, readiness, the protected-resource metadata, the API's description and the
    // console's files go without a token: none of them holds a scope's data.
    if (r.access.permission == Permission::kPublic) {
      EXPECT_TRUE(r.pattern.rfind("/health/", 0) == 0 || r.pattern.rfind("/.well-known/", 0) == 0 ||
                  r.pattern == "/openapi.json" || r.pattern.rfind("/ui", 0) == 0)
          << r.pattern;
    }
    // A writing agent cannot switch its own scope's write gates off (found by review: it could).
    if (std::string(r.access.operation) == "set_scope_settings") {
      EXPECT_EQ(r.access.permission, Permission::kAdmin);
    }
    // A route that writes never needs less than write.
    if (r.method == "POST" && r.access.permission == Permission::kRead) {
      EXPECT_TRUE(std::set<std::string>({"search_memory",
                                         "list_memory_entries",
                                         "get_memory_entry",
                                         "list_memory_changes",
                                         "prepare_context",
                                         "continue_handoff",
                                         "prune_context",
                                         "get_experience",
                                         "search_experience",
                                         "list_artifact_candidates",
                                         "get_artifact_candidate",
                                         "list_external_skills",
                                         "resolve_external_skill",
                                         "get_skill",
                                         "list_handoff_report_projects",
                                         "get_handoff_report_project",
                                         "list_handoff_report_workstreams",
                                         "get_handoff_report_workspace",
                                         "list_handoff_report_activities",
                                         "get_handoff_report"})
                      .count(r.access.operation))
          << r.access.operation << " is a POST that only reads?";
    }
  }
}

TEST_F(Authorization, EachRoleOnEachRouteInAndOutOfScopeAnswersAsDeclared) {
  // The out-of-scope scope exists (so a refusal is not "not found"), named by key and by id.
  ASSERT_EQ(Send(LocalAdministrator(), "POST", "/v1/scopes", {{"key", kOutOfScope}}).status, 201);
  std::string out_id =
      Send(LocalAdministrator(), "GET", "/v1/scopes", json(), {{"key", kOutOfScope}})
          .body["scopes"][0]["scope_id"]
          .get<std::string>();
  const std::vector<std::string> patterns = {"project:orders-*"};
  int checked = 0;
  for (Role role : {Role::kMetrics, Role::kReader, Role::kWriter, Role::kAdmin}) {
    for (bool restricted : {false, true}) {
      Principal who{std::string("t-") + RoleName(role), role,
                    restricted ? patterns : std::vector<std::string>{}, true};
      for (const RouteInfo& route : router.Routes()) {
        for (const std::string& scope : {std::string(kInScope), std::string(kOutOfScope), out_id}) {
          ApiResponse res = Call(who, route, scope);
          const std::string what = std::string(RoleName(role)) +
                                   (restricted ? "[orders-*] " : " ") + route.method + " " +
                                   route.pattern + " scope " + scope + " -> " + res.body.dump();
          bool allowed_role = who.Allows(route.access.permission);
          bool scoped =
              route.access.scope != ScopeIn::kNone && route.access.scope != ScopeIn::kFiltered;
          bool in_scope = scope == kInScope;
          bool expect_denied =
              !allowed_role ||
              (restricted && scoped && (route.access.scope == ScopeIn::kAll || !in_scope));
          if (expect_denied) {
            EXPECT_EQ(res.status, 403) << what;
            EXPECT_EQ(res.body["error"]["code"], "permission_denied") << what;
          } else {
            EXPECT_NE(res.status, 403) << what;
            EXPECT_NE(res.status, 401) << what;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 800);
}

TEST_F(Authorization, ALimitedTokenListsOnlyItsScopes) {
  for (const char* key : {kInScope, "project:orders-2", kOutOfScope})
    ASSERT_EQ(Send(LocalAdministrator(), "POST", "/v1/scopes", {{"key", key}}).status, 201);
  Principal reader{"r", Role::kReader, {"project:orders-*"}, true};
  ApiResponse all = Send(reader, "GET", "/v1/scopes");
  ASSERT_EQ(all.status, 200);
  std::set<std::string> keys;
  for (const json& s : all.body["scopes"]) keys.insert(s["key"]);
  EXPECT_EQ(keys, (std::set<std::string>{kInScope, "project:orders-2"}));
  // Paging one at a time: each page and each cursor is a scope it may see; none is skipped.
  std::vector<std::string> paged;
  std::multimap<std::string, std::string> query{{"limit", "1"}};
  for (int guard = 0; guard < 10; ++guard) {
    ApiResponse page = Send(reader, "GET", "/v1/scopes", json(), query);
    ASSERT_EQ(page.status, 200) << page.body.dump();
    for (const json& s : page.body["scopes"]) paged.push_back(s["key"]);
    if (page.body["next_cursor"].is_null()) break;
    const std::string cursor = page.body["next_cursor"];
    EXPECT_EQ(Send(reader, "GET", "/v1/scopes/" + cursor).status, 200)
        << "a cursor names a scope it may not see";
    query = {{"limit", "1"}, {"cursor", cursor}};
  }
  EXPECT_EQ(std::set<std::string>(paged.begin(), paged.end()),
            (std::set<std::string>{kInScope, "project:orders-2"}));
  EXPECT_EQ(paged.size(), 2u);
  ApiResponse lookup = Send(reader, "GET", "/v1/scopes", json(), {{"key", kOutOfScope}});
  EXPECT_EQ(lookup.status, 200) << lookup.body.dump();
  ASSERT_TRUE(lookup.body["scopes"].is_array()) << lookup.body.dump();
  EXPECT_TRUE(lookup.body["scopes"].empty()) << "a scope it may not see is not found";
}

TEST_F(Authorization, ACitationOfAnotherScopeReadsNothingOfIt) {
  ApiResponse secret = Send(LocalAdministrator(), "POST", "/v1/memory/remember",
                            {{"scope_id", kOutOfScope},
                             {"kind", "fact"},
                             {"text", "the billing password rotates on Fridays"}});
  ASSERT_EQ(secret.status, 200) << secret.body.dump();
  ASSERT_EQ(Send(LocalAdministrator(), "POST", "/v1/memory/remember",
                 {{"scope_id", kInScope}, {"kind", "fact"}, {"text", "orders import nightly"}})
                .status,
            200);
  json citation = secret.body["entry"]["citation"];
  Principal reader{"r", Role::kReader, {"project:orders-*"}, true};
  for (const auto& [path, body] : std::vector<std::pair<std::string, json>>{
           {"/v1/memory/entries/get", {{"scope_id", kInScope}, {"citation", citation}}},
           {"/v1/memory/entries/get", {{"scope_id", kOutOfScope}, {"citation", citation}}},
           {"/v1/context/prepare", {{"scope_id", kOutOfScope}, {"query", "billing password"}}},
           {"/v1/memory/search", {{"scope_id", kOutOfScope}, {"query", "billing password"}}}}) {
    ApiResponse res = Send(reader, "POST", path, body);
    EXPECT_TRUE(res.status == 403 || res.status == 404 || res.status == 409)
        << path << " " << res.body.dump();
    EXPECT_EQ(res.body.dump().find("password"), std::string::npos)
        << path << " leaked: " << res.body.dump();
  }
  // A writer limited to orders-* cannot revise or retire it either, whatever scope it names.
  Principal writer{"w", Role::kWriter, {"project:orders-*"}, true};
  for (const char* scope : {kInScope, kOutOfScope}) {
    ApiResponse res = Send(writer, "POST", "/v1/memory/entries/retire",
                           {{"scope_id", scope}, {"citation", citation}});
    EXPECT_NE(res.status, 200) << res.body.dump();
  }
  ApiResponse still = Send(LocalAdministrator(), "POST", "/v1/memory/entries/get",
                           {{"scope_id", kOutOfScope}, {"citation", citation}});
  EXPECT_EQ(still.body["state"], "active") << still.body.dump();
}

TEST_F(Authorization, AuthenticatedWritesAreAuditedUnderTheTokensName) {
  Principal writer{"agent-a", Role::kWriter, {}, true};
  ApiResponse r = Send(
      writer, "POST", "/v1/memory/remember",
      {{"scope_id", kInScope}, {"kind", "fact"}, {"text", "audit me"}, {"actor", "somebody-else"}});
  ASSERT_EQ(r.status, 200) << r.body.dump();
  ApiResponse revs =
      Send(LocalAdministrator(), "GET", "/v1/memory/revisions", json(), {{"scope_id", kInScope}});
  EXPECT_EQ(revs.body["revisions"][0]["actor"], "agent-a")
      << "a revision's actor is the token's, never the body's";
  ApiResponse log =
      Send(LocalAdministrator(), "GET", "/v1/audit", json(), {{"scope_id", kInScope}});
  ASSERT_EQ(log.status, 200) << log.body.dump();
  ASSERT_EQ(log.body["events"].size(), 1u) << log.body.dump();
  const json& e = log.body["events"][0];
  EXPECT_EQ(e["actor"], "agent-a");
  EXPECT_EQ(e["operation"], "remember_memory");
  EXPECT_EQ(e["result"], "ok");
  EXPECT_EQ(e["request_id"], "test");
  EXPECT_EQ(e["targets"]["revision"], 1);
  // A duplicate changes nothing and records nothing; a refused write records no row either.
  ASSERT_EQ(Send(writer, "POST", "/v1/memory/remember",
                 {{"scope_id", kInScope}, {"kind", "fact"}, {"text", "audit me"}})
                .status,
            200);
  ASSERT_EQ(Send(writer, "POST", "/v1/memory/remember",
                 {{"scope_id", kInScope}, {"kind", ""}, {"text", "x"}})
                .status,
            422);
  EXPECT_EQ(Send(LocalAdministrator(), "GET", "/v1/audit", json(), {{"scope_id", kInScope}})
                .body["events"]
                .size(),
            1u);
}

TEST_F(Authorization, McpToolsActUnderTheCallersToken) {
  McpTools tools(InProcessRoutes(router));
  Principal agent{"agent-mcp", Role::kWriter, {"project:orders-*"}, true};
  ScopedRequest as(agent, "mcp-test");
  auto ok = tools.Call("remember_memory",
                       {{"scope_id", kInScope}, {"kind", "fact"}, {"text", "via MCP"}});
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE(ok->is_error) << ok->structured.dump();
  auto refused = tools.Call("remember_memory",
                            {{"scope_id", kOutOfScope}, {"kind", "fact"}, {"text", "via MCP"}});
  ASSERT_TRUE(refused.ok());
  EXPECT_TRUE(refused->is_error);
  EXPECT_EQ(refused->structured["error"]["code"], "permission_denied")
      << refused->structured.dump();
  // The refusal is audited although MCP answers it inside a 200.
  audit.Flush();
  ApiResponse denied =
      Send(LocalAdministrator(), "GET", "/v1/audit", json(), {{"actor", "agent-mcp"}});
  bool found = false;
  for (const json& e : denied.body["events"])
    found = found || (e["result"] == "denied" && e["operation"] == "remember_memory" &&
                      e["request_id"] == "mcp-test");
  EXPECT_TRUE(found) << denied.body.dump();
  // The write's audit row names the token and the tool's operation, as the HTTP route would.
  ApiResponse log =
      Send(LocalAdministrator(), "GET", "/v1/audit", json(), {{"scope_id", kInScope}});
  ASSERT_EQ(log.body["events"].size(), 1u) << log.body.dump();
  EXPECT_EQ(log.body["events"][0]["actor"], "agent-mcp");
  EXPECT_EQ(log.body["events"][0]["operation"], "remember_memory");
}

TEST_F(Authorization, StoredScopePatternsThatCannotBeReadMakeATokenUseless) {
  auto made = tokens.Create({"damaged", "writer", {"project:orders-*"}, ""}, "local");
  ASSERT_TRUE(made.ok()) << made.status().message();
  ASSERT_TRUE(tokens.Authenticate(made->secret).ok());
  // A damaged row (or another writer's format): its patterns no longer parse as a list of strings.
  const std::string damage =
      "UPDATE api_tokens SET scope_patterns = '{not json' WHERE name = 'damaged'";
  PC_ASSERT_OK(f.ExecBehindTheStore(damage, damage));
  TokenService fresh(*f.store);  // a server that has not cached it: reads the damaged row
  auto who = fresh.Authenticate(made->secret);
  ASSERT_TRUE(who.ok()) << who.status().message();
  EXPECT_EQ(who->role, Role::kNone) << "unreadable patterns must never mean every scope";
  EXPECT_FALSE(who->Allows(Permission::kRead));
}

TEST_F(Authorization, ABadTokenRequestIsA422AndCreatesNothing) {
  for (const json& bad :
       {json{{"name", ""}, {"role", "writer"}}, json{{"name", "has space"}, {"role", "writer"}},
        json{{"name", "local"}, {"role", "admin"}}, json{{"name", "a"}, {"role", "root"}},
        json{{"name", "a"}, {"role", "none"}},
        json{{"name", "a"}, {"role", "reader"}, {"scopes", {""}}},
        json{{"name", "a"}, {"role", "reader"}, {"scopes", "project:*"}},
        json{{"name", "a"}, {"role", "reader"}, {"expires", "yesterday"}},
        json{{"name", "a"}, {"role", "reader"}, {"expires", "2001-01-01"}},
        json{{"name", "a"}, {"role", "reader"}, {"extra", true}}}) {
    ApiResponse r = Send(LocalAdministrator(), "POST", "/v1/tokens", bad);
    EXPECT_EQ(r.status, 422) << bad.dump() << " -> " << r.body.dump();
    EXPECT_EQ(r.body["error"]["code"], "invalid_request") << r.body.dump();
  }
  EXPECT_TRUE(Send(LocalAdministrator(), "GET", "/v1/tokens").body["tokens"].empty());
  // A second live token of one name is a 409, and the first stays as it was.
  ASSERT_EQ(
      Send(LocalAdministrator(), "POST", "/v1/tokens", {{"name", "a"}, {"role", "reader"}}).status,
      201);
  EXPECT_EQ(
      Send(LocalAdministrator(), "POST", "/v1/tokens", {{"name", "a"}, {"role", "admin"}}).status,
      409);
  ApiResponse list = Send(LocalAdministrator(), "GET", "/v1/tokens");
  ASSERT_EQ(list.body["tokens"].size(), 1u) << list.body.dump();
  EXPECT_EQ(list.body["tokens"][0]["role"], "reader");
  EXPECT_EQ(Send(LocalAdministrator(), "POST", "/v1/tokens/revoke", {{"name", "nobody"}}).status,
            404);
}

// Issue 30: the route's scope is parsed once, by the router; a limited token's server id is found
// while authorizing, and the handler (with the service it hands the scope to) keeps that lookup.
TEST_F(Authorization, TheScopeFoundWhileAuthorizingIsTheOneTheHandlerUses) {
  const std::string id = f.NewScope(kInScope);
  bool parsed = false;
  std::optional<std::string> seen_key;
  router.Add("POST", "/test/scope", {"test_scope", Permission::kRead, ScopeIn::kBody},
             [&](const ApiRequest& req) -> Result<ApiResponse> {
               parsed = req.ParsedScope() != nullptr;
               if (!parsed) return ApiResponse(200, json::object());
               // Renamed behind the store's back, which no request can do: a lookup made now
               // sees the new key, a kept one the old.
               const std::string rename =
                   std::string("UPDATE scopes SET key = 'project:renamed' ") + "WHERE key = '" +
                   kInScope + "'";
               PC_RETURN_IF_ERROR(f.ExecBehindTheStore(rename, rename));
               PC_RETURN_IF_ERROR(f.store->Read([&](ReadTxn& txn) -> Status {
                 PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> ids, req.ParsedScope()->Find(txn));
                 if (ids) seen_key = ids->key;
                 return Status::Ok();
               }));
               return ApiResponse(200, json::object());
             });
  Principal limited{"w", Role::kWriter, {"project:orders-*"}, true};
  ApiResponse res = Send(limited, "POST", "/test/scope", {{"scope_id", id}});
  ASSERT_EQ(res.status, 200) << res.body.dump();
  EXPECT_TRUE(parsed);
  EXPECT_EQ(seen_key, kInScope) << "the handler looked up again what authorization found";
  // A token of every scope is not looked up by the router: the handler's lookup is the first.
  seen_key.reset();
  ASSERT_EQ(Send(LocalAdministrator(), "POST", "/test/scope", {{"scope_id", id}}).status, 200);
  EXPECT_EQ(seen_key, "project:renamed");
  // A malformed name is not parsed for the handler: the service's own check answers it.
  ASSERT_EQ(Send(LocalAdministrator(), "POST", "/test/scope", {{"scope_id", "   "}}).status, 200);
  EXPECT_FALSE(parsed);
  // The limited token still may not name a scope outside its patterns (now the renamed one).
  EXPECT_EQ(Send(limited, "POST", "/test/scope", {{"scope_id", id}}).status, 403);
}

TEST(ScopePatterns, MatchByteForByteWithStars) {
  EXPECT_TRUE(MatchScopePattern("project:orders-*", "project:orders-1"));
  EXPECT_TRUE(MatchScopePattern("project:orders-*", "project:orders-"));
  EXPECT_FALSE(MatchScopePattern("project:orders-*", "project:order"));
  EXPECT_FALSE(MatchScopePattern("project:orders-*", "Project:orders-1"));
  EXPECT_TRUE(MatchScopePattern("*", ""));
  EXPECT_TRUE(MatchScopePattern("team/*/notes", "team/a/b/notes"));
  EXPECT_FALSE(MatchScopePattern("team/*/notes", "team/a/notes/x"));
  EXPECT_TRUE(MatchScopePattern("项目:*", "项目:订单"));
  EXPECT_TRUE(MatchScopePattern("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(MatchScopePattern("a*b*c", "aXXbYY"));
  std::string many(5000, 'a');
  EXPECT_FALSE(MatchScopePattern("*a*a*a*a*a*a*b", many));  // linear, not exponential
  EXPECT_FALSE(CheckScopePattern("").ok());
  EXPECT_FALSE(CheckScopePattern("a\nb").ok());
}

}  // namespace
}  // namespace pc
