// GET /health/live and /health/ready through the real binary: ready with no provider bound,
// ready when the configured providers answer their probe (GET /models: no tokens spent),
// degraded (still 200) when one does not, with a check per binding.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "free_port.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

std::pair<int, json> Get(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  auto res = c.Get(path);
  if (!res) return {0, json()};
  return {res->status, json::parse(res->body)};
}

TEST(Health, LiveAndReadyWithoutProviders) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(Get(server.port(), "/health/live"),
            (std::pair<int, json>{200, json{{"status", "alive"}}}));
  auto ready = Get(server.port(), "/health/ready");
  EXPECT_EQ(ready.first, 200);
  EXPECT_EQ(ready.second, (json{{"status", "ready"}, {"checks", {{"database", "ready"}}}}));
  EXPECT_EQ(Get(server.port(), "/health/ready?verbose=1").first, 422);
}

TEST(Health, ProvidersAreProbed) {
  FakeOpenAi fake(64);
  TempDir dir;
  const std::vector<std::string> flags = {
      "--embed-provider",   "openai",   "--embed-base-url",   fake.base_url(),
      "--embed-model",      "fake",     "--embed-dimension",  "64",
      "--extract-provider", "openai",   "--extract-base-url", fake.base_url(),
      "--extract-model",    "fake-chat"};
  {
    ServerProcess server(dir.path() + "/data", flags);
    ASSERT_TRUE(server.Start());
    const int before = fake.chat_requests();
    auto ready = Get(server.port(), "/health/ready");
    EXPECT_EQ(ready.first, 200);
    EXPECT_EQ(ready.second,
              (json{{"status", "ready"},
                    {"checks",
                     {{"database", "ready"}, {"embedding", "ready"}, {"extraction", "ready"}}}}))
        << ready.second.dump();
    EXPECT_EQ(fake.chat_requests(), before) << "a probe spent tokens";
  }
  // The provider fails: degraded, still 200 (memory works without it), saying which.
  fake.set_failing(true);
  {
    ServerProcess server(dir.path() + "/data", flags);
    ASSERT_TRUE(server.Start());
    auto ready = Get(server.port(), "/health/ready");
    EXPECT_EQ(ready.first, 200);
    EXPECT_EQ(ready.second["status"], "degraded") << ready.second.dump();
    EXPECT_EQ(ready.second["checks"]["extraction"], "unavailable");
    EXPECT_EQ(ready.second["checks"]["database"], "ready");
  }
  // A base URL with nothing behind it, and one whose /models is not there (a wrong path).
  const std::string nowhere = "http://127.0.0.1:" + std::to_string(FreePort()) + "/v1";
  ServerProcess unreachable(
      dir.path() + "/data2",
      {"--extract-provider", "openai", "--extract-base-url", nowhere, "--extract-model", "m"});
  ASSERT_TRUE(unreachable.Start());
  auto down = Get(unreachable.port(), "/health/ready");
  EXPECT_EQ(down.second["checks"]["extraction"], "unavailable") << down.second.dump();
  fake.set_failing(false);
  ServerProcess wrong(dir.path() + "/data3", {"--extract-provider", "openai", "--extract-base-url",
                                              fake.base_url() + "/nope", "--extract-model", "m"});
  ASSERT_TRUE(wrong.Start());
  auto misconfigured = Get(wrong.port(), "/health/ready");
  EXPECT_EQ(misconfigured.second["status"], "degraded");
  EXPECT_EQ(misconfigured.second["checks"]["extraction"], "misconfigured")
      << misconfigured.second.dump();
}

// Two tests may be handed the same free port. The second test's server then fails to bind it and
// exits, but /health/live on that port answers 200 (the first test's server): Start must not take
// that for its own server (pg:Health.ProvidersAreProbed once got the other's /health/ready).
TEST(Health, AServerStartedOnAnothersPortMovesToItsOwn) {
  TempDir dir;
  ServerProcess first(dir.path() + "/first");
  ASSERT_TRUE(first.Start());
  ServerProcess second(dir.path() + "/second");
  second.set_first_port(first.port());
  ASSERT_TRUE(second.Start());
  EXPECT_NE(second.port(), first.port());
  EXPECT_EQ(Get(second.port(), "/health/live").first, 200);
  EXPECT_EQ(Get(first.port(), "/health/live").first, 200);
}

}  // namespace
}  // namespace pc::testing
