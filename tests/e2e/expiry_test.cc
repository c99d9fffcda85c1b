// Expiry in `serve` (docs/expiry.md), from the real binary on either store: an entry written with a
// valid_until a moment ahead leaves search when the moment passes, and the server's background pass
// retires it as a revision of its own (actor system, reason expired); its old citation still
// reads. The rules themselves, with the clock moved, are tests/unit/expiry_test.cc's.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/clock.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

TEST(ExpiryServe, TheBackgroundPassRetiresWhatExpiredAsARevisionOfItsOwn) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data", {"--expiry-interval-seconds", "1"});
  ASSERT_TRUE(server.Start());
  JsonHttp http(server.port());
  const std::string scope = "project:expiry-e2e";
  auto [code, note] =
      http.Post("/v1/memory/remember", {{"scope_id", scope},
                                        {"kind", "working_note"},
                                        {"text", "Pairing with Bo on the importer until lunch"},
                                        {"valid_until", FormatTimestamp(NowMillis() + 4000)},
                                        {"explain", true}});
  ASSERT_EQ(code, 200) << note.dump();
  ASSERT_EQ(http.Post("/v1/memory/remember",
                      {{"scope_id", scope}, {"kind", "fact"}, {"text", "The importer is in Go"}})
                .first,
            200);
  const json citation = note["entry"]["citation"];

  json revisions;
  for (int i = 0; i < 300; ++i) {  // the moment, then the next pass: a few seconds at most
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    revisions = http.Get("/v1/memory/revisions?scope_id=" + scope).second;
    if (revisions["revisions"].size() >= 3) break;
  }
  ASSERT_EQ(revisions["revisions"].size(), 3u) << revisions.dump();
  const json& expired = revisions["revisions"][0];  // newest first
  EXPECT_EQ(expired["actor"], "system") << expired.dump();
  EXPECT_EQ(expired["reason"], "expired") << expired.dump();
  ASSERT_EQ(expired["changes"].size(), 1u) << expired.dump();
  EXPECT_EQ(expired["changes"][0]["entry_id"], citation["entry_id"]) << expired.dump();

  auto [listed_code, listed] = http.Post("/v1/memory/entries/list", {{"scope_id", scope}});
  ASSERT_EQ(listed_code, 200);
  ASSERT_EQ(listed["entries"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["entries"][0]["text"], "The importer is in Go");
  auto [read_code, read] =
      http.Post("/v1/memory/entries/get", {{"scope_id", scope}, {"citation", citation}});
  ASSERT_EQ(read_code, 200) << read.dump();
  EXPECT_EQ(read["text"], "Pairing with Bo on the importer until lunch");
  EXPECT_EQ(read["state"], "active") << "as it was at its revision";
}

}  // namespace
}  // namespace pc::testing
