// The host-local registry of external, Agent-native Skills (RFC 0051's first slice,
// docs/skills.md): with configured roots (setting `external_skill_roots`), a scan of a scope
// registers each package found under them (a directory with a SKILL.md) with its whole-package
// fingerprint; list and resolve then answer from the registration, rechecked live: a package is
// `available` only while it is still readable here and its fingerprint still matches. Nothing is
// installed, copied, run or fallen back to. The registry is a rebuildable projection kept in this
// server's memory, one per scope; a restart (or another server) starts empty until a scan.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "service/core/scope_ref.h"
#include "store/store.h"

namespace pc {

inline constexpr const char* kExternalSkillProvider = "codex";  // the spec's one provider
inline constexpr size_t kMaxExternalSkillsPerScope = 500;       // a scan registers at most
inline constexpr size_t kMaxExternalSkillIdChars = 128;
inline constexpr size_t kMaxLocatorChars = 2000;  // the spec's locator maxLength

// A configured root: packages are its immediate subdirectories; `installation_scope` is the
// spec's user, project or plugin.
struct ExternalSkillRoot {
  std::string installation_scope;
  std::string path;
};
// The setting's form: "user=/home/me/.codex/skills,project=/repo/.agents/skills" (absolute
// paths; several roots may share an installation scope). Empty: none.
Result<std::vector<ExternalSkillRoot>> ParseExternalSkillRoots(const std::string& setting);

struct ExternalSkillRegistration {
  std::string external_skill_id;  // external:codex:<installation scope>/<directory name>
  std::string host_id;
  std::string installation_scope;
  std::string locator;  // the package directory's path on this host
  std::string fingerprint;
  std::string name, description;

  bool operator==(const ExternalSkillRegistration&) const = default;
};

struct ExternalSkillResolution {
  ExternalSkillRegistration registration;
  bool available = false;
  std::string entrypoint;  // the package's SKILL.md, when available
};

// The exact registered version of a package as an import captures it: its SKILL.md, read while
// the whole package still had the registered fingerprint.
struct ExternalSkillSnapshot {
  ExternalSkillRegistration registration;
  std::string skill_md;
};

struct ExternalSkillScan {
  std::vector<ExternalSkillRegistration> registrations;  // by external_skill_id
  int64_t skipped = 0;  // directories under the roots that are not a usable package
};

class ExternalSkillRegistry {
 public:
  // `store`: to find the key of a scope named by its server id. `host_id`: this host's name.
  ExternalSkillRegistry(Store& store, std::vector<ExternalSkillRoot> roots, std::string host_id);

  // Whether any root is configured; every call below is 503
  // external_skill_registry_unavailable until one is.
  bool configured() const { return !roots_.empty(); }

  // Reads every root and replaces the scope's registrations with what it found. A key that
  // names no scope yet is created (a write, as any write to a new key); an unknown server id is
  // 404.
  Result<ExternalSkillScan> Scan(const ScopeRef& scope);
  // The scope's registrations, each resolved live against its own fingerprint; the unavailable
  // ones only with `include_unavailable`. A scope never scanned has none.
  Result<std::vector<ExternalSkillResolution>> List(const ScopeRef& scope,
                                                    bool include_unavailable);
  // The exact registered version: available only when `fingerprint` is the registration's and
  // the package still has it; 404 when the scope has no such registration.
  Result<ExternalSkillResolution> Resolve(const ScopeRef& scope, const std::string& id,
                                          const std::string& fingerprint);
  // Resolve, and the package's SKILL.md read then: 409 conflict when the registered version is
  // not available here now (changed, moved, another host), never another version instead.
  Result<ExternalSkillSnapshot> Snapshot(const ScopeRef& scope, const std::string& id,
                                         const std::string& fingerprint);

 private:
  // The scope's key (the registry's index), when the scope exists.
  Result<std::optional<std::string>> KeyOf(const ScopeRef& scope);
  // The same for a scan, which creates a scope a key names.
  Result<std::string> KeyForScan(const ScopeRef& scope);
  Status CheckConfigured() const;
  ExternalSkillResolution Live(const ExternalSkillRegistration& r) const;
  std::shared_ptr<const std::vector<ExternalSkillRegistration>> Registered(const std::string& key);

  Store& store_;
  const std::vector<ExternalSkillRoot> roots_;
  const std::string host_id_;
  std::mutex scan_mu_;  // one scan at a time
  std::mutex mu_;       // guards by_scope_ and latest_; never held while a package is read
  std::map<std::string, std::shared_ptr<const std::vector<ExternalSkillRegistration>>> by_scope_;
  std::shared_ptr<const std::vector<ExternalSkillRegistration>> latest_;  // the last scan's
};

// Request checks the spec's schemas make: an id of 1 … 128 printable ASCII characters, a
// fingerprint of 64 lower-case hex digits.
Status CheckExternalSkillId(const std::string& id);
Status CheckFingerprint(const std::string& fingerprint);

// 503 external_skill_registry_unavailable: no roots are configured.
Status ExternalSkillRegistryUnavailable();

// This host's name (gethostname), as registrations carry it.
std::string LocalHostId();

}  // namespace pc
