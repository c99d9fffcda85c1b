#include "providers/command_extractor.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "ops/metrics.h"

extern char** environ;

namespace pc {
namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void CloseEnd(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

}  // namespace

Result<std::string> CommandExtractor::Extract(const ExtractionRequest& request) {
  return ops::MeasureProviderCall(ops::Provider::kExtract, [&] { return Run(request); });
}

namespace {

// Runs `command` with /bin/sh in its own process group (a timeout kills it all), its standard
// streams the pipes' ends; closes the ends the child took.
Result<pid_t> Spawn(const std::string& command, Pipe& in, Pipe& out, Pipe& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return Status(Code::kProviderUnavailable,
                  "cannot run extract_command: " + std::string(strerror(rc)));
  in.CloseEnd(0);
  out.CloseEnd(1);
  err.CloseEnd(1);
  return pid;
}

// What the program wrote, up to the limit, and how the exchange ended.
struct Exchanged {
  std::string answer, errors;
  bool too_much = false, timed_out = false;
};

// Writes `input` to the program's stdin while reading its stdout and stderr, until both close
// or the deadline passes.
Exchanged Exchange(const std::string& input, Pipe& in, Pipe& out, Pipe& err, size_t max_output,
                   std::chrono::steady_clock::time_point deadline) {
  Exchanged x;
  fcntl(in.fd[1], F_SETFL, O_NONBLOCK);
  size_t written = 0;
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    pollfd fds[3];
    int n = 0;
    if (in.fd[1] >= 0) fds[n++] = {in.fd[1], POLLOUT, 0};
    if (out.fd[0] >= 0) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[n++] = {err.fd[0], POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      x.timed_out = true;
      break;
    }
    if (poll(fds, static_cast<nfds_t>(n), static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in.fd[1]) {
        ssize_t w = write(in.fd[1], input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) written = input.size();  // it closed stdin: stop writing
        if (written >= input.size()) in.CloseEnd(1);
        continue;
      }
      char buf[65536];
      ssize_t r = read(fds[i].fd, buf, sizeof buf);
      bool is_out = fds[i].fd == out.fd[0];
      if (r <= 0) {
        (is_out ? out : err).CloseEnd(0);
        continue;
      }
      std::string& sink = is_out ? x.answer : x.errors;
      if (sink.size() < max_output)
        sink.append(buf, static_cast<size_t>(r));
      else
        x.too_much = true;
    }
  }
  return x;
}

}  // namespace

Result<std::string> CommandExtractor::Run(const ExtractionRequest& request) {
  const std::string input =
      nlohmann::json{{"prompt_version", request.prompt_version},
                     {"instructions", request.instructions},
                     {"input", ParseJson(request.input_json).value_or(nlohmann::json())},
                     {"output_schema", ParseJson(request.output_schema).value_or(nlohmann::json())}}
          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Pipe in, out, err;
  if (pipe2(in.fd, O_CLOEXEC) != 0 || pipe2(out.fd, O_CLOEXEC) != 0 ||
      pipe2(err.fd, O_CLOEXEC) != 0)
    return Internal("cannot create pipes for extract_command");
  PC_ASSIGN_OR_RETURN(pid_t pid, Spawn(options_.command, in, out, err));

  // A program that exits without reading all its input must not kill us with SIGPIPE: block it
  // in this thread while writing, and drop any that is pending afterwards.
  sigset_t pipe_signal, old_mask;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
  const Exchanged x =
      Exchange(input, in, out, err, options_.max_output_bytes,
               std::chrono::steady_clock::now() + std::chrono::seconds(options_.timeout_seconds));
  if (x.timed_out) kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const timespec no_wait{0, 0};
  while (sigtimedwait(&pipe_signal, nullptr, &no_wait) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (x.timed_out)
    return Status(Code::kProviderUnavailable, "extract_command did not finish within " +
                                                  std::to_string(options_.timeout_seconds) + " s");
  if (x.too_much)
    return Status(Code::kProviderError, "extract_command wrote more than " +
                                            std::to_string(options_.max_output_bytes) + " bytes");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status(Code::kProviderError,
                  "extract_command failed (" +
                      (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                         : "signal " + std::to_string(WTERMSIG(status))) +
                      "): " + CutUtf8(x.errors, 300));
  return x.answer;
}

}  // namespace pc
