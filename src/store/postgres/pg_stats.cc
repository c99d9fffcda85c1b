// The statistics of PgTxn (RFC 0072): inventory counts over the current heads, and the daily
// aggregates of model usage and recall (migration 2), incremented by upsert.
#include "store/postgres/pg_txn.h"

namespace pc::pg {

Result<std::vector<Inventory::Count>> PgTxn::CountArtifactsByFamily(const std::string& scope_id) {
  // COLLATE "C": UTF-8 byte order, as SQLite's BINARY.
  PC_ASSIGN_OR_RETURN(
      Rows r, Q("SELECT family, count(*) FROM artifacts WHERE scope_id = $1 AND head_revision > 0"
                " GROUP BY family ORDER BY family COLLATE \"C\"",
                {scope_id}));
  std::vector<Inventory::Count> out;
  for (int i = 0; i < r.size(); ++i) out.push_back({r.Text(i, 0), r.Int(i, 1), 0});
  return out;
}

Result<std::vector<Inventory::Count>> PgTxn::CountHeadEntriesByKind(
    const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("SELECT v.kind, count(*) FILTER (WHERE m.active), count(*) FILTER (WHERE NOT m.active)"
        " FROM manifest m JOIN entry_versions v ON v.entry_version_id = m.entry_version_id"
        " WHERE m.artifact_id = $1 AND m.to_revision IS NULL"
        " GROUP BY v.kind ORDER BY v.kind COLLATE \"C\"",
        {artifact_id}));
  std::vector<Inventory::Count> out;
  for (int i = 0; i < r.size(); ++i) out.push_back({r.Text(i, 0), r.Int(i, 1), r.Int(i, 2)});
  return out;
}

Result<std::vector<UsageRow>> PgTxn::ListModelUsage(const std::string& scope_id,
                                                    const std::string& from,
                                                    const std::string& to) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("SELECT usage_date, purpose, operation, requests, input_tokens, output_tokens, "
        "input_complete,"
        " output_complete FROM model_usage_daily WHERE scope_id = $1 AND usage_date BETWEEN $2 AND "
        "$3"
        " ORDER BY usage_date COLLATE \"C\", purpose COLLATE \"C\", operation COLLATE \"C\"",
        {scope_id, from, to}));
  std::vector<UsageRow> out;
  for (int i = 0; i < r.size(); ++i) {
    UsageRow row{r.Text(i, 0), r.Text(i, 1), r.Text(i, 2), {}};
    row.usage.requests = r.Int(i, 3);
    row.usage.input_tokens = Bool(r, i, 6) ? std::optional<int64_t>(r.Int(i, 4)) : std::nullopt;
    row.usage.output_tokens = Bool(r, i, 7) ? std::optional<int64_t>(r.Int(i, 5)) : std::nullopt;
    out.push_back(std::move(row));
  }
  return out;
}

Result<std::vector<RecallRow>> PgTxn::ListRecall(const std::string& scope_id,
                                                 const std::string& estimator_id,
                                                 const std::string& estimator_version,
                                                 const std::string& from, const std::string& to) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q("SELECT usage_date, preparations, ready_preparations, comparable_preparations, "
                "baseline_tokens,"
                " recalled_tokens FROM recall_token_daily WHERE scope_id = $1 AND estimator_id = $2"
                " AND estimator_version = $3 AND usage_date BETWEEN $4 AND $5 ORDER BY usage_date "
                "COLLATE \"C\"",
                {scope_id, estimator_id, estimator_version, from, to}));
  std::vector<RecallRow> out;
  for (int i = 0; i < r.size(); ++i)
    out.push_back(
        {r.Text(i, 0), {r.Int(i, 1), r.Int(i, 2), r.Int(i, 3), r.Int(i, 4), r.Int(i, 5)}});
  return out;
}

Status PgTxn::AddModelUsage(const std::string& scope_id, const std::string& date,
                            const std::string& purpose, const std::string& operation,
                            const ModelUsage& usage) {
  return Q("INSERT INTO model_usage_daily AS d(scope_id, usage_date, purpose, operation, requests, "
           "input_tokens,"
           " output_tokens, input_complete, output_complete) VALUES($1, $2, $3, $4, $5, $6, $7, "
           "$8, $9)"
           " ON CONFLICT (scope_id, usage_date, purpose, operation) DO UPDATE SET"
           " requests = d.requests + excluded.requests,"
           " input_tokens = d.input_tokens + excluded.input_tokens,"
           " output_tokens = d.output_tokens + excluded.output_tokens,"
           " input_complete = d.input_complete AND excluded.input_complete,"
           " output_complete = d.output_complete AND excluded.output_complete",
           {scope_id, date, purpose, operation, P(usage.requests),
            P(usage.input_tokens.value_or(0)), P(usage.output_tokens.value_or(0)),
            P(usage.input_tokens.has_value()), P(usage.output_tokens.has_value())})
      .status();
}

Status PgTxn::AddRecall(const std::string& scope_id, const std::string& date,
                        const std::string& estimator_id, const std::string& estimator_version,
                        const RecallMeasurement& v) {
  return Q("INSERT INTO recall_token_daily AS d(scope_id, usage_date, estimator_id, "
           "estimator_version, preparations,"
           " ready_preparations, comparable_preparations, baseline_tokens, recalled_tokens)"
           " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)"
           " ON CONFLICT (scope_id, usage_date, estimator_id, estimator_version) DO UPDATE SET"
           " preparations = d.preparations + excluded.preparations,"
           " ready_preparations = d.ready_preparations + excluded.ready_preparations,"
           " comparable_preparations = d.comparable_preparations + "
           "excluded.comparable_preparations,"
           " baseline_tokens = d.baseline_tokens + excluded.baseline_tokens,"
           " recalled_tokens = d.recalled_tokens + excluded.recalled_tokens",
           {scope_id, date, estimator_id, estimator_version, P(v.preparations),
            P(v.ready_preparations), P(v.comparable_preparations), P(v.baseline_tokens),
            P(v.recalled_tokens)})
      .status();
}

}  // namespace pc::pg
