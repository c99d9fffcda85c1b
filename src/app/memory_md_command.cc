#include "app/memory_md_command.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "app/runtime.h"
#include "cli/commands.h"
#include "client/jsonl_import.h"
#include "mcp/transports.h"
#include "memory_md/memory_md.h"

namespace pc {
namespace {

struct Opts {
  std::string scope, out, path;
};

// `import jsonl`: entries from JSON lines through POST /v1/memory/remember/batch
// (client/jsonl_import.h).
void AddJsonlImport(CLI::App* imp, const std::shared_ptr<Opts>& o,
                    std::vector<MemoryMdCommand>& out) {
  CLI::App* cmd = imp->add_subcommand(
      "jsonl",
      "entries from a file of JSON lines ({\"kind\", \"text\", \"reason\", \"evidence\"} each), "
      "written through POST /v1/memory/remember/batch: up to 1,000 entries a revision");
  cmd->add_option("path", o->path, "the file, or - for standard input")->required();
  cmd->add_option("--scope,-s", o->scope, "the scope")->required();
  out.push_back({cmd, [o](const Config& config, bool local, bool json) {
                   std::ifstream file;
                   if (o->path != "-") {
                     file.open(o->path);
                     if (!file) return ReportError(NotFound("cannot open " + o->path));
                   }
                   std::istream& in = o->path == "-" ? std::cin : file;
                   return WithRoutes(config, local, [&](const CallRoute& call) {
                     auto r = ImportJsonl(call, o->scope, in);
                     if (!r.ok()) return ReportError(r.status());
                     if (json)
                       std::cout << nlohmann::json{{"lines", r->lines},
                                                   {"batches", r->batches},
                                                   {"added", r->added},
                                                   {"duplicates", r->duplicates},
                                                   {"revision", r->revision}}
                                        .dump(2)
                                 << "\n";
                     else
                       std::cout << r->lines << " entries: " << r->added << " added, "
                                 << r->duplicates << " already there, in " << r->batches
                                 << " revisions (now at revision " << r->revision << ")\n";
                     return 0;
                   });
                 }});
}

}  // namespace

std::vector<MemoryMdCommand> AddMemoryMdCommands(CLI::App& app) {
  auto o = std::make_shared<Opts>();
  std::vector<MemoryMdCommand> out;
  CLI::App* exp =
      app.add_subcommand(
             "export",
             "write a scope's memory as files (memory-md), or a store as one portable file (store)")
          ->require_subcommand(1);
  CLI::App* exp_md = exp->add_subcommand("memory-md",
                                         "a pointer-only MEMORY.md (under 5,000 characters) and "
                                         "memory/<topic>.md with every entry and its citation");
  exp_md->add_option("--scope,-s", o->scope, "the scope")->required();
  exp_md->add_option("--out", o->out, "the folder to write MEMORY.md and memory/ into")->required();
  out.push_back({exp_md, [o](const Config& config, bool local, bool json) {
                   return WithRoutes(config, local, [&](const CallRoute& call) {
                     auto e = ExportMemoryMd(call, o->scope);
                     if (!e.ok()) return ReportError(e.status());
                     if (Status s = WriteMemoryMd(*e, o->out); !s.ok()) return ReportError(s);
                     nlohmann::json files = nlohmann::json::array();
                     for (const auto& [rel, text] : e->files) files.push_back(rel);
                     if (json)
                       std::cout << nlohmann::json{{"revision", e->revision},
                                                   {"entries", e->entries},
                                                   {"index_chars", e->index_chars},
                                                   {"files", files}}
                                        .dump(2)
                                 << "\n";
                     else
                       std::cout << "wrote " << e->files.size() << " files to " << o->out << ": "
                                 << e->entries << " entries at revision " << e->revision
                                 << ", MEMORY.md " << e->index_chars << " characters\n";
                     return 0;
                   });
                 }});
  CLI::App* imp = app.add_subcommand("import",
                                     "read memory files into a scope (memory-md, jsonl), or a "
                                     "portable file into an empty store (store)")
                      ->require_subcommand(1);
  CLI::App* imp_md = imp->add_subcommand(
      "memory-md",
      "a MEMORY.md (and its memory/ folder) as sources, then entries: by the extraction provider, "
      "or one per bullet or table row");
  imp_md->add_option("path", o->path, "MEMORY.md, or the folder holding it")->required();
  imp_md->add_option("--scope,-s", o->scope, "the scope")->required();
  out.push_back({imp_md, [o](const Config& config, bool local, bool json) {
                   return WithRoutes(config, local, [&](const CallRoute& call) {
                     auto r = ImportMemoryMd(call, o->scope, o->path);
                     if (!r.ok()) return ReportError(r.status());
                     if (json) {
                       std::cout << nlohmann::json{{"files", r->files},
                                                   {"sources_new", r->sources_new},
                                                   {"sources_existing", r->sources_existing},
                                                   {"mode", r->mode},
                                                   {"entries_added", r->entries_added},
                                                   {"duplicates", r->duplicates},
                                                   {"skipped", r->skipped},
                                                   {"notes", r->notes}}
                                        .dump(2)
                                 << "\n";
                     } else {
                       std::cout << r->files << " files: " << r->sources_new << " new sources ("
                                 << r->sources_existing << " already kept); " << r->mode << ": "
                                 << r->entries_added << " entries added, " << r->duplicates
                                 << " duplicates, " << r->skipped << " skipped\n";
                       for (const std::string& n : r->notes) std::cout << "note: " << n << "\n";
                     }
                     return 0;
                   });
                 }});
  AddJsonlImport(imp, o, out);
  return out;
}

}  // namespace pc
