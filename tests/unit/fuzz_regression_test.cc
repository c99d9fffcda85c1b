// Inputs the fuzzers (fuzz/, docs/testing.md) found to break something, each kept as a test here
// and as a file in fuzz/corpus/<target>/regression-* (replayed through the fuzz targets by the
// sanitized build: ctest -R fuzz_corpus).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "mcp/server.h"

namespace pc {
namespace {

// mcp_fuzzer, fuzz/corpus/mcp/regression-stray-byte*: a message that is not JSON because of a
// byte that is not UTF-8 was answered -32603 (internal error), not -32700 (parse error).
// ParseJson's message quoted the parser's "last read: '\xff'", and the reply carrying that message
// failed to serialize (nlohmann type_error 316), which Handle's last-resort catch turned into
// -32603.
TEST(FuzzRegression, ParseErrorMessagesAreUtf8) {
  for (std::string text : {std::string("\xff"), std::string("{\"a\": 1,\xff"),
                           std::string("[tru\xc3"), std::string("\"\xe4\xb8\xad\" \xe4\xb8")}) {
    auto parsed = ParseJson(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_TRUE(IsValidUtf8(parsed.status().message())) << parsed.status().message();
  }
  auto stray = ParseJson("\xff");
  EXPECT_NE(stray.status().message().find("'\\xFF'"), std::string::npos)
      << stray.status().message();
  // Valid characters in the message stay as they are.
  auto cjk = ParseJson("[\"\xe4\xb8\xad\" \xe4\xb8\xad]");
  ASSERT_FALSE(cjk.ok());
  EXPECT_TRUE(IsValidUtf8(cjk.status().message())) << cjk.status().message();
}

TEST(FuzzRegression, McpAnswersAStrayByteWithAParseError) {
  McpTools tools([](const std::string&, const std::string&,
                    const std::map<std::string, std::string>&,
                    const Json&) -> Result<Json> { return Internal("no routes here"); });
  McpServer server(tools);
  for (std::string message : {std::string("\xff"), std::string("{\"jsonrpc\": 2, \"id\":\xff"
                                                               "1, \"method\": \"ping\"}")}) {
    const std::string reply = server.Handle(message);
    auto r = nlohmann::json::parse(reply);
    EXPECT_EQ(r["error"]["code"], -32700) << reply;
    EXPECT_TRUE(r["id"].is_null()) << reply;
  }
}

}  // namespace
}  // namespace pc
