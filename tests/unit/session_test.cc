// Reading hosts' transcripts (session/transcript.h) and where their context went
// (session/session_stats.h), on recorded Claude Code and Codex sessions in tests/data/transcripts.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "session/session_stats.h"
#include "session/transcript.h"

namespace pc {
namespace {

std::string TranscriptFile(const std::string& name) {
  std::ifstream in(std::string(PC_SOURCE_DIR) + "/tests/data/transcripts/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<TranscriptPart> Parts(const Transcript& t) {
  std::vector<TranscriptPart> out;
  for (const TranscriptEntry& e : t.entries) out.push_back(e.part);
  return out;
}

using P = TranscriptPart;

TEST(Transcript, ClaudeCodeLinesBecomeEntriesAndUnknownOrTornLinesAreSkipped) {
  auto t = ParseTranscript(TranscriptFile("claude_code_zh.jsonl"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->format, "claude-code");
  EXPECT_EQ(t->session_id, "7f3c2a10-5b1e-4c8e-9a52-3d0e6b1f4a21");
  EXPECT_EQ(t->cwd, "/home/dev/orders-importer");
  // summary, prompt, the host's reminder, thinking + text + Read, its result, text + Bash, its
  // result, the answer, the system line, the next prompt.
  EXPECT_EQ(Parts(*t),
            (std::vector<P>{P::kSystem, P::kUser, P::kSystem, P::kAssistant, P::kAssistant,
                            P::kToolCall, P::kToolResult, P::kAssistant, P::kToolCall,
                            P::kToolResult, P::kAssistant, P::kSystem, P::kUser}));
  EXPECT_EQ(t->entries[1].text, "订单导入器的金额为什么会差一分钱？请查一下 amounts.py。");
  EXPECT_EQ(t->entries[1].at_ms, 1796029200000);  // 2026-11-30T09:00:00Z
  EXPECT_EQ(t->entries[6].tool, "Read");          // a result knows the call that made it
  EXPECT_EQ(t->entries[9].tool, "Bash");
  EXPECT_NE(t->entries[6].text.find("金额以整数分存储"), std::string::npos);
  EXPECT_EQ(t->lines, 12);
  EXPECT_EQ(t->skipped, 2);  // the file-history snapshot and the torn last line
}

TEST(Transcript, CodexRolloutsSeparateTheHostsTextFromTheUsers) {
  auto t = ParseTranscript(TranscriptFile("codex_rollout_en.jsonl"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->format, "codex");
  EXPECT_EQ(t->session_id, "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(t->cwd, "/home/dev/billing");
  // instructions, environment context, the prompt (once: its event_msg copy is not counted), two
  // shell calls with their output, the answer.
  EXPECT_EQ(Parts(*t),
            (std::vector<P>{P::kSystem, P::kSystem, P::kUser, P::kToolCall, P::kToolResult,
                            P::kToolCall, P::kToolResult, P::kAssistant}));
  EXPECT_EQ(t->entries[3].text, "shell {\"command\":[\"rg\",\"MAX_RETRIES\",\"src\"]}");
  EXPECT_EQ(t->entries[4].tool, "shell");
  EXPECT_EQ(t->entries[6].tool, "shell");
  EXPECT_EQ(t->skipped, 1);  // a line type this reader does not know
}

TEST(Transcript, ChatListsAndBadInput) {
  auto chat = ParseTranscript(R"([{"role":"system","content":"Be brief."},
    {"role":"user","content":"列出文件"},
    {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"c1","content":"a.txt"},
    {"role":"assistant","content":"一个文件。"}])");
  ASSERT_TRUE(chat.ok());
  EXPECT_EQ(chat->format, "chat");
  EXPECT_EQ(Parts(*chat),
            (std::vector<P>{P::kSystem, P::kUser, P::kToolCall, P::kToolResult, P::kAssistant}));
  EXPECT_EQ(chat->entries[3].tool, "ls");
  EXPECT_FALSE(ParseTranscript("").ok());
  EXPECT_FALSE(ParseTranscript("   \n ").ok());
  EXPECT_FALSE(ParseTranscript("not json at all\n").ok());
  EXPECT_FALSE(ParseTranscript("{\"hello\": 1}\n").ok());
  EXPECT_FALSE(ParseTranscript("[1, 2").ok());
}

// Issue 27 N3: a line nested a million deep crashed the reader (nlohmann's DOM copies and dumps
// recursively); now such a line is skipped and the rest of the transcript read.
TEST(Transcript, ADeepOrHugeLineIsSkippedNotACrash) {
  const std::string deep(1000000, '[');
  const std::string close(1000000, ']');
  const std::string ok =
      R"({"type":"user","sessionId":"s","message":{"role":"user","content":"hello"}})";
  const std::string nested =
      R"({"type":"user","sessionId":"s","message":{"role":"user","content":)" + deep + close + "}}";
  auto t = ParseTranscript(ok + "\n" + nested + "\n" + ok + "\n");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->lines, 3);
  EXPECT_EQ(t->skipped, 1);
  ASSERT_EQ(t->entries.size(), 2u);
  EXPECT_EQ(t->entries[1].line, 3);
  // Within the depth limit a line is read as before.
  std::string inner = "\"x\"";
  for (int i = 0; i < kMaxTranscriptDepth - 5; ++i) inner = "[" + inner + "]";
  auto within = ParseTranscript(
      R"({"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"t","input":{"a":)" +
      inner + "}}]}}\n");
  ASSERT_TRUE(within.ok());
  EXPECT_EQ(within->skipped, 0);
  // A chat list nested too deep is refused, not read.
  auto chat = ParseTranscript("[" + deep + close + "]");
  ASSERT_FALSE(chat.ok());
  EXPECT_NE(chat.status().message().find("nested"), std::string::npos) << chat.status().message();
  // A line past the per-line limit is skipped unread.
  const std::string huge =
      R"({"type":"user","sessionId":"s","message":{"role":"user","content":")" +
      std::string(kMaxTranscriptLineBytes, 'a') + "\"}}";
  auto big = ParseTranscript(ok + "\n" + huge + "\n");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->skipped, 1);
  EXPECT_EQ(big->entries.size(), 1u);
}

// The tail of a big transcript (ReadFileTail) keeps its lines' numbers.
TEST(Transcript, ATailIsNumberedFromItsFirstLine) {
  const std::string line =
      R"({"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}})";
  auto t = ParseTranscript(line + "\n" + line + "\n", 41);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->entries.size(), 2u);
  EXPECT_EQ(t->entries[0].line, 41);
  EXPECT_EQ(t->entries[1].line, 42);
  EXPECT_FALSE(ParseTranscript("[1]\n", 41).ok());  // a tail is JSONL, never a chat list
}

TEST(SessionStats, CountsEachCategoryAndFindsTheMostExtremeSession) {
  auto claude = ParseTranscript(TranscriptFile("claude_code_zh.jsonl"));
  auto codex = ParseTranscript(TranscriptFile("codex_rollout_en.jsonl"));
  ASSERT_TRUE(claude.ok() && codex.ok());
  SessionChars a = CountSession("claude", *claude), b = CountSession("codex", *codex);
  // Every entry's characters land in exactly one category.
  int64_t all = 0;
  for (const TranscriptEntry& e : claude->entries) all += TextChars(e.text);
  EXPECT_EQ(a.total(), all);
  EXPECT_EQ(a.chars[static_cast<size_t>(ContextCategory::kUserInput)],
            TextChars(claude->entries[1].text) + TextChars(claude->entries[12].text));
  SessionStats s = Summarize({a, b});
  EXPECT_EQ(s.total(), a.total() + b.total());
  const std::string table = FormatSessionStats(s);
  EXPECT_NE(table.find("Session context breakdown (2 sessions, chars):"), std::string::npos)
      << table;
  EXPECT_NE(table.find("│ Tool results     │"), std::string::npos) << table;
  EXPECT_NE(table.find("Most extreme session: claude:"), std::string::npos) << table;
  nlohmann::json j = SessionStatsJson(s);
  EXPECT_EQ(j["sessions"], 2);
  EXPECT_EQ(j["most_extreme"]["name"], "claude");
  double shares = 0;
  for (const auto& c : j["categories"]) shares += c["share"].get<double>();
  EXPECT_NEAR(shares, 1.0, 0.002);
}

}  // namespace
}  // namespace pc
