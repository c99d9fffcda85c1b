// `powercontext hook claude-code|codex EVENT` as the hosts run it: recorded hook payloads on stdin,
// recorded transcripts (tests/data/transcripts: Claude Code JSONL and a Codex rollout, Chinese and
// English, with tool calls), the real binary against a real server and a fake chat model.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "session/session_stats.h"
#include "session/transcript.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using Json = nlohmann::json;

std::string Encoded(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out.push_back(static_cast<char>(c));
    else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

const std::string kTranscripts = std::string(PC_SOURCE_DIR) + "/tests/data/transcripts/";
const char* kFlushAnswer =
    R"({"operations": [{"op": "add", "kind": "decision", "text": "Amounts are parsed with Decimal and stored as integer cents.", "evidence": ["S1"]}]})";
const char* kHookDraft =
    R"({"state":[{"text":"Amounts are parsed with Decimal; 20 tests pass.","evidence":["C1"]}],
  "disposition":"continuable","next_action":{"text":"Add the CSV validator for negative amounts.","evidence":["C1"]},
  "omissions":[]})";

class Hooks : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(
        dir_.path() + "/data",
        std::vector<std::string>{"--extract-provider", "openai", "--extract-base-url",
                                 fake_.base_url(), "--extract-model", "fake-chat",
                                 "--extract-timeout-seconds", "10"});
    ASSERT_TRUE(server_->Start());
  }

  CliResult Hook(const std::string& host, const std::string& event, const Json& payload,
                 std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"hook", host,       event,         "--scope",
                                     scope_, "--server", server_->url()};
    if (std::find(extra.begin(), extra.end(), "--state-dir") == extra.end())
      extra.insert(extra.end(), {"--state-dir", dir_.path() + "/state"});
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(args, payload.dump());
  }
  Json Sources() {
    return http().Get("/v1/sources?scope_id=" + Encoded(scope_) + "&limit=100").second;
  }
  JsonHttp http() { return JsonHttp(server_->port()); }

  TempDir dir_;
  FakeOpenAi fake_;
  std::unique_ptr<ServerProcess> server_;
  std::string scope_ = "git:github.com/acme/orders-importer";
};

Json ClaudePrompt(const std::string& prompt) {
  return Json{
      {"session_id", "7f3c2a10-5b1e-4c8e-9a52-3d0e6b1f4a21"},
      {"transcript_path", "/home/dev/.claude/projects/-home-dev-orders-importer/7f3c2a10.jsonl"},
      {"cwd", "/home/dev/orders-importer"},
      {"permission_mode", "default"},
      {"hook_event_name", "UserPromptSubmit"},
      {"prompt", prompt}};
}

TEST_F(Hooks, PromptGetsCitedContextAndIsCapturedOnce) {
  auto fact = http().Post("/v1/memory/remember",
                          Json{{"scope_id", scope_},
                               {"kind", "decision"},
                               {"text", "订单金额以整数分存储，解析时用 Decimal。"}});
  ASSERT_EQ(fact.first, 200) << fact.second.dump();
  const Json payload = ClaudePrompt("订单金额是怎么存储的？");
  CliResult r = Hook("claude-code", "prompt", payload);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(r.out.empty()) << r.err;
  Json out = Json::parse(r.out);
  EXPECT_EQ(out["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
  const std::string context = out["hookSpecificOutput"]["additionalContext"];
  EXPECT_NE(context.find("BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1"), std::string::npos) << context;
  EXPECT_NE(context.find("订单金额以整数分存储"), std::string::npos) << context;
  EXPECT_NE(context.find(fact.second["entry"]["citation"]["entry_id"].get<std::string>()),
            std::string::npos);
  EXPECT_NE(r.err.find("\"outcome\":\"ready\""), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("订单"), std::string::npos)
      << "the diagnostic names no prompt or content: " << r.err;
  Json sources = Sources();
  ASSERT_EQ(sources["sources"].size(), 1u) << sources.dump();
  EXPECT_EQ(sources["sources"][0]["content"], "订单金额是怎么存储的？");
  // The same prompt of the same session again: nothing new is captured.
  ASSERT_EQ(Hook("claude-code", "prompt", payload).exit_code, 0);
  EXPECT_EQ(Sources()["sources"].size(), 1u);

  // A session start with no handoff and nothing its query finds: the newest entries, cited.
  CliResult start = Hook("claude-code", "session-start",
                         Json{{"session_id", "s2"},
                              {"cwd", "/home/dev/orders-importer"},
                              {"hook_event_name", "SessionStart"},
                              {"source", "startup"}});
  ASSERT_EQ(start.exit_code, 0) << start.err;
  const std::string started = Json::parse(start.out)["hookSpecificOutput"]["additionalContext"];
  EXPECT_NE(started.find("Recent memory (newest first"), std::string::npos) << started;
  EXPECT_NE(started.find("- [decision] 订单金额以整数分存储，解析时用 Decimal。 (cite: memory/"),
            std::string::npos)
      << started;
  EXPECT_NE(start.err.find("\"outcome\":\"recent\""), std::string::npos) << start.err;

  // Codex's payload (turn_id, model, a null transcript_path), the event from hook_event_name.
  Json codex{{"session_id", "019a1b2c"},
             {"turn_id", "t-1"},
             {"transcript_path", nullptr},
             {"cwd", "/repo"},
             {"hook_event_name", "UserPromptSubmit"},
             {"model", "gpt-5-codex"},
             {"permission_mode", "default"},
             {"prompt", "订单金额用 Decimal 吗？"}};
  CliResult c =
      RunCli({"hook", "codex", "--scope", scope_, "--server", server_->url()}, codex.dump());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  ASSERT_FALSE(c.out.empty()) << c.err;
  EXPECT_EQ(Json::parse(c.out)["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
  EXPECT_EQ(Sources()["sources"].size(), 2u);
}

TEST_F(Hooks, EveryFailureFailsOpen) {
  const Json payload = ClaudePrompt("anything");
  // The server is down: the prompt goes through (exit 0, nothing on stdout), one diagnostic line.
  CliResult down =
      RunCli({"hook", "claude-code", "prompt", "--scope", scope_, "--server", "http://127.0.0.1:1"},
             payload.dump());
  EXPECT_EQ(down.exit_code, 0);
  EXPECT_TRUE(down.out.empty()) << down.out;
  EXPECT_NE(down.err.find("server_unavailable"), std::string::npos) << down.err;
  // A server that does not answer in time: the deadline holds.
  const auto t0 = std::chrono::steady_clock::now();
  CliResult slow = RunCli({"hook", "claude-code", "prompt", "--scope", scope_, "--server",
                           "http://10.255.255.1:9", "--timeout-ms", "300"},
                          payload.dump());
  EXPECT_EQ(slow.exit_code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  // Input that is not a hook payload, a payload without a prompt, a transcript that is not there.
  EXPECT_EQ(Hook("claude-code", "prompt", Json("not an object")).exit_code, 0);
  CliResult garbage = RunCli({"hook", "claude-code", "prompt", "--server", server_->url()}, "{{{");
  EXPECT_EQ(garbage.exit_code, 0);
  EXPECT_NE(garbage.err.find("skipped"), std::string::npos);
  EXPECT_EQ(Hook("claude-code", "prompt", Json{{"hook_event_name", "UserPromptSubmit"}}).exit_code,
            0);
  CliResult gone = Hook("claude-code", "stop",
                        Json{{"transcript_path", "/no/such.jsonl"}, {"hook_event_name", "Stop"}});
  EXPECT_EQ(gone.exit_code, 0);
  EXPECT_NE(gone.err.find("cannot read the transcript"), std::string::npos) << gone.err;
  // A usage error is exit 1 (the host shows it and goes on), never 2 (which blocks the prompt).
  EXPECT_EQ(RunCli({"hook", "claude-code", "no-such-event"}, "{}").exit_code, 1);
  EXPECT_EQ(RunCli({"hook", "cursor", "prompt"}, "{}").exit_code, 1);
  // So are its option and configuration errors (the review found them exiting 2).
  EXPECT_EQ(RunCli({"hook", "claude-code", "prompt", "--max-bytes", "2k"}, "{}").exit_code, 1);
  EXPECT_EQ(RunCli({"hook", "claude-code", "prompt", "--durability", "nonsense"}, "{}").exit_code,
            1);
  EXPECT_EQ(RunCli({"hook", "claude-code", "prompt", "--no-such-option"}, "{}").exit_code, 1);
  // A transcript with odd shapes (a block whose type is a number, a line that is a string).
  const std::string odd = dir_.path() + "/odd.jsonl";
  std::ofstream(odd)
      << R"({"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":0},{"type":"text","text":"hi"}]},"isMeta":"yes"})"
      << "\n\"just a string\"\n[1,2]\n";
  CliResult weird =
      Hook("claude-code", "stop", Json{{"transcript_path", odd}, {"hook_event_name", "Stop"}});
  EXPECT_EQ(weird.exit_code, 0) << weird.err;
  EXPECT_EQ(RunCli({"session-stats", odd}).exit_code, 0);
  EXPECT_EQ(Sources()["sources"].size(), 1u);  // the odd transcript's one turn
}

TEST_F(Hooks, StopCapturesTheTranscriptThenMemoryAndAHandoffAndSessionStartContinues) {
  fake_.ScriptChat({{kFlushAnswer}, {kHookDraft}});
  Json stop{{"session_id", "7f3c2a10-5b1e-4c8e-9a52-3d0e6b1f4a21"},
            {"transcript_path", kTranscripts + "claude_code_zh.jsonl"},
            {"cwd", "/home/dev/orders-importer"},
            {"hook_event_name", "Stop"},
            {"stop_hook_active", false}};
  CliResult r = Hook("claude-code", "stop", stop);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;  // nothing for the host to act on
  Json diag = Json::parse(r.err);
  EXPECT_EQ(diag["outcome"], "captured") << r.err;
  EXPECT_EQ(diag["turns"], 2);  // the summary and the first prompt's work; the next prompt
  EXPECT_EQ(diag["memory"], "flushed") << r.err;
  EXPECT_EQ(diag["handoff"], "committed") << r.err;
  Json sources = Sources()["sources"];
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_NE(sources[0]["content"].get<std::string>().find("User: 订单导入器的金额为什么会差一分钱"),
            std::string::npos);
  EXPECT_NE(sources[0]["content"].get<std::string>().find("Tool result (Read):"),
            std::string::npos);
  EXPECT_EQ(sources[1]["content"], "User: Next: add the CSV validator for negative amounts.");
  auto entries = http().Get("/v1/memory/entries?scope_id=" + Encoded(scope_));
  ASSERT_EQ(entries.second["entries"].size(), 1u) << entries.second.dump();

  // Where the session's context went, recorded per scope: the same counts as the transcript's.
  auto transcript = ParseTranscript(Slurp(kTranscripts + "claude_code_zh.jsonl"));
  ASSERT_TRUE(transcript.ok());
  const SessionChars expected = CountSession("", *transcript);
  auto stats = http().Get("/v1/stats?sessions=true&scope_id=" + Encoded(scope_));
  ASSERT_EQ(stats.first, 200) << stats.second.dump();
  const Json& sessions = stats.second["sessions"];
  ASSERT_EQ(sessions["sessions"], 1) << sessions.dump();
  EXPECT_EQ(sessions["per_session"][0]["name"], "7f3c2a10-5b1e-4c8e-9a52-3d0e6b1f4a21");
  EXPECT_EQ(sessions["per_session"][0]["chars"], ContextCharsJson(expected.chars));
  EXPECT_FALSE(http()
                   .Get("/v1/stats?scope_id=" + Encoded(scope_))
                   .second.contains("sessions"));  // only on request
  CliResult table = RunCli({"session-stats", "--scope", scope_, "--server", server_->url()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Session context breakdown (1 session, chars):"), std::string::npos)
      << table.out;

  // Again, with and without the saved offset: nothing is appended.
  CliResult again = Hook("claude-code", "stop", stop);
  EXPECT_NE(again.err.find("nothing_new"), std::string::npos) << again.err;
  CliResult fresh =
      Hook("claude-code", "stop", stop, {"--state-dir", dir_.path() + "/other-state"});
  EXPECT_EQ(fresh.exit_code, 0);
  EXPECT_EQ(Sources()["sources"].size(), 2u) << fresh.err;

  // The last turn stays open: what the host adds to it later is captured next time.
  const std::string grown = dir_.path() + "/grown.jsonl";
  std::ofstream(grown) << Slurp(kTranscripts + "claude_code_zh.jsonl")
                              .substr(0,
                                      Slurp(kTranscripts + "claude_code_zh.jsonl").rfind('\n') + 1);
  Json on_grown = stop;
  on_grown["transcript_path"] = grown;
  fake_.ScriptChat({{R"({"operations": []})"}, {kHookDraft}});
  ASSERT_EQ(Hook("claude-code", "stop", on_grown, {"--state-dir", dir_.path() + "/grown-state"})
                .exit_code,
            0);
  const size_t before_growth = Sources()["sources"].size();
  std::ofstream(grown, std::ios::app)
      << R"({"parentUuid":"u8","cwd":"/home/dev/orders-importer","sessionId":"7f3c2a10-5b1e-4c8e-9a52-3d0e6b1f4a21","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I will add the validator next."}]},"uuid":"u9","timestamp":"2026-11-30T09:05:30.000Z"})"
      << "\n";
  fake_.ScriptChat({{R"({"operations": []})"}, {kHookDraft}});
  CliResult grew =
      Hook("claude-code", "stop", on_grown, {"--state-dir", dir_.path() + "/grown-state"});
  ASSERT_EQ(grew.exit_code, 0) << grew.err;
  Json after_growth = Sources()["sources"];
  ASSERT_EQ(after_growth.size(), before_growth + 1) << grew.err;
  EXPECT_NE(
      after_growth.back()["content"].get<std::string>().find("I will add the validator next."),
      std::string::npos);

  // The next session starts from the handoff, then the memory.
  Json start{{"session_id", "next"},
             {"cwd", "/home/dev/orders-importer"},
             {"hook_event_name", "SessionStart"},
             {"source", "startup"},
             {"model", "claude-sonnet-4-6"}};
  CliResult s = Hook("claude-code", "session-start", start);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string context = Json::parse(s.out)["hookSpecificOutput"]["additionalContext"];
  EXPECT_EQ(context.rfind("PowerContext memory for this project: scope_id \"" + scope_ + "\"", 0),
            0u)
      << context;
  const size_t handoff = context.find("Where the last session stopped");
  const size_t memory =
      context.find("Amounts are parsed with Decimal and stored as integer cents.");
  ASSERT_NE(handoff, std::string::npos) << context;
  EXPECT_NE(context.find("Next: Add the CSV validator for negative amounts."), std::string::npos)
      << context;
  ASSERT_NE(memory, std::string::npos) << context;
  EXPECT_LT(handoff, memory);
  EXPECT_LE(context.size(), 8000u);
}

TEST_F(Hooks, CodexRolloutAndNoModelAndTheBackground) {
  // Codex's rollout at Stop, with a model too slow for the wait: the hook returns, the handoff is
  // finished in the background.
  fake_.ScriptChat({{kFlushAnswer}, {kHookDraft, 200, 2500}});
  Json stop{{"session_id", "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5b"},
            {"turn_id", "t-9"},
            {"transcript_path", kTranscripts + "codex_rollout_en.jsonl"},
            {"cwd", "/home/dev/billing"},
            {"hook_event_name", "Stop"},
            {"model", "gpt-5-codex"},
            {"permission_mode", "default"},
            {"stop_hook_active", false},
            {"last_assistant_message", "Webhooks are retried 3 times."}};
  const auto t0 = std::chrono::steady_clock::now();
  CliResult r = Hook("codex", "stop", stop, {"--handoff-wait-ms", "300"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(2400)) << r.err;
  EXPECT_NE(r.err.find("\"handoff\":\"background\""), std::string::npos) << r.err;
  EXPECT_EQ(Sources()["sources"].size(), 1u);
  bool committed = false;
  for (int i = 0; i < 100 && !committed; ++i) {
    auto h = http().Get("/v1/handoff?scope_id=" + Encoded(scope_));
    committed = h.first == 200 && h.second.contains("reference");
    if (!committed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(committed) << "the background handoff never committed";

  // A server without a model: the sources are still captured, and the hook says what is missing.
  ServerProcess bare(dir_.path() + "/bare");
  ASSERT_TRUE(bare.Start());
  CliResult no_model = RunCli({"hook", "claude-code", "session-end", "--scope", scope_, "--server",
                               bare.url(), "--state-dir", dir_.path() + "/bare-state"},
                              Json{{"session_id", "s"},
                                   {"transcript_path", kTranscripts + "claude_code_zh.jsonl"},
                                   {"hook_event_name", "SessionEnd"},
                                   {"reason", "prompt_input_exit"}}
                                  .dump());
  ASSERT_EQ(no_model.exit_code, 0) << no_model.err;
  EXPECT_NE(no_model.err.find("\"outcome\":\"captured\""), std::string::npos) << no_model.err;
  EXPECT_NE(no_model.err.find("needs an extraction provider"), std::string::npos) << no_model.err;
  EXPECT_EQ(
      JsonHttp(bare.port()).Get("/v1/sources?scope_id=" + Encoded(scope_)).second["sources"].size(),
      2u);
}

// Issue 27 N3, N9: a transcript with one line nested a million deep crashed the stop hook (so
// nothing of it was ever captured), and a FIFO as the transcript held it past 60 s (its budget is
// 8 s). Now the deep line is skipped and the rest captured; the FIFO fails open at once.
TEST_F(Hooks, HostileTranscriptsFailOpenWithinTheBudget) {
  fake_.ScriptChat({{R"({"operations": []})"}, {kHookDraft}});
  const std::string deep = dir_.path() + "/deep.jsonl";
  {
    std::ofstream out(deep);
    out << R"({"type":"user","sessionId":"s-deep","message":{"role":"user","content":"Keep amounts in cents."}})"
        << "\n";
    out << R"({"type":"assistant","sessionId":"s-deep","message":{"role":"assistant","content":)"
        << std::string(1000000, '[') << std::string(1000000, ']') << "}}\n";
    out << R"({"type":"assistant","sessionId":"s-deep","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}})"
        << "\n";
  }
  CliResult r =
      Hook("claude-code", "stop",
           Json{{"session_id", "s-deep"}, {"transcript_path", deep}, {"hook_event_name", "Stop"}},
           {"--handoff-wait-ms", "2000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("\"outcome\":\"captured\""), std::string::npos) << r.err;
  Json sources = Sources()["sources"];
  ASSERT_EQ(sources.size(), 1u) << r.err;
  EXPECT_EQ(sources[0]["content"], "User: Keep amounts in cents.\nAssistant: Done.");

  const std::string fifo = dir_.path() + "/fifo.jsonl";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  CliResult waiting =
      Hook("claude-code", "stop", Json{{"transcript_path", fifo}, {"hook_event_name", "Stop"}});
  EXPECT_EQ(waiting.exit_code, 0);
  EXPECT_NE(waiting.err.find("cannot read the transcript: is a FIFO, not a regular file"),
            std::string::npos)
      << waiting.err;
  CliResult zero = Hook("claude-code", "stop",
                        Json{{"transcript_path", "/dev/zero"}, {"hook_event_name", "Stop"}});
  EXPECT_EQ(zero.exit_code, 0);
  EXPECT_NE(zero.err.find("not a regular file"), std::string::npos) << zero.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(Sources()["sources"].size(), 1u);

  // A hook payload nested a million deep: skipped, exit 0.
  CliResult payload =
      RunCli({"hook", "claude-code", "prompt", "--scope", scope_, "--server", server_->url()},
             "{\"prompt\":" + std::string(1000000, '[') + std::string(1000000, ']') + "}");
  EXPECT_EQ(payload.exit_code, 0);
  EXPECT_NE(payload.err.find("skipped"), std::string::npos) << payload.err;
}

}  // namespace
}  // namespace pc::testing
