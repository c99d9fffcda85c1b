// Export (export.h): one reader per store, each reading every table of the catalog from one
// snapshot, and one writer of the lines.
#include "portable/export.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>

#include "common/clock.h"
#include "common/durable_file.h"
#include "common/sha256.h"
#include "portable/format.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_schema.h"
#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/store_files.h"
#include "store/table_catalog.h"
#include "store/verify_source.h"

namespace pc::portable {
namespace {

namespace fs = std::filesystem;
using OrderedJson = nlohmann::ordered_json;
using RowFn = std::function<Status(OrderedJson&&)>;

std::string Filter(const StoreTable& t, const std::string& param) {
  std::string f = t.scope_filter;
  for (size_t at; (at = f.find("{scope}")) != std::string::npos;) f.replace(at, 7, param);
  return f;
}

// One snapshot of a store, table by table.
class Reader {
 public:
  virtual ~Reader() = default;
  virtual std::string Describe() const = 0;
  virtual const char* StoreName() const = 0;
  virtual int SchemaVersion() const = 0;
  // Rows the format does not carry: SQLite's read-only originals of pre-schema-6 handoffs.
  virtual Result<int64_t> LegacyHandoffs() { return int64_t{0}; }
  // The scope a key or id names: {scope_id, key}, or nullopt.
  virtual Result<std::optional<std::pair<std::string, std::string>>> FindScope(
      const std::string& key_or_id) = 0;
  // Each row of `t` (only `scope_id`'s, unless empty) as an array in the catalog's column order.
  virtual Status Each(const StoreTable& t, const std::string& scope_id, const RowFn& row) = 0;
};

class SqliteReader : public Reader {
 public:
  static Result<std::unique_ptr<Reader>> Open(const std::string& dir) {
    auto r = std::unique_ptr<SqliteReader>(new SqliteReader());
    PC_ASSIGN_OR_RETURN(r->db_, sqlite::Db::OpenReadOnly(dir, r->path_));
    PC_RETURN_IF_ERROR(r->db_->Exec("BEGIN"));  // the snapshot starts at the first read
    PC_ASSIGN_OR_RETURN(sqlite::Stmt s, r->db_->Prepare("PRAGMA user_version"));
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    r->version_ = row ? static_cast<int>(s.Int(0)) : 0;
    PC_RETURN_IF_ERROR(CheckVerifySchema("the store in " + dir, r->version_,
                                         sqlite::LatestSchemaVersion(),
                                         "start `powercontext serve` on it once with this build"));
    return std::unique_ptr<Reader>(std::move(r));
  }
  std::string Describe() const override { return path_; }
  Result<int64_t> LegacyHandoffs() override {
    PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db_->Prepare("SELECT count(*) FROM handoff_versions"));
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Int(0) : 0;
  }
  const char* StoreName() const override { return "sqlite"; }
  int SchemaVersion() const override { return version_; }
  Result<std::optional<std::pair<std::string, std::string>>> FindScope(
      const std::string& key_or_id) override {
    PC_ASSIGN_OR_RETURN(sqlite::Stmt s,
                        db_->Prepare("SELECT scope_id, key FROM scopes WHERE scope_id = ?1 OR "
                                     "key = ?1 ORDER BY scope_id = ?1 DESC LIMIT 1"));
    s.Bind(1, key_or_id);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return std::optional<std::pair<std::string, std::string>>();
    return std::optional(std::pair(s.Text(0), s.Text(1)));
  }
  Status Each(const StoreTable& t, const std::string& scope_id, const RowFn& fn) override {
    std::string sql = std::string("SELECT ") + t.select + " FROM " + t.name;
    if (!scope_id.empty()) sql += " WHERE " + Filter(t, "?1");
    sql += std::string(" ORDER BY ") + t.order;
    PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db_->Prepare(sql));
    if (!scope_id.empty() && sql.find("?1") != std::string::npos) s.Bind(1, scope_id);
    while (true) {
      PC_ASSIGN_OR_RETURN(bool more, s.Step());
      if (!more) return Status::Ok();
      OrderedJson row = OrderedJson::array();
      for (size_t c = 0; c < t.types.size(); ++c) {
        const int i = static_cast<int>(c);
        if (s.IsNull(i)) {
          row.push_back(nullptr);
          continue;
        }
        switch (t.types[c]) {
          case StoreColumn::kText:
            row.push_back(s.Text(i));
            break;
          case StoreColumn::kInt:
            row.push_back(s.Int(i));
            break;
          case StoreColumn::kBool:
            row.push_back(s.Int(i) != 0);
            break;
          case StoreColumn::kBlob: {
            auto [data, size] = s.Blob(i);
            row.push_back(ToHex(data, size));
            break;
          }
        }
      }
      PC_RETURN_IF_ERROR(fn(std::move(row)));
    }
  }
  ~SqliteReader() override {
    if (db_) (void)db_->Exec("ROLLBACK");
  }

 private:
  SqliteReader() = default;
  std::unique_ptr<sqlite::Db> db_;
  std::string path_;
  int version_ = 0;
};

class PgReader : public Reader {
 public:
  static Result<std::unique_ptr<Reader>> Open(const std::string& url) {
    auto r = std::unique_ptr<PgReader>(new PgReader());
    r->url_ = url;
    PC_ASSIGN_OR_RETURN(r->conn_, pg::Conn::Open(url));
    PC_RETURN_IF_ERROR(r->conn_->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    PC_RETURN_IF_ERROR(r->conn_->Exec("SET LOCAL bytea_output = 'hex'"));  // what Each reads
    PC_ASSIGN_OR_RETURN(pg::Rows has,
                        r->conn_->Query("SELECT to_regclass('schema_migrations') IS NOT NULL"));
    if (!has.size() || has.Text(0, 0) != "t")
      return NotFound("no PowerContext store in the database " + pg::RedactUrl(url) +
                      "; nothing was written");
    PC_ASSIGN_OR_RETURN(pg::Rows v,
                        r->conn_->Query("SELECT coalesce(max(version), 0) FROM schema_migrations"));
    r->version_ = v.size() ? static_cast<int>(v.Int(0, 0)) : 0;
    PC_RETURN_IF_ERROR(CheckVerifySchema(
        "the database " + pg::RedactUrl(url), r->version_, pg::LatestSchemaVersion(),
        "start `powercontext serve --store` on it once with this build"));
    return std::unique_ptr<Reader>(std::move(r));
  }
  std::string Describe() const override { return pg::RedactUrl(url_); }
  const char* StoreName() const override { return "postgresql"; }
  int SchemaVersion() const override { return version_; }
  Result<std::optional<std::pair<std::string, std::string>>> FindScope(
      const std::string& key_or_id) override {
    PC_ASSIGN_OR_RETURN(pg::Rows r, conn_->Query("SELECT scope_id, key FROM scopes WHERE scope_id "
                                                 "= $1 OR key = $1 ORDER BY scope_id = $1 DESC",
                                                 {key_or_id}));
    if (!r.size()) return std::optional<std::pair<std::string, std::string>>();
    return std::optional(std::pair(r.Text(0, 0), r.Text(0, 1)));
  }
  // A cursor, fetched a page at a time: a table of millions of rows is never held whole.
  Status Each(const StoreTable& t, const std::string& scope_id, const RowFn& fn) override {
    std::string literal = "'";
    for (char c : scope_id) literal += c == '\'' ? std::string("''") : std::string(1, c);
    literal += "'";
    std::string sql = std::string("DECLARE pc_export NO SCROLL CURSOR FOR SELECT ") + t.columns +
                      " FROM " + t.name;
    if (!scope_id.empty()) sql += " WHERE " + Filter(t, literal);
    sql += std::string(" ORDER BY ") + t.pg_order;
    PC_RETURN_IF_ERROR(conn_->Exec(sql));
    while (true) {
      PC_ASSIGN_OR_RETURN(pg::Rows r, conn_->Query("FETCH 1000 FROM pc_export"));
      if (!r.size()) break;
      for (int i = 0; i < r.size(); ++i) {
        OrderedJson row = OrderedJson::array();
        for (size_t c = 0; c < t.types.size(); ++c) {
          const std::optional<std::string> v = r.Get(i, static_cast<int>(c));
          if (!v) {
            row.push_back(nullptr);
            continue;
          }
          switch (t.types[c]) {
            case StoreColumn::kText:
              row.push_back(*v);
              break;
            case StoreColumn::kInt:
              row.push_back(std::stoll(*v));
              break;
            case StoreColumn::kBool:
              row.push_back(*v == "t");
              break;
            case StoreColumn::kBlob:  // bytea's text form: \x and hex
              row.push_back(v->rfind("\\x", 0) == 0 ? v->substr(2) : *v);
              break;
          }
        }
        PC_RETURN_IF_ERROR(fn(std::move(row)));
      }
    }
    return conn_->Exec("CLOSE pc_export");
  }
  ~PgReader() override {
    if (conn_) (void)conn_->Exec("ROLLBACK");
  }

 private:
  PgReader() = default;
  std::unique_ptr<pg::Conn> conn_;
  std::string url_;
  int version_ = 0;
};

Status CheckOut(const ExportOptions& o) {
  std::error_code ec;
  // Never over the store being read (nor a file of it), whatever --force says.
  if (o.store == "sqlite") {
    const fs::path out = fs::weakly_canonical(o.out, ec);
    const fs::path db = fs::path(o.data_dir) / sqlite::kDbFileName;
    std::vector<fs::path> store_files = {db, fs::path(o.data_dir) / "serve.lock"};
    for (const char* suffix : sqlite::kDbCompanionSuffixes)
      store_files.push_back(db.string() + suffix);
    for (const fs::path& f : store_files)
      if (out == fs::weakly_canonical(f, ec))
        return FieldError("out", o.out + " is part of the store being exported; write elsewhere");
  }
  if (o.out.empty()) return FieldError("out", "--out names the file to write");
  if (fs::is_directory(o.out, ec))
    return FieldError("out", o.out + " is a directory; --out names the file to write");
  if (fs::exists(o.out, ec) && !o.force)
    return FieldError("out", o.out +
                                 " already exists; choose another name, or pass --force to "
                                 "replace it");
  const fs::path dir = fs::absolute(o.out, ec).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    return FieldError("out", "the directory of " + o.out + " (" + dir.string() +
                                 ") does not exist; create it first");
  return Status::Ok();
}

Status WriteAll(Reader& reader, const ExportOptions& o, ExportReport& report,
                const std::string& tmp) {
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) return Internal("cannot create " + tmp);
  Sha256Stream hash;
  auto put = [&](const std::string& line) -> Status {
    hash.Add(line);
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    report.bytes += static_cast<int64_t>(line.size());
    if (!out) return Internal("writing " + tmp + " failed (is the disk full?)");
    return Status::Ok();
  };
  OrderedJson header = {
      {"format", kFormatName},
      {"format_version", kFormatVersion},
      {"exported_at", FormatTimestamp(NowMillis())},
      {"from", {{"store", reader.StoreName()}, {"schema_version", reader.SchemaVersion()}}},
      {"scope", nullptr},
      {"tables", TablesJson()}};
  if (!report.scope_id.empty())
    header["scope"] = {{"scope_id", report.scope_id}, {"key", report.scope_key}};
  std::string first;
  try {
    first = Line(header);
  } catch (const nlohmann::json::exception& e) {
    return Internal(std::string("the header is not valid UTF-8: ") + e.what());
  }
  PC_RETURN_IF_ERROR(put(first));
  for (const StoreTable& t : StoreTables()) {
    int64_t n = 0;
    PC_RETURN_IF_ERROR(reader.Each(t, report.scope_id, [&](OrderedJson&& row) -> Status {
      OrderedJson line = {{"t", t.name}, {"r", std::move(row)}};
      std::string text;
      try {
        text = Line(line);
      } catch (const nlohmann::json::exception& e) {
        return Internal(std::string("a row of ") + t.name + " is not valid UTF-8: " + e.what());
      }
      ++n;
      return put(text);
    }));
    report.tables.emplace_back(t.name, n);
    report.rows += n;
  }
  report.sha256 = hash.FinishHex();
  const std::string trailer =
      Line(OrderedJson{{"end", {{"rows", report.rows}, {"sha256", report.sha256}}}});
  out.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
  report.bytes += static_cast<int64_t>(trailer.size());
  out.close();
  if (!out) return Internal("writing " + tmp + " failed (is the disk full?)");
  return Status::Ok();
}

}  // namespace

Result<ExportReport> Export(const ExportOptions& o) {
  PC_RETURN_IF_ERROR(CheckOut(o));
  std::unique_ptr<Reader> reader;
  if (o.store == "sqlite") {
    PC_ASSIGN_OR_RETURN(reader, SqliteReader::Open(o.data_dir));
  } else {
    PC_ASSIGN_OR_RETURN(reader, PgReader::Open(o.store));
  }
  ExportReport report;
  report.from = reader->Describe();
  PC_ASSIGN_OR_RETURN(report.legacy_handoffs, reader->LegacyHandoffs());
  report.schema_version = reader->SchemaVersion();
  if (!o.scope.empty()) {
    PC_ASSIGN_OR_RETURN(auto scope, reader->FindScope(o.scope));
    if (!scope)
      return NotFound("no scope " + o.scope + " in " + report.from + "; nothing was written")
          .WithDetail("field", "scope");
    report.scope_id = scope->first;
    report.scope_key = scope->second;
  }
  const std::string tmp = o.out + ".tmp-" + std::to_string(::getpid());
  Status s = WriteAll(*reader, o, report, tmp);
  if (s.ok()) s = SyncPath(tmp);
  if (s.ok()) s = RenameDurably(tmp, o.out, o.force);
  if (!s.ok()) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return s;
  }
  return report;
}

}  // namespace pc::portable
