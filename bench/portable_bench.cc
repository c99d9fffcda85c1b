// Export and import at scale (issue 32, docs/export.md): a SQLite store filled with N entries
// through the store's own commit path (testing/bulk_fill.h; with --vectors each entry also has a
// 384-dimension hash vector), then timed: `export store` of the whole store
// (portable::Export), reading the file whole (portable::ReadExportFile: every line parsed, typed
// and hashed), and staging it into a new SQLite store (portable::Stage: the rows in chunks, the
// full-text projection, then verify). Putting the staged store in place (a file copy and a rename,
// as `restore`) is not timed.
//
//   build/bench/portable_bench --entries 10000,100000 [--vectors]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "bulk_fill.h"
#include "portable/export.h"
#include "portable/import.h"
#include "service/memory/memory_service.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int Run(int64_t entries, bool vectors) {
  const std::string dir = ScratchDir("pc-portable-bench");
  {
    sqlite::SqliteOptions o;
    o.data_dir = dir + "/src";
    auto store = std::move(sqlite::SqliteStore::Open(o)).value();
    HashEmbedder embedder;
    MemoryService memory(*store, ServiceLimits{}, vectors ? &embedder : nullptr);
    Scope scope = memory.CreateScope("bench").value().scope;
    if (!FillMemory(
             *store, scope, entries,
             [](int64_t i) {
               return "entry " + std::to_string(i) +
                      ": the orders importer reads CSV files nightly and 检查退货";
             },
             vectors ? &embedder : nullptr)
             .ok())
      return 1;
  }
  portable::ExportOptions e;
  e.store = "sqlite";
  e.data_dir = dir + "/src";
  e.out = dir + "/all.jsonl";
  auto t0 = std::chrono::steady_clock::now();
  auto exported = portable::Export(e);
  const double export_s = Since(t0);
  if (!exported.ok()) {
    std::fprintf(stderr, "export: %s\n", exported.status().message().c_str());
    return 1;
  }
  t0 = std::chrono::steady_clock::now();
  auto file = portable::ReadExportFile(e.out);
  const double read_s = Since(t0);
  if (!file.ok()) {
    std::fprintf(stderr, "read: %s\n", file.status().message().c_str());
    return 1;
  }
  portable::StageOptions s;
  s.dir = dir + "/staging";
  t0 = std::chrono::steady_clock::now();
  auto staged = portable::Stage(*file, s);
  const double stage_s = Since(t0);
  if (!staged.ok()) {
    std::fprintf(stderr, "stage: %s\n", staged.status().message().c_str());
    return 1;
  }
  const double rows = static_cast<double>(exported->rows);
  std::printf(
      "%lld entries%s: %lld rows, %.1f MB | export %.2f s (%.0f rows/s) | read+check %.2f "
      "s (%.0f rows/s) | stage+index+verify %.2f s (%.0f rows/s)\n",
      static_cast<long long>(entries), vectors ? " with vectors" : "",
      static_cast<long long>(exported->rows), static_cast<double>(exported->bytes) / 1e6, export_s,
      rows / export_s, read_s, rows / read_s, stage_s, rows / stage_s);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {10000, 100000};
  bool vectors = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--vectors") {
      vectors = true;
    } else if (a == "--entries" && i + 1 < argc) {
      sizes.clear();
      for (std::string list = argv[++i]; !list.empty();) {
        const size_t comma = list.find(',');
        sizes.push_back(std::stoll(list.substr(0, comma)));
        list = comma == std::string::npos ? "" : list.substr(comma + 1);
      }
    } else {
      std::fprintf(stderr, "usage: portable_bench [--entries 10000,100000] [--vectors]\n");
      return 2;
    }
  }
  for (int64_t n : sizes)
    if (int rc = pc::Run(n, vectors)) return rc;
  return 0;
}
