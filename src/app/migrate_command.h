// `powercontext migrate --from DIR --to postgresql://…` (issue 15, docs/deploy.md): moves a SQLite
// data directory's store into an empty PostgreSQL database, all or nothing, verified before it
// commits (store/postgres/pg_import.h). Prints what it copied and verified (or --json); an error
// is a message on stderr and a non-zero exit, as every command's.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace pc {

struct MigrateCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(bool json)> run;
};

MigrateCommand AddMigrateCommand(CLI::App& app);

}  // namespace pc
