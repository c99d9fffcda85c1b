#include "app/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "test_util.h"

namespace pc {
namespace {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("POWERCONTEXT_DATA");
    unsetenv("POWERCONTEXT_LISTEN");
  }
  void TearDown() override { SetUp(); }
  std::string WriteFile(const std::string& text) {
    std::string path = dir.path() + "/pc.toml";
    std::ofstream(path) << text;
    return path;
  }
  testing::TempDir dir;
};

TEST_F(ConfigTest, Defaults) {
  auto c = LoadConfig("", {});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->data_dir, "./powercontext-data");
  EXPECT_EQ(c->listen_host, "127.0.0.1");
  EXPECT_EQ(c->listen_port, 8787);
  EXPECT_EQ(c->store, "sqlite");
  EXPECT_EQ(c->max_entry_bytes, 16384);
  EXPECT_EQ(c->http_threads, 512);
}

TEST_F(ConfigTest, LaterSourcesWin) {
  std::string file =
      WriteFile("data = \"/from/file\"\nlisten = \"127.0.0.1:1111\"\nmax_entry_bytes = 100\n");
  auto c = LoadConfig(file, {});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->data_dir, "/from/file");
  EXPECT_EQ(c->max_entry_bytes, 100);
  setenv("POWERCONTEXT_DATA", "/from/env", 1);
  c = LoadConfig(file, {});
  EXPECT_EQ(c->data_dir, "/from/env");
  EXPECT_EQ(c->listen_port, 1111);
  c = LoadConfig(file, {{"data", "/from/flag"}});
  EXPECT_EQ(c->data_dir, "/from/flag");
}

TEST_F(ConfigTest, BadValuesStopWithTheirOrigin) {
  setenv("POWERCONTEXT_LISTEN", "nonsense", 1);
  auto c = LoadConfig("", {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("listen"), std::string::npos);
  unsetenv("POWERCONTEXT_LISTEN");
  c = LoadConfig("", {{"max_entry_bytes", "12abc"}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("--max-entry-bytes"), std::string::npos);
  c = LoadConfig(WriteFile("unknown_thing = 1\n"), {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown_thing"), std::string::npos);
  c = LoadConfig(WriteFile("data = [\n"), {});
  EXPECT_FALSE(c.ok());
  EXPECT_FALSE(LoadConfig("", {{"store", "mysql://x"}}).ok());
  EXPECT_TRUE(LoadConfig("", {{"store", "postgresql://pc@db.internal:5432/memory"}}).ok());
  EXPECT_FALSE(LoadConfig("", {{"durability", "sometimes"}}).ok());
  EXPECT_FALSE(LoadConfig("", {{"listen", "127.0.0.1:70000"}}).ok());
}

// Rerank is off by default; the chat reranker needs the chat model it reuses (extract_*).
TEST_F(ConfigTest, ChatRerankNeedsTheChatModel) {
  auto c = LoadConfig("", {});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->rerank_provider, "none");
  c = LoadConfig("", {{"rerank_provider", "chat"}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("extract_model"), std::string::npos) << c.status().message();
  EXPECT_FALSE(
      LoadConfig("", {{"rerank_provider", "chat"}, {"extract_base_url", "http://127.0.0.1:9/v1"}})
          .ok());
  c = LoadConfig("", {{"rerank_provider", "chat"},
                      {"extract_base_url", "http://127.0.0.1:9/v1"},
                      {"extract_model", "m"}});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->rerank_provider, "chat");
  EXPECT_FALSE(LoadConfig("", {{"rerank_provider", "listwise"}}).ok());
}

// The audit log's retention: documented defaults, every source, and out-of-range values refused.
TEST_F(ConfigTest, AuditRetention) {
  auto c = LoadConfig("", {});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->audit_retention_days, 90);
  EXPECT_EQ(c->audit_denied_retention_days, 7);
  EXPECT_EQ(c->audit_denied_max_rows, 1000000);
  c = LoadConfig(WriteFile("audit_retention_days = 365\naudit_denied_max_rows = 0\n"),
                 {{"audit_denied_retention_days", "1"}});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->audit_retention_days, 365);
  EXPECT_EQ(c->audit_denied_retention_days, 1);
  EXPECT_EQ(c->audit_denied_max_rows, 0);
  for (const char* bad :
       {"audit_retention_days", "audit_denied_retention_days", "audit_denied_max_rows"}) {
    auto refused = LoadConfig("", {{bad, "-1"}});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find(bad), std::string::npos)
        << refused.status().message();
  }
}

// Handoff Report Activity Events: 90 days by default, 1 to 365 (RFC 0082).
TEST_F(ConfigTest, ActivityRetention) {
  auto c = LoadConfig("", {});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->activity_retention_days, 90);
  c = LoadConfig(WriteFile("activity_retention_days = 365\n"), {});
  PC_ASSERT_OK(c);
  EXPECT_EQ(c->activity_retention_days, 365);
  for (const char* bad : {"0", "366", "-1"}) {
    auto refused = LoadConfig("", {{"activity_retention_days", bad}});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find("activity_retention_days must be between 1 and 365"),
              std::string::npos)
        << refused.status().message();
  }
}

}  // namespace
}  // namespace pc
