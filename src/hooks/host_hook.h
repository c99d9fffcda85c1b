// `powercontext hook claude-code|codex EVENT`: the host runs it with its hook JSON on stdin
// (Claude Code's and Codex's documented hook payloads; docs/integrations.md).
//   prompt         (UserPromptSubmit) prepared context for the prompt as additional context, then
//                  the prompt captured as a Source with an id derived from scope, session, turn
//                  and text, so a re-run captures nothing new;
//   session-start  (SessionStart: startup, resume, clear, compact) the latest handoff's
//                  continuation first, then prepared context, within the budget;
//   stop, session-end, pre-compact  the transcript's new turns appended as Sources (ids from
//                  the session and the turn's lines: a re-run appends nothing), then memory
//                  updates (flush) and a handoff (activate, finalize, commit) through the
//                  extraction provider: synchronously within handoff_wait_ms, else finished by a
//                  background process, never holding the host past its timeout.
// Every failure fails open: the host goes on, and one JSON diagnostic line goes to stderr (no
// prompt, content or scope in it). The hook never exits 2 (that would block the prompt).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace pc {

struct HookOptions {
  std::string host;    // "claude-code" or "codex"
  std::string event;   // prompt, session-start, stop, session-end, pre-compact (or the host's name)
  std::string server;  // base URL; the token comes from POWERCONTEXT_TOKEN
  std::string scope;   // configured scope; empty: derived from the payload's cwd
  int64_t max_bytes =
      8000;  // prepared context budget (Claude Code shows at most 10,000 characters)
  int64_t timeout_ms = 1000;        // prompt / session-start: the whole answer's deadline
  int64_t handoff_wait_ms = 20000;  // session end: how long the host waits for the handoff
  std::string state_dir;            // where captured transcript offsets are kept ("" : none)
  bool capture = true;              // false: prompt gives context only (doctor's trial run)
};

// The hook's exit code (0, or 1 for a usage error: the host shows it and goes on).
int RunHook(const HookOptions& options, const std::string& input, std::ostream& out,
            std::ostream& err);
// RunHook on what `fd` (standard input) gives: at most 16 MiB, within 2 s, else it fails open.
int RunHookOnInput(const HookOptions& options, int fd, std::ostream& out, std::ostream& err);

// The canonical event name for a host's or our spelling ("" when unknown).
std::string HookEventName(const std::string& name);

}  // namespace pc
