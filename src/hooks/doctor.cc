#include "hooks/doctor.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "client/api_client.h"
#include "common/utf8.h"
#include "hooks/project_scope.h"

namespace pc {
using Json = nlohmann::json;

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `command` through the shell as a host does, `input` on stdin; exit code, stdout, stderr.
struct Ran {
  int code = -1;
  std::string out, err;
};
Ran RunShell(const std::string& command, const std::string& input) {
  Ran r;
  char in_path[] = "/tmp/pc-doctor-in-XXXXXX", err_path[] = "/tmp/pc-doctor-err-XXXXXX";
  int in_fd = mkstemp(in_path), err_fd = mkstemp(err_path);
  if (in_fd < 0 || err_fd < 0) return r;
  (void)!write(in_fd, input.data(), input.size());
  close(in_fd);
  close(err_fd);
  if (FILE* p = popen((command + " < " + in_path + " 2> " + err_path).c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  r.err = Slurp(err_path);
  std::remove(in_path);
  std::remove(err_path);
  return r;
}

}  // namespace

std::vector<DoctorCheck> RunHostDoctor(const SetupOptions& o) {
  std::vector<DoctorCheck> out;
  const SetupFiles files = FilesFor(o);
  // 1. Our entries in the host's files.
  const std::string mcp = Slurp(files.mcp);
  const bool mcp_ok = o.host == "codex"
                          ? mcp.find("[mcp_servers.powercontext]") != std::string::npos
                          : mcp.find("\"powercontext\"") != std::string::npos;
  out.push_back(
      {"mcp entry", mcp_ok,
       files.mcp + (mcp_ok ? "" : ": no powercontext server; run powercontext setup " + o.host)});
  std::string hook_command;
  if (!files.hooks.empty()) {
    Json hooks = Json::parse(Slurp(files.hooks), nullptr, false);
    if (hooks.is_object() && hooks.contains("hooks") && hooks["hooks"].is_object())
      for (const auto& [event, groups] : hooks["hooks"].items())
        if (event == "UserPromptSubmit" && groups.is_array())
          for (const Json& g : groups)
            if (g.is_object() && g.contains("hooks") && g["hooks"].is_array())
              for (const Json& h : g["hooks"])
                if (h.is_object() && h.contains("command") && h["command"].is_string() &&
                    h["command"].get<std::string>().find(" hook " + o.host + " prompt") !=
                        std::string::npos)
                  hook_command = h["command"].get<std::string>();
    out.push_back(
        {"hooks", !hook_command.empty(),
         files.hooks + (hook_command.empty()
                            ? ": no powercontext prompt hook; run powercontext setup " + o.host
                            : "")});
  }
  // 2. The server, 3. the token, 4. the scope.
  ApiClient api(o.server);
  api.SetTimeout(3000);
  auto health = api.Get("/v1/health");
  out.push_back({"server", health.ok(),
                 health.ok() ? o.server + " answers (version " + health->value("version", "?") + ")"
                             : health.status().message()});
  if (health.ok()) {
    auto caps = api.Get("/v1/capabilities");
    out.push_back({"token", caps.ok(), caps.ok() ? "accepted" : caps.status().message()});
    const std::string scope =
        !o.scope.empty() ? o.scope
                         : DeriveProjectScope(o.user ? "." : (o.project.empty() ? "." : o.project));
    auto prepared = api.Post("/v1/context/prepare",
                             Json{{"scope_id", scope}, {"query", "doctor"}, {"max_bytes", 512}});
    out.push_back({"scope", prepared.ok(),
                   scope + (prepared.ok() ? " is readable" : ": " + prepared.status().message())});
  }
  // 5. The installed prompt hook, run as the host runs it.
  if (!hook_command.empty()) {
    Json payload{{"session_id", "powercontext-doctor"},
                 {"transcript_path", nullptr},
                 {"cwd", o.project.empty() ? "." : o.project},
                 {"hook_event_name", "UserPromptSubmit"},
                 {"prompt", "powercontext doctor"}};
    Ran r = RunShell(hook_command + " --no-capture", payload.dump());  // a trial: keeps nothing
    Json diag = Json::parse(r.err.substr(0, r.err.find('\n')), nullptr, false);
    const std::string outcome =
        diag.is_object() && diag.contains("outcome") && diag["outcome"].is_string()
            ? diag["outcome"].get<std::string>()
            : "";
    const bool ok = r.code == 0 && (outcome == "ready" || outcome == "empty");
    out.push_back({"prompt hook", ok,
                   ok ? "answers (" + outcome + ")"
                      : "exit " + std::to_string(r.code) +
                            (outcome.empty() ? ": " + CutUtf8(EscapeInvalidUtf8(r.err), 200)
                                             : ", outcome " + outcome)});
  }
  return out;
}

}  // namespace pc
