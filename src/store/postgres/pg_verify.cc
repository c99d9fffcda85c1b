#include "store/postgres/pg_verify.h"

#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_schema.h"

namespace pc::pg {
namespace {

class PgVerifySource final : public VerifySource {
 public:
  PgVerifySource(std::unique_ptr<Conn> conn, const std::string& url)
      : conn_(std::move(conn)), description_("postgresql " + RedactUrl(url)) {}
  std::string Describe() const override { return description_; }

  Result<VerifyRows> Query(const std::string& sql,
                           const std::vector<std::string>& params) override {
    std::vector<std::optional<std::string>> values(params.begin(), params.end());
    PC_ASSIGN_OR_RETURN(Rows rows, conn_->Query(sql, values));
    VerifyRows out;
    for (int i = 0; i < rows.size(); ++i) {
      out.rows.emplace_back();
      for (int c = 0; c < rows.columns(); ++c) out.rows.back().push_back(rows.Get(i, c));
    }
    return out;
  }

  // Documents are numbered by entries.doc; the text itself is not kept (only its postings).
  Result<std::vector<VerifyTextDoc>> TextDocs(const std::string& artifact_id) override {
    PC_ASSIGN_OR_RETURN(
        VerifyRows rows,
        Query("SELECT d.doc, e.entry_id, d.entry_version_id, CASE WHEN d.retired THEN 1 ELSE 0 "
              "END, d.tokens FROM text_docs d LEFT JOIN entries e ON e.doc = d.doc AND "
              "e.artifact_id = d.owner WHERE d.kind = 0 AND d.owner = $1",
              {artifact_id}));
    std::vector<VerifyTextDoc> out;
    for (size_t i = 0; i < rows.size(); ++i)
      out.push_back(VerifyTextDoc{rows.Text(i, 0), rows.Text(i, 1), rows.Text(i, 2),
                                  rows.Int(i, 3) != 0, std::nullopt, rows.Int(i, 4), ""});
    return out;
  }

  Result<std::vector<std::string>> OrphanTextDocs() override {
    PC_ASSIGN_OR_RETURN(
        VerifyRows rows,
        Query("SELECT d.owner, d.doc FROM text_docs d WHERE d.kind = 0 AND NOT EXISTS"
              " (SELECT 1 FROM artifacts a WHERE a.artifact_id = d.owner) ORDER BY 1, 2",
              {}));
    std::vector<std::string> out;
    for (size_t i = 0; i < rows.size(); ++i)
      out.push_back("text_docs/" + rows.Text(i, 0) + "/" + rows.Text(i, 1));
    return out;
  }

 private:
  std::unique_ptr<Conn> conn_;
  const std::string description_;
};

}  // namespace

Result<std::unique_ptr<VerifySource>> OpenVerifySource(const std::string& url) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, Conn::Open(url));
  PC_RETURN_IF_ERROR(conn->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  auto source = std::make_unique<PgVerifySource>(std::move(conn), url);
  Result<VerifyRows> version =
      source->Query("SELECT coalesce(max(version), 0) FROM schema_migrations", {});
  PC_RETURN_IF_ERROR(CheckVerifySchema(
      "the database " + RedactUrl(url),
      version.ok() && version->size() == 1 ? version->Int(0, 0) : 0, LatestSchemaVersion(),
      "start `powercontext serve --store` on it once with this build"));
  return std::unique_ptr<VerifySource>(std::move(source));
}

}  // namespace pc::pg
