#include "store/sqlite/sqlite_verify.h"

#include <algorithm>

#include "store/sqlite/db.h"
#include "store/sqlite/fts_extensions.h"
#include "store/sqlite/schema.h"

namespace pc::sqlite {
namespace {

class SqliteVerifySource final : public VerifySource {
  std::unique_ptr<Db> db_;
  std::string path_;

 public:
  SqliteVerifySource(std::unique_ptr<Db> db, std::string path)
      : db_(std::move(db)), path_(std::move(path)) {}

  std::string Describe() const override { return "sqlite " + path_; }

  Result<VerifyRows> Query(const std::string& sql,
                           const std::vector<std::string>& params) override {
    std::string native = sql;  // $N → ?N: SQLite numbers "$1" by first appearance, "?1" by value
    std::replace(native.begin(), native.end(), '$', '?');
    PC_ASSIGN_OR_RETURN(Stmt s, db_->Prepare(native));
    for (size_t i = 0; i < params.size(); ++i) s.Bind(static_cast<int>(i + 1), params[i]);
    VerifyRows out;
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return out;
      out.rows.emplace_back();
      for (int c = 0; c < s.Columns(); ++c) out.rows.back().push_back(s.OptText(c));
    }
  }

  Result<std::vector<VerifyTextDoc>> TextDocs(const std::string& artifact_id) override {
    PC_ASSIGN_OR_RETURN(VerifyRows owner,
                        Query("SELECT rowid FROM artifacts WHERE artifact_id = $1", {artifact_id}));
    if (owner.size() != 1) return NotFound("no artifact " + artifact_id);
    const std::string mark = MarkText(owner.Int(0, 0), "");
    // Each entry's document has the entry's rowid (documents of no entry: OrphanTextDocs).
    PC_ASSIGN_OR_RETURN(
        VerifyRows rows,
        Query("SELECT f.rowid, e.entry_id, f.entry_version_id, f.state, f.text, f.tokens"
              " FROM entries e JOIN memory_fts f ON f.rowid = e.rowid WHERE e.artifact_id = $1",
              {artifact_id}));
    std::vector<VerifyTextDoc> out;
    for (size_t i = 0; i < rows.size(); ++i) {
      VerifyTextDoc d{rows.Text(i, 0),
                      rows.Text(i, 1),
                      rows.Text(i, 2),
                      false,
                      rows.Text(i, 4),
                      rows.Int(i, 5),
                      ""};
      const std::string state = rows.Text(i, 3);
      d.retired = state == mark + std::string(kRetiredState);
      if (!d.retired && state != mark) d.malformed = "its state column is not the memory's";
      if (d.text->rfind(mark, 0) == 0)
        d.text = d.text->substr(mark.size());
      else
        d.malformed = "its text does not carry the memory's mark";
      out.push_back(std::move(d));
    }
    return out;
  }

  Result<std::vector<std::string>> OrphanTextDocs() override {
    PC_ASSIGN_OR_RETURN(VerifyRows rows, Query("SELECT rowid FROM memory_fts WHERE rowid NOT IN"
                                               " (SELECT rowid FROM entries) ORDER BY rowid",
                                               {}));
    std::vector<std::string> out;
    for (size_t i = 0; i < rows.size(); ++i) out.push_back("memory_fts/" + rows.Text(i, 0));
    return out;
  }
};

}  // namespace

Result<std::unique_ptr<VerifySource>> OpenVerifySource(const std::string& data_dir) {
  std::string path;
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::OpenReadOnly(data_dir, path));
  // The snapshot starts at the first read, here, and holds until the source is closed.
  PC_RETURN_IF_ERROR(db->Exec("BEGIN"));
  auto source = std::make_unique<SqliteVerifySource>(std::move(db), path);
  PC_ASSIGN_OR_RETURN(VerifyRows version, source->Query("PRAGMA user_version", {}));
  PC_RETURN_IF_ERROR(CheckVerifySchema(
      "the store in " + data_dir, version.size() == 1 ? version.Int(0, 0) : 0,
      LatestSchemaVersion(), "start `powercontext serve` on it once with this build"));
  return std::unique_ptr<VerifySource>(std::move(source));
}

}  // namespace pc::sqlite
