// GET /openapi.json (issue 18): the compiled document and the router agree both ways — every route
// is described with its operation id and permission, and every described operation is a route
// (or one the HTTP layer serves itself, marked so) — and every reference in it resolves.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "auth/request_context.h"
#include "routed_services.h"
#include "test_util.h"
#include "wire/error_map.h"

namespace pc {
namespace {

using nlohmann::json;

std::string PatternOf(
    const std::string& path_template) {  // /v1/scopes/{scope_id} → /v1/scopes/([^/]+)
  std::string out;
  for (size_t i = 0; i < path_template.size(); ++i) {
    if (path_template[i] != '{') {
      out.push_back(path_template[i]);
      continue;
    }
    i = path_template.find('}', i);
    out += "([^/]+)";
  }
  return out;
}

void CheckRefs(const json& node, const json& doc, std::vector<std::string>& broken) {
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "$ref" && it->is_string()) {
        const std::string ref = it->get<std::string>();
        if (ref.rfind("#/", 0) != 0 || !doc.contains(json::json_pointer(ref.substr(1))))
          broken.push_back(ref);
      } else {
        CheckRefs(*it, doc, broken);
      }
    }
  } else if (node.is_array()) {
    for (const json& v : node) CheckRefs(v, doc, broken);
  }
}

TEST(OpenApi, TheDocumentAndTheRouteTableAgreeBothWays) {
  testing::Fixture f;
  testing::RoutedServices routed{f};
  const json doc = json::parse(OpenApiDocument());
  EXPECT_EQ(doc["openapi"], "3.1.0");
  EXPECT_EQ(doc["info"]["version"], POWERCONTEXT_VERSION);

  using Key = std::tuple<std::string, std::string, std::string,
                         std::string>;  // method, pattern, operation, permission
  std::set<Key> routes, described;
  for (const RouteInfo& r : routed.router.Routes())
    routes.insert({r.method, r.pattern, r.access.operation, PermissionName(r.access.permission)});
  std::set<std::string> operation_ids;
  for (auto path = doc["paths"].begin(); path != doc["paths"].end(); ++path)
    for (auto op = path->begin(); op != path->end(); ++op) {
      std::string method = op.key();
      for (char& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const json& o = *op;
      EXPECT_TRUE(operation_ids.insert(o["operationId"].get<std::string>()).second)
          << "operationId twice: " << o["operationId"];
      EXPECT_TRUE(o.contains("responses") && !o["responses"].empty()) << path.key();
      EXPECT_TRUE(o.contains("summary") && !o["summary"].get<std::string>().empty()) << path.key();
      if (o.value("x-powercontext-served-by", "") == "http-server")
        continue;  // /mcp, the OAuth metadata
      described.insert({method, PatternOf(path.key()),
                        o.value("x-powercontext-operation", o["operationId"].get<std::string>()),
                        o["x-powercontext-permission"].get<std::string>()});
      // A public route says so; every other inherits the document's bearer requirement.
      EXPECT_EQ(o.contains("security") && o["security"].empty(),
                o["x-powercontext-permission"] == "public")
          << path.key();
    }
  for (const Key& k : routes)
    EXPECT_TRUE(described.count(k))
        << "a route the document does not describe (run scripts/gen-openapi): " << std::get<0>(k)
        << " " << std::get<1>(k) << " " << std::get<2>(k);
  for (const Key& k : described)
    EXPECT_TRUE(routes.count(k)) << "a described operation no route serves: " << std::get<0>(k)
                                 << " " << std::get<1>(k) << " " << std::get<2>(k);
  std::vector<std::string> broken;
  CheckRefs(doc, doc, broken);
  EXPECT_TRUE(broken.empty()) << broken.size() << " unresolved $ref, e.g. "
                              << (broken.empty() ? "" : broken[0]);
}

TEST(OpenApi, ServedWithoutAToken) {
  testing::Fixture f;
  testing::RoutedServices routed{f};
  const Principal nobody;  // outlives the request scope that refers to it
  ScopedRequest anonymous(nobody, "test");
  ApiRequest req{"GET", "/openapi.json", {}, {}, "", "http://127.0.0.1"};
  ApiResponse out = routed.router.Dispatch(req);
  EXPECT_EQ(out.status, 200);
  ASSERT_TRUE(out.text);
  EXPECT_EQ(*out.text, OpenApiDocument());
  EXPECT_EQ(out.content_type, "application/json");
}

}  // namespace
}  // namespace pc

namespace pc {
namespace {

// docs/api.md's error table names every code there is, with its HTTP status and exit code as
// src/wire/error_map.cc maps them (a code added without its row was how four went missing).
TEST(ErrorTable, TheDocumentedTableHasARowForEveryCode) {
  std::ifstream in(std::string(PC_SOURCE_DIR) + "/docs/api.md.in");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  for (Code c : AllCodes()) {
    if (c == Code::kOk) continue;
    const std::string row = std::string("| `") + CodeName(c) + "` | ";
    const size_t at = text.str().find(row);
    ASSERT_NE(at, std::string::npos) << "no row for " << CodeName(c);
    if (c == Code::kStoreNotEmpty) continue;  // never over HTTP
    const std::string rest = text.str().substr(at + row.size(), 12);
    EXPECT_EQ(
        rest.rfind(std::to_string(HttpStatusFor(c)) + " | " + std::to_string(ExitCodeFor(c)), 0),
        0u)
        << CodeName(c) << ": " << rest;
  }
}

}  // namespace
}  // namespace pc
