// Import (import.h): the file read whole and checked, then staged into SQLite chunk by chunk.
#include "portable/import.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/sha256.h"
#include "portable/format.h"
#include "store/postgres/pg_conn.h"
#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_verify.h"
#include "store/sqlite/store_files.h"
#include "store/table_catalog.h"
#include "verify/verify.h"

namespace pc::portable {
using Json = nlohmann::json;

namespace {

namespace fs = std::filesystem;

constexpr const char* kNothing = "; nothing was changed";

Status Bad(int64_t line, const std::string& what) {
  return InvalidArgument("line " + std::to_string(line) + ": " + what + kNothing)
      .WithDetail("line", std::to_string(line));
}

// The catalog position of each table, by name.
int TableIndex(const std::string& name) {
  const auto& tables = StoreTables();
  for (size_t i = 0; i < tables.size(); ++i)
    if (name == tables[i].name) return static_cast<int>(i);
  return -1;
}

bool KeysAre(const Json& object, std::initializer_list<const char*> keys) {
  if (!object.is_object() || object.size() != keys.size()) return false;
  for (const char* k : keys)
    if (!object.contains(k)) return false;
  return true;
}

// Why the header's tables are not this build's ("" when they are).
std::string TablesDiffer(const Json& found, int format_version) {
  const nlohmann::ordered_json want = TablesJson(format_version);
  if (!found.is_array()) return "\"tables\" is not a list";
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string name = want[i]["name"];
    if (i >= found.size()) return "table " + name + " is missing";
    const Json& t = found[i];
    if (!t.is_object() || t.value("name", Json()) != name)
      return "table " + std::to_string(i + 1) + " is " + t.value("name", Json()).dump() +
             " where this build has " + name;
    if (Json(want[i]["columns"]) != t.value("columns", Json()))
      return "the columns of " + name + " are " + t.value("columns", Json()).dump() +
             " where this build has " + want[i]["columns"].dump();
    if (t.size() != 2) return "table " + name + " has keys this build does not know";
  }
  if (found.size() > want.size())
    return "table " + found[want.size()].value("name", Json()).dump() +
           " is not one this build knows";
  return "";
}

Status CheckHeader(const Json& h, ExportFile& f) {
  if (!h.is_object() || h.value("format", Json()) != kFormatName)
    return Bad(1, std::string("not a PowerContext export (its first line has no \"format\": \"") +
                      kFormatName + "\")");
  const Json version = h.value("format_version", Json());
  if (!version.is_number_integer()) return Bad(1, "\"format_version\" is not a whole number");
  f.format_version = version.get<int>();
  if (f.format_version < kOldestFormatVersion || f.format_version > kFormatVersion)
    return Bad(1, "format version " + std::to_string(f.format_version) + "; this build reads " +
                      std::to_string(kOldestFormatVersion) + " to " +
                      std::to_string(kFormatVersion) +
                      (f.format_version > kFormatVersion ? " (use a newer powercontext)" : ""));
  if (!KeysAre(h, {"format", "format_version", "exported_at", "from", "scope", "tables"}))
    return Bad(1,
               "the header's keys are not exactly format, format_version, exported_at, from, "
               "scope, tables");
  const Json& from = h["from"];
  if (!KeysAre(from, {"store", "schema_version"}) || !from["store"].is_string() ||
      (from["store"] != "sqlite" && from["store"] != "postgresql") ||
      !from["schema_version"].is_number_integer())
    return Bad(1, "\"from\" is not {\"store\": \"sqlite\" or \"postgresql\", \"schema_version\"}");
  f.from_store = from["store"];
  f.from_schema_version = from["schema_version"];
  if (!h["exported_at"].is_string()) return Bad(1, "\"exported_at\" is not text");
  f.exported_at = h["exported_at"];
  const Json& scope = h["scope"];
  if (!scope.is_null()) {
    if (!KeysAre(scope, {"scope_id", "key"}) || !scope["scope_id"].is_string() ||
        !scope["key"].is_string())
      return Bad(1, "\"scope\" is neither null nor {\"scope_id\", \"key\"}");
    f.scope_id = scope["scope_id"];
    f.scope_key = scope["key"];
  }
  if (std::string why = TablesDiffer(h["tables"], f.format_version); !why.empty())
    return Bad(1, "the file's tables are not this build's: " + why);
  return Status::Ok();
}

Status CheckRow(const Json& row, const StoreTable& t, int64_t line) {
  if (!row.is_array() || row.size() != t.types.size())
    return Bad(line, std::string("a row of ") + t.name + " must be a list of " +
                         std::to_string(t.types.size()) + " values");
  const std::vector<std::string> names = SplitColumns(t.columns);
  for (size_t c = 0; c < row.size(); ++c) {
    const Json& v = row[c];
    if (v.is_null()) continue;
    bool ok = false;
    switch (t.types[c]) {
      case StoreColumn::kText:
        ok = v.is_string();
        break;
      case StoreColumn::kInt:  // a signed 64-bit integer: larger ones would wrap
        ok = v.is_number_integer() &&
             !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX});
        break;
      case StoreColumn::kBool:
        ok = v.is_boolean();
        break;
      case StoreColumn::kBlob:
        ok = v.is_string() && FromHex(v.get<std::string>()).has_value();
        break;
    }
    if (!ok)
      return Bad(line, std::string(t.name) + "." + names[c] + " must be " +
                           ColumnTypeName(t.types[c]) +
                           (t.types[c] == StoreColumn::kBlob ? " (lower-case hex)" : "") +
                           ", not " + v.dump().substr(0, 40));
  }
  return Status::Ok();
}

// The rows of the file, in order, after the header (which the caller has read).
class RowLines {
 public:
  explicit RowLines(const std::string& path) : in_(path, std::ios::binary) {}
  bool Open() const { return static_cast<bool>(in_); }
  // The next line without its newline; false at the end. `complete` is false for a last line
  // without a newline.
  bool Next(std::string& line, bool& complete) {
    if (!std::getline(in_, line)) return false;
    complete = !in_.eof();
    ++number_;
    return true;
  }
  int64_t number() const { return number_; }

 private:
  std::ifstream in_;
  int64_t number_ = 0;
};

}  // namespace

Result<ExportFile> ReadExportFile(const std::string& path) {
  ExportFile f;
  f.path = path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return NotFound(path + " is not a file" + kNothing).WithDetail("field", "in");
  RowLines lines(path);
  if (!lines.Open()) return Internal("cannot read " + path + kNothing);
  Sha256Stream hash;
  std::string text;
  bool complete = false;
  if (!lines.Next(text, complete)) return Bad(1, "the file is empty");
  Json header = Json::parse(text, nullptr, false);
  if (header.is_discarded()) return Bad(1, "not JSON: not a PowerContext export");
  PC_RETURN_IF_ERROR(CheckHeader(header, f));
  hash.Add(text + "\n");
  std::vector<int64_t> counts(StoreTables().size(), 0);
  int at = 0;  // the table of the last row
  bool ended = false;
  while (lines.Next(text, complete)) {
    const int64_t n = lines.number();
    if (ended) return Bad(n, "a line after the trailer");
    if (!complete) return Bad(n, "the last line has no newline: a partial file");
    Json line = Json::parse(text, nullptr, false);
    if (line.is_discarded()) return Bad(n, "not JSON");
    if (KeysAre(line, {"end"})) {
      const Json& end = line["end"];
      if (!KeysAre(end, {"rows", "sha256"}) || !end["rows"].is_number_integer() ||
          !end["sha256"].is_string())
        return Bad(n, "the trailer is not {\"end\": {\"rows\", \"sha256\"}}");
      if (end["rows"].get<int64_t>() != f.rows)
        return Bad(n, "the trailer counts " + end["rows"].dump() + " rows, the file holds " +
                          std::to_string(f.rows));
      f.sha256 = hash.FinishHex();
      if (end["sha256"] != f.sha256)
        return Bad(n, "the file's SHA-256 is " + f.sha256 + ", its trailer says " +
                          end["sha256"].get<std::string>() + ": it was changed or damaged");
      ended = true;
      continue;
    }
    if (!KeysAre(line, {"t", "r"}) || !line["t"].is_string())
      return Bad(n, "neither a row {\"t\", \"r\"} nor the trailer {\"end\"}");
    const int index = TableIndex(line["t"]);
    if (index < 0 || StoreTables()[static_cast<size_t>(index)].since_format > f.format_version)
      return Bad(n,
                 "table " + line["t"].dump() + " is not one this build knows" +
                     (index < 0 ? "" : " in format version " + std::to_string(f.format_version)));
    if (index < at)
      return Bad(n, "a row of " + line["t"].get<std::string>() + " after rows of " +
                        StoreTables()[static_cast<size_t>(at)].name +
                        ": tables must come in the header's order");
    at = index;
    PC_RETURN_IF_ERROR(CheckRow(line["r"], StoreTables()[static_cast<size_t>(index)], n));
    ++counts[static_cast<size_t>(index)];
    ++f.rows;
    hash.Add(text);
    hash.Add("\n");
  }
  if (!ended)
    return Bad(lines.number() + 1,
               "the file ends before its trailer: a partial export (an export is written whole; "
               "was this one copied before it finished?)");
  for (size_t i = 0; i < counts.size(); ++i)
    f.tables.emplace_back(StoreTables()[i].name, counts[i]);
  return f;
}

namespace {

// The staged store's rows, one table's INSERT at a time.
Status InsertRow(sqlite::Db& db, const StoreTable& t, const Json& row) {
  std::string columns = t.select, values;
  for (size_t c = 0; c < t.types.size(); ++c) values += (c ? ", ?" : "?") + std::to_string(c + 1);
  if (t.sqlite_extra_column) {
    columns += std::string(", ") + t.sqlite_extra_column;
    values += std::string(", ") + t.sqlite_extra_value;
  }
  PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db.Prepare(std::string("INSERT INTO ") + t.name + "(" +
                                                 columns + ") VALUES(" + values + ")"));
  for (size_t c = 0; c < t.types.size(); ++c) {
    const int i = static_cast<int>(c + 1);
    const Json& v = row[c];
    if (v.is_null()) {
      s.BindNull(i);
      continue;
    }
    switch (t.types[c]) {
      case StoreColumn::kText:
        s.Bind(i, v.get<std::string>());
        break;
      case StoreColumn::kInt:
        s.Bind(i, v.get<int64_t>());
        break;
      case StoreColumn::kBool:
        s.Bind(i, int64_t{v.get<bool>() ? 1 : 0});
        break;
      case StoreColumn::kBlob: {
        const std::string bytes = *FromHex(v.get<std::string>());
        s.BindBlob(i, bytes.data(), bytes.size());
        break;
      }
    }
  }
  Status run = s.Run();
  if (run.ok()) return run;
  // A row the schema refuses (a key twice, a NULL where none may be, a vector of no entry) is the
  // file's fault; anything else (a full disk) is the machine's, and the staging is kept.
  const std::string& m = run.message();
  if (m.find("constraint failed") != std::string::npos ||
      m.find("datatype mismatch") != std::string::npos)
    return InvalidArgument(std::string("a row of ") + t.name + " cannot be stored: " + m);
  return Internal(std::string("storing a row of ") + t.name + " failed: " + m);
}

// Marks a directory as an import's staging: only such a directory's store is ever removed.
constexpr const char* kMarker = ".powercontext-import-staging";

void RemoveStaged(const std::string& db_path) {
  std::error_code ec;
  fs::remove(db_path, ec);
  for (const char* suffix : sqlite::kDbCompanionSuffixes) fs::remove(db_path + suffix, ec);
}

// An empty or new directory, or one an earlier import staged in: made and marked.
Status ClaimStagingDir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return FieldError("staging", "the staging directory " + dir + " is not a directory" + kNothing);
  const bool ours = fs::exists(fs::path(dir) / kMarker, ec);
  if (!ours && fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    return FieldError("staging",
                      "the staging directory " + dir +
                          " holds files that are not an import's staging; give an empty or new "
                          "directory (--staging)" +
                          kNothing);
  fs::create_directories(dir, ec);
  if (ec)
    return InvalidArgument("cannot make the staging directory " + dir + ": " + ec.message() +
                           kNothing);
  if (!ours) {
    std::ofstream marker(fs::path(dir) / kMarker);
    marker << "an import's staging (powercontext import store): removed when it is done\n";
    if (!marker) return Internal("cannot write in the staging directory " + dir + kNothing);
  }
  return Status::Ok();
}

// The staged store of an earlier run of this file: how many rows it holds (-1: none to resume).
int64_t ResumePoint(const std::string& db_path, const std::string& sha256, bool& other) {
  std::error_code ec;
  if (!fs::exists(db_path, ec)) return -1;
  auto db = sqlite::Db::Open(db_path, 5000, sqlite::OpenMode::kExisting);
  if (db.ok()) {
    auto s = (*db)->Prepare("SELECT file_sha256, rows_done FROM import_progress");
    if (s.ok()) {
      auto row = s->Step();
      if (row.ok() && *row && s->Text(0) == sha256) return s->Int(1);
    }
  }
  other = true;
  return -1;
}

Status StageRows(sqlite::Db& db, const ExportFile& file, const StageOptions& o, int64_t done) {
  RowLines lines(file.path);
  std::string text;
  bool complete;
  lines.Next(text, complete);  // the header
  Sha256Stream hash;           // the file read again must be the file that was checked
  hash.Add(text + "\n");
  int64_t row = 0, in_chunk = 0;
  auto commit = [&]() -> Status {
    PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db.Prepare("UPDATE import_progress SET rows_done = ?1"));
    PC_RETURN_IF_ERROR(s.Bind(1, row).Run());
    PC_RETURN_IF_ERROR(db.Exec("COMMIT"));
    in_chunk = 0;
    if (o.after_chunk) return o.after_chunk(row);
    return Status::Ok();
  };
  while (row < file.rows && lines.Next(text, complete)) {
    Json line = Json::parse(text, nullptr, false);
    if (line.is_discarded() || !line.contains("t")) break;  // the trailer, or a changed file
    hash.Add(text + "\n");
    ++row;
    if (row <= done) continue;
    if (in_chunk == 0) PC_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
    const StoreTable& t = StoreTables()[static_cast<size_t>(TableIndex(line["t"]))];
    Status s = InsertRow(db, t, line["r"]);
    if (!s.ok()) {
      (void)db.Exec("ROLLBACK");
      return Status(s.code(), "line " + std::to_string(lines.number()) + ": " + s.message());
    }
    if (++in_chunk >= o.chunk_rows) PC_RETURN_IF_ERROR(commit());
  }
  if (in_chunk > 0) PC_RETURN_IF_ERROR(commit());
  if (row != file.rows || hash.FinishHex() != file.sha256)
    return InvalidArgument(file.path + " changed while it was imported");
  return Status::Ok();
}

}  // namespace

Result<StageReport> Stage(const ExportFile& file, const StageOptions& o) {
  auto step = [&](const std::string& what) {
    if (o.progress) o.progress(what);
  };
  StageReport report;
  PC_RETURN_IF_ERROR(ClaimStagingDir(o.dir));
  report.db_path = (fs::path(o.dir) / sqlite::kDbFileName).string();
  const int64_t done = ResumePoint(report.db_path, file.sha256, report.discarded_other);
  if (done < 0) RemoveStaged(report.db_path);
  report.resumed_after = std::max<int64_t>(done, 0);
  {
    PC_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Db> db,
                        sqlite::Db::Open(report.db_path, 5000, sqlite::OpenMode::kCreate));
    // One file, no log beside it: what is put in place is this file alone (as a restore's).
    PC_RETURN_IF_ERROR(db->Exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL"));
    if (done < 0) {
      step("creating the staged store");
      PC_RETURN_IF_ERROR(sqlite::Migrate(*db));
      PC_RETURN_IF_ERROR(
          db->Exec("CREATE TABLE import_progress(file_sha256 TEXT NOT NULL, rows_done INTEGER NOT "
                   "NULL)"));
      PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db->Prepare("INSERT INTO import_progress VALUES(?1, 0)"));
      PC_RETURN_IF_ERROR(s.Bind(1, file.sha256).Run());
    } else {
      step("resuming after row " + std::to_string(done));
    }
    step("staging " + std::to_string(file.rows) + " rows");
    if (Status staged = StageRows(*db, file, o, report.resumed_after); !staged.ok()) {
      if (staged.code() == Code::kInvalidArgument) {  // the file's fault: nothing to resume
        db.reset();
        RemoveStaging(o.dir);
        return InvalidArgument(staged.message() + kNothing);
      }
      return staged;
    }
    step("building the full-text index");
    PC_RETURN_IF_ERROR(db->Exec("BEGIN IMMEDIATE"));
    Status built = sqlite::RebuildTextProjection(*db);
    if (built.ok()) built = db->Exec("DROP TABLE import_progress");
    if (built.ok()) built = db->Exec("COMMIT");
    if (!built.ok()) {
      (void)db->Exec("ROLLBACK");
      return built;
    }
  }
  step("verifying the staged store");
  PC_ASSIGN_OR_RETURN(std::unique_ptr<VerifySource> source, sqlite::OpenVerifySource(o.dir));
  PC_ASSIGN_OR_RETURN(verify::Report checked, verify::Verify(*source, verify::Options{}));
  source.reset();
  report.warnings = checked.Count(verify::Severity::kWarning);
  if (const int64_t bad = checked.Count(verify::Severity::kViolation); bad > 0) {
    std::string first;
    int shown = 0;
    for (const verify::Finding& v : checked.findings) {
      if (v.severity != verify::Severity::kViolation || shown++ == 3) continue;
      first += (first.empty() ? "" : "; ") + v.kind + ": " + v.detail;
    }
    RemoveStaging(o.dir);
    return InvalidArgument("the file's rows break " + std::to_string(bad) +
                           " of the store's invariants (" + first + ")" + kNothing);
  }
  return report;
}

void RemoveStaging(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kMarker, ec)) return;  // never a directory that is not ours
  RemoveStaged((fs::path(dir) / sqlite::kDbFileName).string());
  fs::remove(fs::path(dir) / kMarker, ec);
  fs::remove(dir, ec);  // only when nothing else is in it
}

Status CheckSqliteTargetEmpty(const std::string& data_dir, bool& exists) {
  std::error_code ec;
  const std::string path = (fs::path(data_dir) / sqlite::kDbFileName).string();
  exists = fs::exists(path, ec);
  if (!exists) return Status::Ok();
  std::string opened;
  PC_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Db> db, sqlite::Db::OpenReadOnly(data_dir, opened));
  std::string holding;
  for (const StoreTable& t : StoreTables()) {
    auto s = db->Prepare(std::string("SELECT EXISTS(SELECT 1 FROM ") + t.name + ")");
    if (!s.ok() && s.status().message().find("no such table") != std::string::npos)
      continue;  // an older schema without the table: nothing in it
    if (!s.ok())
      return Status(s.status().code(), "cannot read the store in " + data_dir + ": " +
                                           s.status().message() + kNothing);
    PC_ASSIGN_OR_RETURN(bool row, s->Step());
    if (row && s->Int(0)) holding += std::string(holding.empty() ? "" : ", ") + t.name;
  }
  if (!holding.empty())
    return Status(Code::kStoreNotEmpty,
                  "the store in " + data_dir + " already holds data (rows in " + holding +
                      "): import only into an empty store, it never merges" + kNothing)
        .WithDetail("tables", holding);
  return Status::Ok();
}

Status CheckPostgresTargetEmpty(const std::string& url) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<pg::Conn> c, pg::Conn::Open(url));
  PC_ASSIGN_OR_RETURN(pg::Rows has,
                      c->Query("SELECT to_regclass('schema_migrations') IS NOT NULL"));
  if (has.size() && has.Text(0, 0) == "f") return Status::Ok();
  std::string holding;
  for (const StoreTable& t : StoreTables()) {
    PC_ASSIGN_OR_RETURN(pg::Rows known,
                        c->Query(std::string("SELECT to_regclass('") + t.name + "') IS NOT NULL"));
    if (!known.size() || known.Text(0, 0) != "t") continue;  // an older schema: nothing in it
    PC_ASSIGN_OR_RETURN(pg::Rows r,
                        c->Query(std::string("SELECT EXISTS(SELECT 1 FROM ") + t.name + ")"));
    if (r.size() && r.Text(0, 0) == "t")
      holding += std::string(holding.empty() ? "" : ", ") + t.name;
  }
  if (!holding.empty())
    return Status(Code::kStoreNotEmpty,
                  "the database " + pg::RedactUrl(url) + " already holds data (rows in " + holding +
                      "): import only into an empty store, it never merges" + kNothing)
        .WithDetail("tables", holding);
  return Status::Ok();
}

}  // namespace pc::portable
