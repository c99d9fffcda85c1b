#include "app/verify_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "store/postgres/pg_verify.h"
#include "store/sqlite/sqlite_verify.h"
#include "verify/verify.h"

namespace pc {
namespace {

constexpr int kExitViolations = 1;
constexpr int kExitUnusable = 2;

const char* SeverityName(verify::Severity s) {
  return s == verify::Severity::kViolation ? "violation" : "warning";
}

nlohmann::ordered_json FindingJson(const verify::Finding& f) {
  nlohmann::ordered_json j{
      {"kind", f.kind},         {"severity", SeverityName(f.severity)},   {"scope_id", f.scope_id},
      {"scope", f.scope_key},   {"artifact_id", f.artifact_id},           {"revision", nullptr},
      {"entry_id", f.entry_id}, {"entry_version_id", f.entry_version_id}, {"detail", f.detail}};
  if (f.revision) j["revision"] = *f.revision;
  return j;
}

void PrintJson(const verify::Report& r) {
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const verify::Finding& f : r.findings) findings.push_back(FindingJson(f));
  const int64_t violations = r.Count(verify::Severity::kViolation);
  nlohmann::ordered_json j{{"store", r.store},
                           {"clean", violations == 0},
                           {"violations", violations},
                           {"warnings", r.Count(verify::Severity::kWarning)},
                           {"checked",
                            {{"scopes", r.scopes},
                             {"artifacts", r.artifacts},
                             {"revisions", r.revisions},
                             {"entry_versions", r.entry_versions},
                             {"audit_rows", r.audit_rows}}},
                           {"findings", findings}};
  std::cout << j.dump(2) << "\n";
}

void PrintText(const verify::Report& r) {
  std::cout << "verified " << r.store << ": " << r.scopes << " scopes, " << r.artifacts
            << " artifacts, " << r.revisions << " revisions, " << r.entry_versions
            << " entry versions, " << r.audit_rows << " audit rows\n";
  for (const verify::Finding& f : r.findings) {
    std::cout << SeverityName(f.severity) << " " << f.kind;
    if (!f.scope_key.empty()) std::cout << " scope " << f.scope_key << " (" << f.scope_id << ")";
    if (!f.artifact_id.empty()) std::cout << " artifact " << f.artifact_id;
    if (f.revision) std::cout << " revision " << *f.revision;
    if (!f.entry_id.empty()) std::cout << " entry " << f.entry_id;
    if (!f.entry_version_id.empty()) std::cout << " version " << f.entry_version_id;
    std::cout << ": " << f.detail << "\n";
  }
  const int64_t violations = r.Count(verify::Severity::kViolation);
  const int64_t warnings = r.Count(verify::Severity::kWarning);
  if (violations == 0)
    std::cout << "clean: every invariant holds (" << warnings << " warnings)\n";
  else
    std::cout << violations << " violations, " << warnings << " warnings\n";
}

Result<std::unique_ptr<VerifySource>> OpenSource(const Config& config) {
  if (config.store == "sqlite") return sqlite::OpenVerifySource(config.data_dir);
  return pg::OpenVerifySource(config.store);
}

int Run(const Config& config, const std::string& scope, bool json) {
  Result<std::unique_ptr<VerifySource>> source = OpenSource(config);
  if (!source.ok()) {
    std::cerr << "powercontext verify: " << source.status().message() << "\n";
    return kExitUnusable;
  }
  verify::Options options;
  options.scope = scope;
  options.embedder_configured = config.embed_provider != "none";
  Result<verify::Report> report = verify::Verify(**source, options);
  if (!report.ok()) {
    std::cerr << "powercontext verify: " << report.status().message() << "\n";
    return kExitUnusable;
  }
  if (json)
    PrintJson(*report);
  else
    PrintText(*report);
  return report->Count(verify::Severity::kViolation) == 0 ? 0 : kExitViolations;
}

}  // namespace

VerifyCommand AddVerifyCommand(CLI::App& app) {
  auto scope = std::make_shared<std::string>();
  VerifyCommand cmd;
  cmd.sub = app.add_subcommand(
      "verify",
      "check the store's invariants on a read-only snapshot, beside a running server; exit 1 on "
      "violations (docs/operations.md)");
  cmd.sub->add_option("--scope", *scope, "only this scope (its name or scp_… id)");
  cmd.run = [scope](const Config& config, bool json) { return Run(config, *scope, json); };
  return cmd;
}

}  // namespace pc
