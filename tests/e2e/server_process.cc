#include "server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "fake_openai.h"
#include "free_port.h"
#include "store/postgres/pg_conn.h"
#include "test_util.h"

namespace pc::testing {

std::vector<std::string> ChatFlags(const FakeOpenAi& fake) {
  return {"--extract-provider", "openai",    "--extract-base-url",        fake.base_url(),
          "--extract-model",    "fake-chat", "--extract-timeout-seconds", "5"};
}

namespace {

// With TestingPostgres(): the PostgreSQL schema that stands for a data directory, made on first
// use and dropped when the test process ends; a server or CLI run on `--data DIR` gets it as
// POWERCONTEXT_STORE, so every end-to-end test runs unchanged on PostgreSQL.
std::string StoreFor(const std::vector<std::string>& args) {
  if (!TestingPostgres()) return "";
  std::string dir;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--data") dir = args[i + 1];
  if (dir.empty()) return "";
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<TempPgSchema>> schemas;
  std::lock_guard<std::mutex> lock(mu);
  auto& schema = schemas[dir];
  if (!schema) schema = std::make_unique<TempPgSchema>();
  return schema->url();
}

// The application_name a server's PostgreSQL sessions carry: its process id.
std::string SessionName(pid_t pid) { return "powercontext-test-" + std::to_string(pid); }

pid_t Spawn(const std::vector<std::string>& args, int in_fd, int out_fd, int err_fd) {
  std::string store = StoreFor(args);
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (!store.empty()) {
    store += "&application_name=" + SessionName(getpid());
    setenv("POWERCONTEXT_STORE", store.c_str(), 1);
  }
  if (in_fd >= 0) dup2(in_fd, 0);
  if (out_fd >= 0) dup2(out_fd, 1);
  if (err_fd >= 0) dup2(err_fd, 2);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

}  // namespace

ServerProcess::ServerProcess(std::string data_dir, std::vector<std::string> extra_args)
    : data_dir_(std::move(data_dir)), extra_args_(std::move(extra_args)) {
  // The server may close a connection before reading a too-large body, as HTTP allows; the test
  // client then sees EPIPE instead of dying of SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) Kill();
}

bool ServerProcess::Start() {
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = attempt == 0 && first_port_ > 0 ? first_port_ : FreePort();
    std::vector<std::string> args = {POWERCONTEXT_BIN, "serve",
                                     "--data",         data_dir_,
                                     "--listen",       listen_host_ + ":" + std::to_string(port_)};
    if (!tls_cert_.empty())
      args.insert(args.end(), {"--tls-cert", tls_cert_, "--tls-key", tls_key_});
    args.insert(args.end(), extra_args_.begin(), extra_args_.end());
    int log = open((data_dir_ + ".server.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_ = Spawn(args, -1, log, log);
    close(log);
    httplib::Client client(url());
    if (!tls_cert_.empty()) client.set_ca_cert_path(tls_cert_);
    client.set_connection_timeout(0, 200000);
    const Started started = WaitUntilServing(
        pid_, port_,
        [&] {
          auto res = client.Get("/health/live");  // public: answers with auth on too
          return res && res->status == 200;
        },
        std::chrono::steady_clock::now() + std::chrono::seconds(20), std::chrono::milliseconds(20));
    if (started == Started::kServing) return true;
    if (started == Started::kExited)
      pid_ = -1;  // the port was taken? another
    else
      Kill();
  }
  return false;
}

int ServerProcess::Stop() { return Signal(SIGTERM); }

int ServerProcess::Kill() { return Signal(SIGKILL); }

// On PostgreSQL a killed server's sessions outlive it for a moment: a transaction whose COMMIT it
// had sent still commits, after the process is gone. A test that checks, right after a restart,
// that a cut-off write landed whole or not at all would see it land later (a crash trial did: a
// source batch cut off and found absent in trial 7 appeared in trial 8). So a server is "ended"
// once its sessions are too (at most 30 s: a session that is still there then is left as it is).
void WaitForSessionsToEnd(pid_t pid) {
  if (!TestingPostgres()) return;
  const char* base = std::getenv("POWERCONTEXT_TEST_PG");
  if (!base || !*base) return;
  auto admin = pg::Conn::Open(base);
  if (!admin.ok()) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    auto rows = (*admin)->Query("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
                                {SessionName(pid)});
    if (!rows.ok() || rows->Int(0, 0) == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int ServerProcess::Signal(int sig) {
  if (pid_ <= 0) return -1;
  kill(pid_, sig);
  int status = 0;
  waitpid(pid_, &status, 0);
  WaitForSessionsToEnd(pid_);
  pid_ = -1;
  return status;
}

int ServerProcess::Terminate(int limit_ms) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      Kill();
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  WaitForSessionsToEnd(pid_);
  pid_ = -1;
  return status;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::pair<int, std::string> RunToExit(const std::vector<std::string>& args,
                                      const std::string& err_path) {
  int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> full = {POWERCONTEXT_BIN};
  full.insert(full.end(), args.begin(), args.end());
  pid_t pid = Spawn(full, -1, -1, err);
  close(err);
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return {-1, "did not exit: it is serving"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(err_path)};
}

CliResult RunCli(const std::vector<std::string>& args, const std::string& stdin_text) {
  TempDir dir;
  std::string in_path = dir.path() + "/in", out_path = dir.path() + "/out",
              err_path = dir.path() + "/err";
  std::ofstream(in_path, std::ios::binary) << stdin_text;
  int in = open(in_path.c_str(), O_RDONLY);
  int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> full = {POWERCONTEXT_BIN};
  full.insert(full.end(), args.begin(), args.end());
  pid_t pid = Spawn(full, in, out, err);
  close(in);
  close(out);
  close(err);
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  return r;
}

}  // namespace pc::testing
