// A fresh schema on a PostgreSQL cluster, dropped on destruction, for tests and benchmarks: its URL
// (the base URL with search_path set in the connection options) is what a store or a server opens,
// so each user of one database gets an empty store of its own.
#pragma once

#include <unistd.h>

#include <random>
#include <stdexcept>
#include <string>

#include "store/postgres/pg_conn.h"

namespace pc {

class PgScratchSchema {
 public:
  explicit PgScratchSchema(std::string base_url) : base_(std::move(base_url)) {
    name_ = "t" + std::to_string(std::random_device{}()) + "_" + std::to_string(::getpid());
    auto admin = pg::Conn::Open(base_);
    if (!admin.ok()) throw std::runtime_error(admin.status().ToString());
    if (Status s = (*admin)->Exec("CREATE SCHEMA " + name_); !s.ok())
      throw std::runtime_error(s.ToString());
    url_ = base_ + (base_.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
           name_;
  }
  ~PgScratchSchema() {
    auto admin = pg::Conn::Open(base_);
    if (admin.ok()) (void)(*admin)->Exec("DROP SCHEMA IF EXISTS " + name_ + " CASCADE");
  }
  PgScratchSchema(const PgScratchSchema&) = delete;
  PgScratchSchema& operator=(const PgScratchSchema&) = delete;

  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }

  // VACUUM (ANALYZE) of the schema's tables: what autovacuum does for a table that grows through
  // normal writes, which a bulk fill outpaces (meanwhile the planner plans for empty tables, and
  // an index-only scan fetches every row from the heap: no page is marked all-visible yet).
  Status VacuumAnalyze() const {
    auto conn = pg::Conn::Open(url_);
    if (!conn.ok()) return conn.status();
    auto tables = (*conn)->Query(
        "SELECT string_agg(quote_ident(tablename), ', ') FROM pg_tables"
        " WHERE schemaname = $1",
        {name_});
    if (!tables.ok()) return tables.status();
    if (tables->Text(0, 0).empty()) return Status::Ok();  // no table yet: nothing to vacuum
    return (*conn)->Exec("VACUUM (ANALYZE) " + tables->Text(0, 0));
  }

  // Bytes of the schema's tables with their indexes and TOAST.
  int64_t Bytes() const {
    auto admin = pg::Conn::Open(base_);
    if (!admin.ok()) return -1;
    auto rows = (*admin)->Query(
        "SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
        {name_});
    return rows.ok() && rows->size() == 1 ? rows->Int(0, 0) : -1;
  }

 private:
  std::string base_, name_, url_;
};

}  // namespace pc
