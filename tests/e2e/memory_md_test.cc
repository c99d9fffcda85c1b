// `powercontext export memory-md` and `import memory-md` through the real binary and server: the
// pointer-only index under 5,000 characters however many topics, byte-identical output for one
// revision, a round trip into another scope, a 92,000-character MEMORY.md without a model (one
// entry per bullet or row, duplicates kept once) and with one (the flush's validation).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using Json = nlohmann::json;

size_t Chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::set<std::pair<std::string, std::string>> Entries(JsonHttp& http, const std::string& scope) {
  std::set<std::pair<std::string, std::string>> out;
  auto r = http.Post("/v1/memory/entries/list", Json{{"scope_id", scope}});
  for (const Json& e : r.second["entries"])
    out.insert(std::make_pair(e["kind"].get<std::string>(), e["text"].get<std::string>()));
  return out;
}

class MemoryMd : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> args = {}) {
    server_ = std::make_unique<ServerProcess>(dir_.path() + "/data", args);
    ASSERT_TRUE(server_->Start());
  }
  CliResult Run(std::vector<std::string> args) {
    args.insert(args.end(), {"--server", server_->url()});
    return RunCli(args);
  }
  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(MemoryMd, ExportIsAPointerIndexUnderTheLimitAndRoundTrips) {
  Start();
  JsonHttp http(server_->port());
  const std::string scope = "project:memory-md";
  std::vector<std::pair<std::string, std::string>> seed = {
      {"decision", "Store order amounts as integer cents."},
      {"constraint", "金额不得为负数。"},
      {"working_note", "Next: wire the CSV validator\ninto the import command."},
      {"fact", "The importer runs nightly at 02:00 UTC | cron."},
      {"working_note", "Two paragraphs:\n\nthe second one after a blank line."},
      {"Decision", "A kind that differs from another only in case gets its own file."}};
  for (int i = 0; i < 120; ++i)  // more topics than a 5,000-character table holds
    seed.push_back(
        {"topic_" + std::to_string(i),
         "Topic " + std::to_string(i) + " has one entry, 第" + std::to_string(i) + "条。"});
  for (const auto& [kind, text] : seed)
    ASSERT_EQ(
        http.Post("/v1/memory/remember", Json{{"scope_id", scope}, {"kind", kind}, {"text", text}})
            .first,
        200);

  const std::string out = dir_.path() + "/export";
  CliResult r = Run({"export", "memory-md", "--scope", scope, "--out", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json report = Json::parse(r.out);
  EXPECT_EQ(report["entries"], seed.size());
  const std::string index = Slurp(out + "/MEMORY.md");
  EXPECT_LE(Chars(index), 5000u) << index.size();
  EXPECT_NE(index.find("## Recent (last 5)"), std::string::npos);
  EXPECT_NE(index.find("See memory/_topics.md (125 topics)."), std::string::npos) << index;
  EXPECT_TRUE(std::filesystem::exists(out + "/memory/_topics.md"));
  EXPECT_EQ(index.find("Store order amounts"), std::string::npos)
      << "older entries are behind pointers";
  const std::string decisions = Slurp(out + "/memory/decision.md");
  EXPECT_NE(decisions.find("- Store order amounts as integer cents.\n  — cite: `memory/mem_"),
            std::string::npos)
      << decisions;

  // The same revision again: byte-identical files.
  const std::string again = dir_.path() + "/again";
  ASSERT_EQ(Run({"export", "memory-md", "--scope", scope, "--out", again}).exit_code, 0);
  for (const auto& f : std::filesystem::recursive_directory_iterator(out)) {
    if (f.is_regular_file()) {
      EXPECT_EQ(Slurp(f.path().string()),
                Slurp(again + "/" + std::filesystem::relative(f.path(), out).string()))
          << f.path();
    }
  }

  // A MEMORY.md someone wrote is never overwritten.
  std::filesystem::create_directories(dir_.path() + "/mine");
  std::ofstream(dir_.path() + "/mine/MEMORY.md") << "# My notes\n- keep me\n";
  CliResult refused =
      Run({"export", "memory-md", "--scope", scope, "--out", dir_.path() + "/mine"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(Slurp(dir_.path() + "/mine/MEMORY.md"), "# My notes\n- keep me\n");

  // Into another scope (no model: one entry per bullet): the same entries, kinds and texts.
  CliResult imported = Run({"import", "memory-md", out, "--scope", "project:copy", "--json"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(Json::parse(imported.out)["mode"], "bullets");
  EXPECT_EQ(Entries(http, "project:copy"), Entries(http, scope));
  CliResult twice = Run({"import", "memory-md", out, "--scope", "project:copy", "--json"});
  Json t = Json::parse(twice.out);
  EXPECT_EQ(t["sources_new"], 0);
  EXPECT_EQ(t["entries_added"], 0);
  EXPECT_EQ(t["duplicates"], seed.size());
}

// A MEMORY.md grown as seed 002's did: 92,000 characters, 790 lines, tables and bullets, some
// facts written twice.
std::string GrownMemoryMd() {
  std::string md = "# MEMORY\n\n## Users\n| handle | role | notes |\n| --- | --- | --- |\n";
  for (int i = 0; i < 40; ++i)
    md += "| @user" + std::to_string(i) + " | engineer | 负责导入器第" + std::to_string(i) +
          "个模块的代码评审与上线，周二发布。 |\n";
  md += "\n## Projects\n| name | status | notes |\n| --- | --- | --- |\n";
  for (int i = 0; i < 60; ++i)
    md += "| project-" + std::to_string(i) + " | active | The nightly import of region " +
          std::to_string(i) +
          " runs at 02:00 UTC and retries three times before paging on-call. |\n";
  md += "\n## Decisions\n";
  int line = 0;
  while (line < 660) {
    const int i = line % 600;  // the last 60 repeat earlier ones: the same facts written again
    md +=
        "- Decision " + std::to_string(i) + ": amounts in module " + std::to_string(i) +
        " are stored as integer cents; 模块" + std::to_string(i) +
        "的金额以整数分存储，不得为负数。 Reviewed by the on-call engineer before each release.\n";
    ++line;
  }
  return md;
}

TEST_F(MemoryMd, AGrownMemoryMdWithoutAModelAndWithOne) {
  Start();
  JsonHttp http(server_->port());
  const std::string md = GrownMemoryMd();
  std::filesystem::create_directories(dir_.path() + "/grown");
  std::ofstream(dir_.path() + "/grown/MEMORY.md") << md;
  size_t lines = 0;
  for (char c : md) lines += c == '\n';
  ASSERT_GE(Chars(md), 92000u);
  ASSERT_GE(lines, 760u);
  CliResult r = Run({"import", "memory-md", dir_.path() + "/grown/MEMORY.md", "--scope",
                     "project:grown", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["mode"], "bullets");
  EXPECT_EQ(j["entries_added"], 40 + 60 + 600);
  EXPECT_EQ(j["duplicates"], 60);
  EXPECT_EQ(j["sources_new"], 1);
  EXPECT_EQ(Entries(http, "project:grown").size(), 700u);

  // Bad input changes nothing.
  EXPECT_EQ(
      Run({"import", "memory-md", dir_.path() + "/nowhere", "--scope", "project:grown"}).exit_code,
      2);
  std::filesystem::create_directories(dir_.path() + "/binary/memory");
  std::ofstream(dir_.path() + "/binary/MEMORY.md") << "- fine\n";
  std::ofstream(dir_.path() + "/binary/memory/bad.md") << "- \xff\xfe not text\n";
  CliResult bad =
      Run({"import", "memory-md", dir_.path() + "/binary", "--scope", "project:binary"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not UTF-8"), std::string::npos) << bad.err;
  EXPECT_EQ(http.Get("/v1/sources?scope_id=project%3Abinary").second["sources"].size(), 0u);
}

TEST_F(MemoryMd, WithAModelEntriesComeThroughTheFlush) {
  FakeOpenAi fake;
  std::atomic<int> windows{0};
  fake.set_chat_responder([&](const std::string&) {
    const int n = ++windows;
    return FakeOpenAi::ChatReply(
        R"({"operations": [{"op": "add", "kind": "fact", "text": "Imported fact )" +
        std::to_string(n) + R"(.", "evidence": ["S1"]}]})");
  });
  Start({"--extract-provider", "openai", "--extract-base-url", fake.base_url(), "--extract-model",
         "fake-chat"});
  JsonHttp http(server_->port());
  std::filesystem::create_directories(dir_.path() + "/small/memory");
  std::ofstream(dir_.path() + "/small/MEMORY.md") << "# MEMORY\n\n- See memory/orders.md\n";
  std::ofstream(dir_.path() + "/small/memory/orders.md")
      << "# Orders\n\n- Amounts are integer cents.\n";
  CliResult r =
      Run({"import", "memory-md", dir_.path() + "/small", "--scope", "project:model", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["mode"], "flush");
  EXPECT_EQ(j["sources_new"], 2);
  EXPECT_GE(j["entries_added"].get<int>(), 1);
  EXPECT_EQ(Entries(http, "project:model").size(), j["entries_added"].get<size_t>());
}

// Issue 27 N3, N4: a 5 MB bullet line crashed the import (std::regex), and a link in memory/
// uploaded whatever it pointed at (/etc/passwd from a cloned repository). Now the line is one
// entry, and a link or a FIFO anywhere under memory/ refuses the whole import, changing nothing.
TEST_F(MemoryMd, HostileFoldersAreRefusedAndHugeLinesRead) {
  Start();
  JsonHttp http(server_->port());
  namespace fs = std::filesystem;
  const std::string huge = dir_.path() + "/huge";
  fs::create_directories(huge + "/memory");
  std::ofstream(huge + "/memory/x.md") << "- " << std::string(5000000, 'a') << "\n";
  CliResult r = Run({"import", "memory-md", huge, "--scope", "project:huge", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out)["files"], 1);

  auto refused = [&](const std::string& folder, const std::string& scope, const std::string& why) {
    CliResult c = Run({"import", "memory-md", folder, "--scope", scope});
    EXPECT_EQ(c.exit_code, 2) << c.err;
    EXPECT_NE(c.err.find(why), std::string::npos) << c.err;
    EXPECT_NE(c.err.find("nothing was imported"), std::string::npos) << c.err;
    EXPECT_EQ(http.Get("/v1/sources?scope_id=" + scope).second["sources"].size(), 0u) << scope;
  };
  const std::string leak = dir_.path() + "/leak";
  fs::create_directories(leak + "/memory/deeper");
  std::ofstream(leak + "/MEMORY.md") << "- fine\n";
  std::ofstream(leak + "/memory/ok.md") << "- fine too\n";
  fs::create_symlink("/etc/passwd", leak + "/memory/deeper/leak.md");
  refused(leak, "project%3Aleak", "memory/deeper/leak.md is a symbolic link");
  // A linked memory/ folder, or a linked MEMORY.md, likewise.
  const std::string linked = dir_.path() + "/linked";
  fs::create_directories(linked);
  fs::create_directory_symlink("/etc", linked + "/memory");
  refused(linked, "project%3Alinked", "memory is a symbolic link");
  const std::string index = dir_.path() + "/index";
  fs::create_directories(index);
  fs::create_symlink("/etc/passwd", index + "/MEMORY.md");
  refused(index, "project%3Aindex", "MEMORY.md is a symbolic link");
  refused(index + "/MEMORY.md", "project%3Aindex", "MEMORY.md is a symbolic link");
  // A FIFO named like a memory file would have blocked the import forever.
  const std::string fifo = dir_.path() + "/fifo";
  fs::create_directories(fifo + "/memory");
  ASSERT_EQ(mkfifo((fifo + "/memory/wait.md").c_str(), 0600), 0);
  refused(fifo, "project%3Afifo", "wait.md is not a regular file");
}

}  // namespace
}  // namespace pc::testing
