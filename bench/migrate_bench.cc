// How long an upgrade takes: a data directory as a schema-4 build left it (testing/legacy_store.h:
// one memory of N entries, a full-text table of its own, N/4 sources) opened by this build, which
// runs every migration since (the server does not listen meanwhile). Before issue 27 the upgrade
// was quadratic: 1.6 / 6.0 / 21.2 s for 2k / 4k / 8k entries, ~6.5 minutes for 28k.
//
//   build/bench/migrate_bench [--entries 2000,8000,28000] [--steps]
//
// --steps also times each migration on its own (the open is one transaction; the steps are not).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "legacy_store.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

std::vector<int> ParseSizes(const char* text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

void Die(const std::string& what) {
  std::fprintf(stderr, "migrate_bench: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  using namespace pc;
  std::vector<int> sizes = {2000, 8000, 28000};
  bool steps = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--entries") == 0 && i + 1 < argc)
      sizes = ParseSizes(argv[++i]);
    else if (std::strcmp(argv[i], "--steps") == 0)
      steps = true;
    else
      Die("usage: migrate_bench [--entries 2000,8000,28000] [--steps]");
  }
  std::printf("%8s %10s %10s\n", "entries", "build_s", "open_s");
  for (int n : sizes) {
    const std::string dir = ScratchDir("pc-migrate-bench");
    auto started = std::chrono::steady_clock::now();
    if (std::string err = testing::BuildSchema4Store(dir, n); !err.empty()) Die(err);
    const double build_ms = MillisSince(started);
    if (steps) {  // a copy, migrated one version at a time
      const std::string copy = ScratchDir("pc-migrate-steps");
      std::filesystem::copy(dir, copy,
                            std::filesystem::copy_options::recursive |
                                std::filesystem::copy_options::overwrite_existing);
      auto db = sqlite::Db::Open(copy + "/powercontext.db", 10000);
      if (!db.ok()) Die(db.status().ToString());
      for (int v = 5; v <= sqlite::LatestSchemaVersion(); ++v) {
        auto t = std::chrono::steady_clock::now();
        if (Status s = sqlite::MigrateTo(**db, v); !s.ok()) Die(s.ToString());
        std::printf("  %6d entries: migration %2d %8.3f s\n", n, v, MillisSince(t) / 1000);
      }
      db->reset();
      std::filesystem::remove_all(copy);
    }
    started = std::chrono::steady_clock::now();
    sqlite::SqliteOptions options;
    options.data_dir = dir;
    auto store = sqlite::SqliteStore::Open(options);
    if (!store.ok()) Die(store.status().ToString());
    const double open_ms = MillisSince(started);
    store->reset();
    std::printf("%8d %10.2f %10.2f\n", n, build_ms / 1000, open_ms / 1000);
    std::fflush(stdout);
    std::filesystem::remove_all(dir);
  }
  return 0;
}
