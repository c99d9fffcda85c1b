#include "app/portable_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "app/backup_command.h"
#include "app/data_lock.h"
#include "cli/commands.h"
#include "portable/export.h"
#include "portable/import.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_import.h"

namespace pc {
namespace {

namespace fs = std::filesystem;
using OrderedJson = nlohmann::ordered_json;

OrderedJson Tables(const std::vector<std::pair<std::string, int64_t>>& tables) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [name, rows] : tables) out[name] = rows;
  return out;
}

std::string Where(const Config& c) {
  return c.store == "sqlite" ? "the SQLite store in " + c.data_dir
                             : "the PostgreSQL database " + pg::RedactUrl(c.store);
}

ConfigCommand AddExport(CLI::App& app) {
  auto o = std::make_shared<portable::ExportOptions>();
  CLI::App* sub = app.get_subcommand("export")->add_subcommand(
      "store",
      "write the store (or one scope) with its whole history as portable JSON Lines, while "
      "servers serve it (docs/export.md)");
  sub->add_option("--out", o->out, "the file to write (must not exist, unless --force)")
      ->required();
  sub->add_option("-s,--scope", o->scope, "only this scope (key or scp_… id); default: everything");
  sub->add_flag("--force", o->force, "replace --out if it exists");
  return {sub, [o](const Config& c, bool json) {
            portable::ExportOptions options = *o;
            options.store = c.store;
            options.data_dir = c.data_dir;
            Result<portable::ExportReport> r = portable::Export(options);
            if (!r.ok()) return ReportError(r.status());
            if (json) {
              OrderedJson out = {
                  {"out", o->out},
                  {"from", r->from},
                  {"schema_version", r->schema_version},
                  {"scope", r->scope_id.empty()
                                ? OrderedJson(nullptr)
                                : OrderedJson{{"scope_id", r->scope_id}, {"key", r->scope_key}}},
                  {"rows", r->rows},
                  {"bytes", r->bytes},
                  {"sha256", r->sha256},
                  {"not_exported", {{"legacy_handoff_versions", r->legacy_handoffs}}},
                  {"tables", Tables(r->tables)}};
              std::cout << out.dump(2) << "\n";
              return 0;
            }
            std::cout << "exported "
                      << (r->scope_id.empty() ? "every scope"
                                              : "scope " + r->scope_key + " (" + r->scope_id + ")")
                      << " of " << r->from << " to " << o->out << "\n"
                      << r->rows << " rows, " << r->bytes << " bytes, sha256 " << r->sha256 << "\n";
            for (const auto& [name, rows] : r->tables)
              if (rows) std::cout << "  " << name << ": " << rows << "\n";
            if (r->legacy_handoffs)
              std::cout << "not exported: " << r->legacy_handoffs
                        << " free-text handoff revisions from before schema 6, kept read-only in "
                           "the store (their structured form is exported)\n";
            return 0;
          }};
}

struct ImportOpts {
  std::string in, staging;
  int64_t chunk_rows = 5000;
};

struct ImportResult {
  portable::ExportFile file;
  portable::StageReport staged;
  std::optional<pg::ImportReport> copied;
};

// Within `dir` or `dir` itself (paths compared as they resolve).
bool Inside(const fs::path& path, const fs::path& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec), d = fs::weakly_canonical(dir, ec);
  auto [end, _] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  return end == d.end();
}

Status Import(const Config& c, const ImportOpts& o, ImportResult& result) {
  auto progress = [](const std::string& step) { std::cerr << "import: " << step << "…\n"; };
  // 1. The file, whole, before anything is written.
  PC_ASSIGN_OR_RETURN(result.file, portable::ReadExportFile(o.in));
  const std::string staging =
      o.staging.empty() ? (fs::path(c.data_dir) / "import-staging").string() : o.staging;
  const bool sqlite = c.store == "sqlite";
  if (sqlite && Inside(c.data_dir, staging))
    return FieldError("staging",
                      "--staging " + staging + " holds the data directory " + c.data_dir +
                          "; stage elsewhere (the default is DATA/import-staging); nothing was "
                          "changed");
  // 2. The target: empty, and (SQLite) no server on it, from here until the store is in place.
  bool exists = false;
  std::unique_ptr<DataDirLock> lock;
  if (sqlite) {
    std::error_code ec;
    if (fs::exists(c.data_dir, ec) && !fs::is_directory(c.data_dir, ec))
      return InvalidArgument(c.data_dir + " is not a directory; nothing was changed");
    PC_RETURN_IF_ERROR(DataDirLock::CheckFree(c.data_dir));
    PC_RETURN_IF_ERROR(portable::CheckSqliteTargetEmpty(c.data_dir, exists));
    fs::create_directories(c.data_dir, ec);
    PC_ASSIGN_OR_RETURN(lock, DataDirLock::Acquire(c.data_dir));
    PC_RETURN_IF_ERROR(portable::CheckSqliteTargetEmpty(c.data_dir, exists));  // still, locked
  } else {
    PC_RETURN_IF_ERROR(portable::CheckPostgresTargetEmpty(c.store));
  }
  // 3. Staged (resumable), verified, then put in place.
  portable::StageOptions stage;
  stage.dir = staging;
  stage.chunk_rows = o.chunk_rows;
  stage.progress = progress;
  PC_ASSIGN_OR_RETURN(result.staged, portable::Stage(result.file, stage));
  if (sqlite) {
    progress("putting the store in place");
    PC_RETURN_IF_ERROR(RestoreStoreFileLocked(c, result.staged.db_path, exists));
  } else {
    pg::ImportOptions copy;
    copy.from_dir = stage.dir;
    copy.to_url = c.store;
    copy.progress = progress;
    PC_ASSIGN_OR_RETURN(result.copied, pg::ImportSqlite(copy));
  }
  portable::RemoveStaging(stage.dir);
  return Status::Ok();
}

ConfigCommand AddImport(CLI::App& app) {
  auto o = std::make_shared<ImportOpts>();
  CLI::App* sub = app.get_subcommand("import")->add_subcommand(
      "store",
      "read an export (powercontext export) into an empty store, SQLite or PostgreSQL; a killed "
      "import resumes when run again (docs/export.md)");
  sub->add_option("--in", o->in, "the export file")->required();
  sub->add_option("--staging", o->staging,
                  "where the rows are staged before they are put in place (default: "
                  "DATA/import-staging)");
  sub->add_option("--chunk-rows", o->chunk_rows, "rows per committed chunk of the staging")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  return {sub, [o](const Config& c, bool json) {
            ImportResult r;
            std::error_code ec;
            const bool had_dir = c.store != "sqlite" || fs::exists(c.data_dir, ec);
            Status s = Import(c, *o, r);
            if (!s.ok()) {
              // A data directory this run made and left holding only its lock goes again (one
              // with a staging to resume stays).
              if (!had_dir) {
                fs::remove(fs::path(c.data_dir) / "serve.lock", ec);
                fs::remove(c.data_dir, ec);
              }
              return ReportError(s);
            }
            if (json) {
              OrderedJson out = {
                  {"in", o->in},
                  {"to", c.store == "sqlite" ? c.data_dir : pg::RedactUrl(c.store)},
                  {"store", c.store == "sqlite" ? "sqlite" : "postgresql"},
                  {"from",
                   {{"store", r.file.from_store},
                    {"schema_version", r.file.from_schema_version},
                    {"exported_at", r.file.exported_at}}},
                  {"scope", r.file.scope_id.empty() ? OrderedJson(nullptr)
                                                    : OrderedJson{{"scope_id", r.file.scope_id},
                                                                  {"key", r.file.scope_key}}},
                  {"sha256", r.file.sha256},
                  {"rows", r.file.rows},
                  {"resumed_after_rows", r.staged.resumed_after},
                  {"verify", {{"violations", 0}, {"warnings", r.staged.warnings}}},
                  {"tables", Tables(r.file.tables)}};
              if (r.copied) out["postgresql_copy"] = "identical";
              std::cout << out.dump(2) << "\n";
              return 0;
            }
            std::cout << "imported " << o->in << " ("
                      << (r.file.scope_id.empty() ? "every scope" : "scope " + r.file.scope_key)
                      << ", " << r.file.rows << " rows, exported from " << r.file.from_store
                      << " at " << r.file.exported_at << ") into " << Where(c) << "\n";
            if (r.staged.resumed_after)
              std::cout << "resumed after row " << r.staged.resumed_after
                        << ", where an earlier run stopped\n";
            std::cout << "verify: no violations";
            if (r.staged.warnings) std::cout << ", " << r.staged.warnings << " warnings";
            std::cout << (r.copied ? "; the PostgreSQL copy verified identical to the staged store"
                                   : "")
                      << "\n";
            return 0;
          }};
}

}  // namespace

std::vector<ConfigCommand> AddPortableCommands(CLI::App& app) {
  return {AddExport(app), AddImport(app)};
}

}  // namespace pc
