// The scope a project's memory lives in when none is configured, derived the way PowerContext's
// own Claude Code and Codex plugins derive it (project_scope.py), so both hosts — and two
// checkouts of one repository — share one memory: `git:<host>/<path>` from the normalised
// `remote.origin.url` of the repository around `cwd`, else `local:<sha256 of the project root>`.
#pragma once

#include <optional>
#include <string>

namespace pc {

// git@github.com:acme/billing.git, https://user@GitHub.com/acme/billing → github.com/acme/billing;
// an explicit port is kept (ssh://git@host:2222/a/b → host:2222/a/b); the host is lower-cased, the
// path keeps its case, one trailing .git goes. Local paths and other schemes: nullopt.
std::optional<std::string> NormalizeGitRemote(const std::string& remote);

// The default scope for a working directory (git is asked, with a 2 s limit each; no git or no
// repository: the directory itself is the project). Ids over 256 characters are hashed.
std::string DeriveProjectScope(const std::string& cwd);

}  // namespace pc
