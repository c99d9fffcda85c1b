#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace pc::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "pctest-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  if (!made) std::abort();
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

Fixture::Fixture(ServiceLimits limits) { Open(limits); }

void Fixture::Reopen() {
  ServiceLimits limits = memory->limits();
  memory.reset();
  store.reset();
  Open(limits);
}

void Fixture::Open(ServiceLimits limits) {
  sqlite::SqliteOptions options;
  options.data_dir = dir.path();
  auto opened = sqlite::SqliteStore::Open(options);
  if (!opened.ok()) throw std::runtime_error(opened.status().ToString());
  store = std::move(opened).value();
  memory = std::make_unique<MemoryService>(*store, limits);
}

std::string Fixture::NewScope(const std::string& key) {
  auto out = memory->CreateScope(key);
  if (!out.ok()) throw std::runtime_error(out.status().ToString());
  return out->scope.scope_id;
}

}  // namespace pc::testing
