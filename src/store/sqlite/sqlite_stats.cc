// The statistics of SqliteTxn (RFC 0072): inventory counts over the current heads, and the daily
// aggregates of model usage and recall (migration 7), incremented by UPSERT.
#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {

Result<std::vector<Inventory::Count>> SqliteTxn::CountArtifactsByFamily(
    const std::string& scope_id) {
  // BINARY collation: UTF-8 byte order.
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("SELECT family, count(*) FROM artifacts WHERE scope_id = ?1 AND head_revision > 0"
                  " GROUP BY family ORDER BY family"));
  s.Bind(1, scope_id);
  std::vector<Inventory::Count> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back({s.Text(0), s.Int(1), 0});
  }
}

Result<std::vector<Inventory::Count>> SqliteTxn::CountHeadEntriesByKind(
    const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "SELECT v.kind, sum(m.active != 0), sum(m.active = 0) FROM manifest m"
          " JOIN entry_versions v ON v.entry_version_id = m.entry_version_id"
          " WHERE m.artifact_id = ?1 AND m.to_revision IS NULL GROUP BY v.kind ORDER BY v.kind"));
  s.Bind(1, artifact_id);
  std::vector<Inventory::Count> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back({s.Text(0), s.Int(1), s.Int(2)});
  }
}

Result<std::vector<UsageRow>> SqliteTxn::ListModelUsage(const std::string& scope_id,
                                                        const std::string& from,
                                                        const std::string& to) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT usage_date, purpose, operation, requests, "
                                          "input_tokens, output_tokens, input_complete,"
                                          " output_complete FROM model_usage_daily WHERE scope_id "
                                          "= ?1 AND usage_date BETWEEN ?2 AND ?3"
                                          " ORDER BY usage_date, purpose, operation"));
  s.Bind(1, scope_id).Bind(2, from).Bind(3, to);
  std::vector<UsageRow> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    UsageRow r{s.Text(0), s.Text(1), s.Text(2), {}};
    r.usage.requests = s.Int(3);
    r.usage.input_tokens = s.Int(6) != 0 ? std::optional<int64_t>(s.Int(4)) : std::nullopt;
    r.usage.output_tokens = s.Int(7) != 0 ? std::optional<int64_t>(s.Int(5)) : std::nullopt;
    out.push_back(std::move(r));
  }
}

Result<std::vector<RecallRow>> SqliteTxn::ListRecall(const std::string& scope_id,
                                                     const std::string& estimator_id,
                                                     const std::string& estimator_version,
                                                     const std::string& from,
                                                     const std::string& to) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "SELECT usage_date, preparations, ready_preparations, comparable_preparations, "
          "baseline_tokens,"
          " recalled_tokens FROM recall_token_daily WHERE scope_id = ?1 AND estimator_id = ?2"
          " AND estimator_version = ?3 AND usage_date BETWEEN ?4 AND ?5 ORDER BY usage_date"));
  s.Bind(1, scope_id).Bind(2, estimator_id).Bind(3, estimator_version).Bind(4, from).Bind(5, to);
  std::vector<RecallRow> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back({s.Text(0), {s.Int(1), s.Int(2), s.Int(3), s.Int(4), s.Int(5)}});
  }
}

Status SqliteTxn::AddModelUsage(const std::string& scope_id, const std::string& date,
                                const std::string& purpose, const std::string& operation,
                                const ModelUsage& usage) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("INSERT INTO model_usage_daily(scope_id, usage_date, purpose, operation, "
                          "requests, input_tokens,"
                          " output_tokens, input_complete, output_complete) VALUES(?1, ?2, ?3, ?4, "
                          "?5, ?6, ?7, ?8, ?9)"
                          " ON CONFLICT(scope_id, usage_date, purpose, operation) DO UPDATE SET"
                          " requests = requests + excluded.requests,"
                          " input_tokens = input_tokens + excluded.input_tokens,"
                          " output_tokens = output_tokens + excluded.output_tokens,"
                          " input_complete = input_complete AND excluded.input_complete,"
                          " output_complete = output_complete AND excluded.output_complete"));
  s.Bind(1, scope_id).Bind(2, date).Bind(3, purpose).Bind(4, operation).Bind(5, usage.requests);
  s.Bind(6, usage.input_tokens.value_or(0)).Bind(7, usage.output_tokens.value_or(0));
  s.Bind(8, int64_t{usage.input_tokens.has_value()})
      .Bind(9, int64_t{usage.output_tokens.has_value()});
  return s.Run();
}

Status SqliteTxn::AddRecall(const std::string& scope_id, const std::string& date,
                            const std::string& estimator_id, const std::string& estimator_version,
                            const RecallMeasurement& v) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "INSERT INTO recall_token_daily(scope_id, usage_date, estimator_id, estimator_version, "
          "preparations,"
          " ready_preparations, comparable_preparations, baseline_tokens, recalled_tokens)"
          " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
          " ON CONFLICT(scope_id, usage_date, estimator_id, estimator_version) DO UPDATE SET"
          " preparations = preparations + excluded.preparations,"
          " ready_preparations = ready_preparations + excluded.ready_preparations,"
          " comparable_preparations = comparable_preparations + excluded.comparable_preparations,"
          " baseline_tokens = baseline_tokens + excluded.baseline_tokens,"
          " recalled_tokens = recalled_tokens + excluded.recalled_tokens"));
  s.Bind(1, scope_id).Bind(2, date).Bind(3, estimator_id).Bind(4, estimator_version);
  s.Bind(5, v.preparations).Bind(6, v.ready_preparations).Bind(7, v.comparable_preparations);
  s.Bind(8, v.baseline_tokens).Bind(9, v.recalled_tokens);
  return s.Run();
}

}  // namespace pc::sqlite
