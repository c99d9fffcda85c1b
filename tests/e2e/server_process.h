// Runs the real powercontext binary for end-to-end tests: a server on a free loopback port with a
// data directory, and one-shot CLI invocations.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace pc::testing {

class FakeOpenAi;

// The serve flags of an extraction provider pointed at `fake` (model "fake-chat", 5 s timeout).
std::vector<std::string> ChatFlags(const FakeOpenAi& fake);

class ServerProcess {
 public:
  explicit ServerProcess(std::string data_dir, std::vector<std::string> extra_args = {});
  ~ServerProcess();  // kills the server if still running

  // Listen on this host (default 127.0.0.1) rather than loopback only; call before Start().
  void set_listen_host(std::string host) { listen_host_ = std::move(host); }
  // Serve HTTPS with this PEM certificate and key; Start() then checks /health/live over TLS,
  // trusting `cert` (a self-signed certificate is its own CA). Call before Start().
  void set_tls(std::string cert, std::string key) {
    tls_cert_ = std::move(cert);
    tls_key_ = std::move(key);
  }
  // The server's stderr (start-up lines, the access log).
  std::string log_path() const { return data_dir_ + ".server.log"; }
  // Starts the server on a free port and waits until GET /health/live answers 200 and the port is
  // this server's (another test's server may have been handed the same one: then another port).
  bool Start();
  // Test of Start itself: its first attempt uses `port` instead of a free one.
  void set_first_port(int port) { first_port_ = port; }
  // Both answer the process's wait status (waitpid), or -1 if it was not running: after Kill,
  // anything but "killed by SIGKILL" means the server had already ended on its own.
  int Stop();  // SIGTERM, then wait
  int Kill();  // SIGKILL, then wait: a crash
  // SIGTERM, then waits at most `limit` for the process to end: its wait status, or -2 when it
  // was still running then (it is then killed).
  int Terminate(int limit_ms);
  int port() const { return port_; }
  std::string url() const {
    return (tls_cert_.empty() ? "http://127.0.0.1:" : "https://127.0.0.1:") + std::to_string(port_);
  }

 private:
  int Signal(int sig);  // sends it, then waits for the process to end

  std::string data_dir_;
  std::vector<std::string> extra_args_;
  std::string listen_host_ = "127.0.0.1";
  std::string tls_cert_, tls_key_;
  pid_t pid_ = -1;
  int port_ = 0;
  int first_port_ = 0;
};

// A citation object ({memory_ref, entry_id, entry_version_id}) in its string form
// (memory/mem_…@R#ent_…@env_…), which the CLI and every route also take.
inline std::string CitationString(const nlohmann::json& c) {
  const nlohmann::json& m = c["memory_ref"];
  return m["family"].get<std::string>() + "/" + m["artifact_id"].get<std::string>() + "@" +
         std::to_string(m["revision"].get<int64_t>()) + "#" + c["entry_id"].get<std::string>() +
         "@" + c["entry_version_id"].get<std::string>();
}

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A file's bytes ("" when it cannot be read).
std::string Slurp(const std::string& path);

// Runs `powercontext ARGS` that must exit by itself within 15 s (e.g. a `serve` that must refuse
// to start); its exit code (-1 when it had to be killed) and its stderr, kept in `err_path`.
std::pair<int, std::string> RunToExit(const std::vector<std::string>& args,
                                      const std::string& err_path);

// Runs `powercontext ARGS...` with `stdin_text` on standard input.
CliResult RunCli(const std::vector<std::string>& args, const std::string& stdin_text = "");

// A free TCP port on 127.0.0.1 (bound and released; the kernel will not hand it out again soon).

}  // namespace pc::testing
