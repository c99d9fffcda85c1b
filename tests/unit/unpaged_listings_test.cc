// The spec's unpaged listings answer a bounded amount (issue 27): POST /v1/memory/changes the
// oldest 1,000 revisions after since_revision, a client reading on from the last one; POST
// /v1/memory/entries/list a memory of at most 10,000 entries, refusing a larger one with the paged
// route named and nothing changed.
#include <gtest/gtest.h>

#include "auth/request_context.h"
#include "bulk_fill.h"
#include "routed_services.h"
#include "test_util.h"

namespace pc {
namespace {

ApiResponse Post(testing::RoutedServices& routed, const std::string& path, const Json& body) {
  ApiRequest req{"POST", path, {}, {}, body.dump(), "http://127.0.0.1"};
  return routed.router.Dispatch(req);
}

TEST(UnpagedListings, ChangesAnswerTheOldestThousandRevisionsAndAClientReadsOn) {
  testing::Fixture f;
  testing::RoutedServices routed{f};
  ScopedRequest admin(LocalAdministrator(), "test");
  const std::string scope = f.NewScope("project:changes");
  for (int i = 0; i < 1005; ++i)
    PC_ASSERT_OK(
        f.memory->Remember({scope, "fact", "change number " + std::to_string(i), "", "", {}, {}}));
  ApiResponse first =
      Post(routed, "/v1/memory/changes", {{"scope_id", scope}, {"since_revision", 0}});
  ASSERT_EQ(first.status, 200) << first.body.dump();
  EXPECT_EQ(first.body["memory"]["revision"], 1005);
  ASSERT_EQ(first.body["revisions"].size(), 1000u);
  EXPECT_EQ(first.body["revisions"][0]["memory_ref"]["revision"], 1);
  EXPECT_EQ(first.body["revisions"][999]["memory_ref"]["revision"], 1000);
  ApiResponse rest =
      Post(routed, "/v1/memory/changes", {{"scope_id", scope}, {"since_revision", 1000}});
  ASSERT_EQ(rest.status, 200);
  ASSERT_EQ(rest.body["revisions"].size(), 5u);
  EXPECT_EQ(rest.body["revisions"][0]["memory_ref"]["revision"], 1001);
  EXPECT_EQ(rest.body["revisions"][4]["memory_ref"]["revision"], 1005);
}

TEST(UnpagedListings, EntriesListRefusesAMemoryPastTenThousandEntries) {
  testing::Fixture f;
  testing::RoutedServices routed{f};
  ScopedRequest admin(LocalAdministrator(), "test");
  auto fill = [&](const std::string& key, int64_t n) {
    Scope scope = f.memory->CreateScope(key).value().scope;
    EXPECT_TRUE(
        FillMemory(
            *f.store, scope, n, [](int64_t i) { return "entry " + std::to_string(i); }, nullptr)
            .ok());
    return scope.scope_id;
  };
  const std::string fits = fill("project:fits", 10000), over = fill("project:over", 10001);
  ApiResponse ok = Post(routed, "/v1/memory/entries/list", {{"scope_id", fits}});
  ASSERT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body["entries"].size(), 10000u);
  ApiResponse refused = Post(routed, "/v1/memory/entries/list", {{"scope_id", over}});
  EXPECT_EQ(refused.status, 422) << refused.body.dump();
  EXPECT_EQ(refused.body["error"]["code"], "too_large");
  EXPECT_EQ(refused.body["error"]["details"]["limit"], 10000);
  EXPECT_NE(refused.body["error"]["message"].get<std::string>().find("GET /v1/memory/entries"),
            std::string::npos);
}

}  // namespace
}  // namespace pc
