#include "service/skills/external_skills.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/bounded_read.h"
#include "common/utf8.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/skills/skill_package.h"

namespace pc {
namespace {

namespace fs = std::filesystem;

bool IsInstallationScope(const std::string& s) {
  return s == "user" || s == "project" || s == "plugin";
}

// A directory name as an id's last part: bytes outside printable ASCII, and '%', as %XX.
std::string IdPart(const std::string& name) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    if (c > 0x20 && c < 0x7F && c != '%') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// A package's path as the spec's locator (and, with /SKILL.md, its entrypoint) can carry it: valid
// UTF-8, one line, no white space at either end, at most 2,000 characters less the entrypoint's
// suffix. A directory whose path cannot be shown as it is is skipped, never shown altered.
Status CheckLocator(const std::string& path) {
  return CheckSpecLine("locator", path, kMaxLocatorChars - 1 - std::string(kSkillFileName).size());
}

// A package at `dir`: its front matter read and its fingerprint taken (in that order, then the
// SKILL.md read again is compared, so a package changing meanwhile is not registered half-old).
Result<ExternalSkillRegistration> ReadPackage(const std::string& dir) {
  const std::string skill = dir + "/" + kSkillFileName;
  PC_ASSIGN_OR_RETURN(std::string text, ReadBoundedFile(skill, kMaxSkillFileBytes));
  PC_ASSIGN_OR_RETURN(SkillFrontMatter front, ParseSkillFrontMatter(text));
  PC_ASSIGN_OR_RETURN(std::string fingerprint, PackageFingerprint(dir));
  PC_ASSIGN_OR_RETURN(std::string again, ReadBoundedFile(skill, kMaxSkillFileBytes));
  if (again != text) return InvalidArgument(skill + " changed while it was read");
  ExternalSkillRegistration r;
  r.locator = dir;
  r.fingerprint = std::move(fingerprint);
  r.name = std::move(front.name);
  r.description = std::move(front.description);
  return r;
}

}  // namespace

Status ExternalSkillRegistryUnavailable() {
  return Status(Code::kRegistryUnavailable,
                "no external Skill roots are configured on this server (set "
                "external_skill_roots, e.g. user=/home/me/.codex/skills)");
}

Result<std::vector<ExternalSkillRoot>> ParseExternalSkillRoots(const std::string& setting) {
  std::vector<ExternalSkillRoot> out;
  size_t start = 0;
  while (start < setting.size()) {
    size_t comma = setting.find(',', start);
    if (comma == std::string::npos) comma = setting.size();
    std::string item = setting.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string scope = eq == std::string::npos ? "" : item.substr(0, eq);
    if (!IsInstallationScope(scope))
      return InvalidArgument("external_skill_roots: \"" + item +
                             "\" must be user=PATH, project=PATH or plugin=PATH");
    std::string path = item.substr(eq + 1);
    if (path.empty() || path[0] != '/')
      return InvalidArgument("external_skill_roots: the path of \"" + item + "\" must be absolute");
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    out.push_back({scope, path});
  }
  return out;
}

Status CheckExternalSkillId(const std::string& id) {
  if (id.empty() || id.size() > kMaxExternalSkillIdChars ||
      !std::all_of(id.begin(), id.end(), [](char c) { return c > 0x20 && c < 0x7F; }))
    return FieldError("external_skill_id",
                      "external_skill_id must be 1 to 128 printable ASCII characters");
  return Status::Ok();
}

Status CheckFingerprint(const std::string& fingerprint) {
  if (fingerprint.size() != 64 || !std::all_of(fingerprint.begin(), fingerprint.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      }))
    return FieldError("fingerprint", "fingerprint must be 64 lower-case hex digits (a SHA-256)");
  return Status::Ok();
}

std::string LocalHostId() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

ExternalSkillRegistry::ExternalSkillRegistry(Store& store, std::vector<ExternalSkillRoot> roots,
                                             std::string host_id)
    : store_(store), roots_(std::move(roots)), host_id_(std::move(host_id)) {}

Status ExternalSkillRegistry::CheckConfigured() const {
  return configured() ? Status::Ok() : ExternalSkillRegistryUnavailable();
}

Result<std::optional<std::string>> ExternalSkillRegistry::KeyOf(const ScopeRef& scope) {
  std::optional<std::string> key;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> ids, scope.Find(txn));
    key = ids ? std::optional<std::string>(ids->key) : std::nullopt;
    return Status::Ok();
  }));
  return key;
}

Result<std::string> ExternalSkillRegistry::KeyForScan(const ScopeRef& scope) {
  PC_ASSIGN_OR_RETURN(std::optional<std::string> key, KeyOf(scope));
  if (key) return *key;
  if (scope.server_id()) return NotFound("no scope has the id " + scope.name());
  // A key that names no scope yet: the scan makes it, as any write to a new key does (so the
  // registry holds only scopes of the store, never one per string a caller sends).
  PC_RETURN_IF_ERROR(CheckScopeKey(scope.name()));
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> existing, txn.FindScopeByKey(scope.name()));
    if (!existing) PC_RETURN_IF_ERROR(txn.CreateScope(scope.name()).status());
    return Status::Ok();
  }));
  return scope.name();
}

Result<ExternalSkillScan> ExternalSkillRegistry::Scan(const ScopeRef& scope) {
  PC_RETURN_IF_ERROR(CheckConfigured());
  PC_ASSIGN_OR_RETURN(std::string key, KeyForScan(scope));
  // One scan at a time: two racing scans would otherwise store the older one's reading last.
  std::lock_guard<std::mutex> scanning(scan_mu_);
  ExternalSkillScan out;
  std::set<std::string> seen;
  for (const ExternalSkillRoot& root : roots_) {
    std::error_code ec;
    std::vector<fs::path> dirs;
    for (fs::directory_iterator it(root.path, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec)) dirs.push_back(it->path());  // a link to a package is one too
    std::sort(dirs.begin(), dirs.end());  // a missing root holds nothing; it may appear later
    for (const fs::path& dir : dirs) {
      std::string id = "external:" + std::string(kExternalSkillProvider) + ":" +
                       root.installation_scope + "/" + IdPart(dir.filename().string());
      if (id.size() > kMaxExternalSkillIdChars || seen.count(id) ||
          out.registrations.size() >= kMaxExternalSkillsPerScope ||
          !CheckLocator(dir.string()).ok()) {
        ++out.skipped;
        continue;
      }
      Result<ExternalSkillRegistration> r = ReadPackage(dir.string());
      if (!r.ok()) {
        ++out.skipped;
        continue;
      }
      r->external_skill_id = id;
      r->host_id = host_id_;
      r->installation_scope = root.installation_scope;
      seen.insert(id);
      out.registrations.push_back(std::move(*r));
    }
  }
  std::sort(out.registrations.begin(), out.registrations.end(),
            [](const auto& a, const auto& b) { return a.external_skill_id < b.external_skill_id; });
  auto shared = std::make_shared<const std::vector<ExternalSkillRegistration>>(out.registrations);
  std::lock_guard<std::mutex> lock(mu_);
  // Scopes scanning the same roots share one copy of what they found.
  if (latest_ && *latest_ == *shared) shared = latest_;
  latest_ = shared;
  by_scope_[key] = std::move(shared);
  return out;
}

std::shared_ptr<const std::vector<ExternalSkillRegistration>> ExternalSkillRegistry::Registered(
    const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_scope_.find(key);
  if (it == by_scope_.end())
    return std::make_shared<const std::vector<ExternalSkillRegistration>>();
  return it->second;
}

ExternalSkillResolution ExternalSkillRegistry::Live(const ExternalSkillRegistration& r) const {
  ExternalSkillResolution out{r, false, ""};
  if (r.host_id != host_id_) return out;
  // The fingerprint covers SKILL.md's bytes and that it is a plain file: when it still matches,
  // the SKILL.md read and parsed at the scan is there unchanged, so it is not parsed again.
  Result<std::string> now = PackageFingerprint(r.locator);
  if (now.ok() && *now == r.fingerprint) {
    out.available = true;
    out.entrypoint = r.locator + "/" + kSkillFileName;
  }
  return out;
}

Result<std::vector<ExternalSkillResolution>> ExternalSkillRegistry::List(const ScopeRef& scope,
                                                                         bool include_unavailable) {
  PC_RETURN_IF_ERROR(CheckConfigured());
  PC_ASSIGN_OR_RETURN(std::optional<std::string> key, KeyOf(scope));
  std::vector<ExternalSkillResolution> out;
  if (!key) return out;
  // Held here: a range-for over *Registered(…) would outlive the pointer it dereferences.
  const auto registered = Registered(*key);
  for (const ExternalSkillRegistration& r : *registered) {
    ExternalSkillResolution live = Live(r);
    if (live.available || include_unavailable) out.push_back(std::move(live));
  }
  return out;
}

Result<ExternalSkillResolution> ExternalSkillRegistry::Resolve(const ScopeRef& scope,
                                                               const std::string& id,
                                                               const std::string& fingerprint) {
  PC_RETURN_IF_ERROR(CheckConfigured());
  PC_RETURN_IF_ERROR(CheckExternalSkillId(id));
  PC_RETURN_IF_ERROR(CheckFingerprint(fingerprint));
  PC_ASSIGN_OR_RETURN(std::optional<std::string> key, KeyOf(scope));
  const auto registered =
      key ? Registered(*key) : std::make_shared<const std::vector<ExternalSkillRegistration>>();
  for (const ExternalSkillRegistration& r : *registered) {
    if (r.external_skill_id != id) continue;
    // Only the registered version resolves: another fingerprint is never a fallback.
    if (r.fingerprint != fingerprint) return ExternalSkillResolution{r, false, ""};
    return Live(r);
  }
  return NotFound("the scope has no external Skill registered as " + id +
                  " (scan the scope first: POST /v1/external-skills/scan)")
      .WithDetail("external_skill_id", id);
}

Result<ExternalSkillSnapshot> ExternalSkillRegistry::Snapshot(const ScopeRef& scope,
                                                              const std::string& id,
                                                              const std::string& fingerprint) {
  PC_ASSIGN_OR_RETURN(ExternalSkillResolution r, Resolve(scope, id, fingerprint));
  auto changed = [&] {
    return Status(Code::kExternalSkillChanged,
                  "external Skill " + id + " at fingerprint " + fingerprint +
                      " is not available on this host now (changed, moved or "
                      "removed since the scan): scan again and import the "
                      "version found")
        .WithDetail("external_skill_id", id);
  };
  if (!r.available) return changed();
  // Read, then fingerprinted again: the text is the registered version's only if the package
  // still has its fingerprint after the read.
  Result<std::string> text = ReadBoundedFile(r.entrypoint, kMaxSkillFileBytes);
  if (!text.ok()) return changed();
  Result<std::string> again = PackageFingerprint(r.registration.locator);
  if (!again.ok() || *again != fingerprint) return changed();
  return ExternalSkillSnapshot{r.registration, std::move(*text)};
}

}  // namespace pc
