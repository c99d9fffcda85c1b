#include "app/migrate_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_import.h"
#include "store/postgres/pg_schema.h"

namespace pc {
namespace {

struct MigrateOpts {
  std::string from, to;
};

nlohmann::ordered_json ReportJson(const pg::ImportReport& r, const std::string& to) {
  nlohmann::ordered_json tables = nlohmann::ordered_json::object();
  for (const auto& [name, rows] : r.tables) tables[name] = rows;
  const pg::ImportReport::Verified& v = r.verified;
  return {
      {"from", r.source_path},
      {"to", pg::RedactUrl(to)},
      {"source_schema_version", r.source_schema_version},
      {"target_schema_version", pg::LatestSchemaVersion()},
      {"target_schema_found", r.target_schema_found},
      {"tables", tables},
      {"full_text",
       {{"memories", r.text_memories},
        {"memory_documents", r.text_memory_docs},
        {"source_logs", r.text_source_logs},
        {"source_documents", r.text_source_docs}}},
      {"not_copied",
       {{"legacy_handoff_versions", r.legacy_handoff_versions},
        {"legacy_handoff_items", r.legacy_handoff_items}}},
      {"verification",
       {{"result", "identical"},
        {"artifacts", v.artifacts},
        {"revisions", v.revisions},
        {"manifests", v.manifests},
        {"manifest_lines", v.manifest_lines},
        {"entry_versions", v.entry_versions},
        {"handoffs", v.handoffs},
        {"sources", v.sources},
        {"vector_rows", v.vectors},
        {"tokens", v.tokens},
        {"audit_rows", v.audit_rows},
        {"table_counts", v.tables}}},
      {"committed", true},
  };
}

void PrintReport(const pg::ImportReport& r, const std::string& to) {
  std::cout << "migrated " << r.source_path << " (schema " << r.source_schema_version << ") into "
            << pg::RedactUrl(to) << " (schema " << pg::LatestSchemaVersion()
            << ")\n\nrows copied:\n";
  for (const auto& [name, rows] : r.tables) {
    std::string padded = name;
    padded.resize(std::max<size_t>(padded.size(), 20), ' ');
    std::cout << "  " << padded << rows << "\n";
  }
  std::cout << "full text built: " << r.text_memories << " memories (" << r.text_memory_docs
            << " documents), " << r.text_source_logs << " source logs (" << r.text_source_docs
            << " documents)\n";
  if (r.legacy_handoff_versions > 0)
    std::cout << "not copied: " << r.legacy_handoff_versions << " free-text handoff revisions ("
              << r.legacy_handoff_items
              << " items) of SQLite's schema 4, kept there read-only; their structured "
              << "form (handoff_contents, …) was copied\n";
  const pg::ImportReport::Verified& v = r.verified;
  std::cout << "\nverified, identical in both stores: " << v.artifacts << " artifacts, "
            << v.revisions << " revisions, the manifests of " << v.manifests
            << " memory revisions (" << v.manifest_lines << " lines), " << v.entry_versions
            << " entry versions, " << v.handoffs << " handoff revisions, " << v.sources
            << " sources, " << v.vectors << " vector rows, " << v.tokens << " tokens, "
            << v.audit_rows << " audit rows, and the row "
            << "counts of " << v.tables << " tables\ncommitted: serve it with --store "
            << pg::RedactUrl(to) << "\n";
}

}  // namespace

MigrateCommand AddMigrateCommand(CLI::App& app) {
  auto o = std::make_shared<MigrateOpts>();
  MigrateCommand cmd;
  cmd.sub = app.add_subcommand("migrate",
                               "copy a SQLite data directory's store into an empty PostgreSQL "
                               "database, verified, all or nothing "
                               "(docs/deploy.md)");
  cmd.sub
      ->add_option("--from", o->from,
                   "the SQLite data directory (holds powercontext.db); read only")
      ->required();
  cmd.sub
      ->add_option(
          "--to", o->to,
          "postgresql://user@host:port/db: an empty database (password: PGPASSWORD or ~/.pgpass)")
      ->required();
  cmd.run = [o](bool json) {
    pg::ImportOptions options;
    options.from_dir = o->from;
    options.to_url = o->to;
    if (isatty(STDERR_FILENO))
      options.progress = [](const std::string& step) { std::cerr << "migrate: " << step << "…\n"; };
    Result<pg::ImportReport> report = pg::ImportSqlite(options);
    if (!report.ok()) return ReportError(report.status());
    if (json)
      std::cout << ReportJson(*report, o->to).dump(2) << "\n";
    else
      PrintReport(*report, o->to);
    return 0;
  };
  return cmd;
}

}  // namespace pc
