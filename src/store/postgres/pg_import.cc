// ImportSqlite (pg_import.h): SQLite's rows into PostgreSQL's, table for table (pg_schema.cc
// mirrors store/sqlite/schema.cc), then the full-text projection, then the verification through
// both stores' ReadTxn, all in one PostgreSQL transaction.
#include "store/postgres/pg_import.h"

#include <sqlite3.h>

#include <filesystem>
#include <memory>

#include "store/postgres/pg_schema.h"
#include "store/postgres/pg_txn.h"
#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_txn.h"
#include "store/table_catalog.h"

namespace pc::pg {
namespace {

using Col = StoreColumn;
using Table = StoreTable;
const std::vector<StoreTable>& Tables() { return StoreTables(); }

// The identity columns the copy filled, and where each continues.
struct Identity {
  const char* table;
  const char* column;
};
constexpr Identity kIdentities[] = {
    {"entries", "doc"}, {"api_tokens", "token_id"}, {"audit_log", "seq"}};

// A statement's parameters at most (PostgreSQL takes 65535), and bytes a batch holds at most.
constexpr size_t kMaxParams = 30000;
constexpr size_t kMaxBatchBytes = size_t{8} << 20;
constexpr int kPage = 1000;

Status Mismatch(const std::string& what) {
  return Internal("verification failed: " + what + "; the copy is rolled back");
}

Result<int64_t> SqliteCount(sqlite::Db& db, const std::string& sql) {
  PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db.Prepare(sql));
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<int64_t> PgCount(Conn& c, const std::string& sql, const Params& params = {}) {
  PC_ASSIGN_OR_RETURN(Rows r, c.Query(sql, params));
  return r.size() ? r.Int(0, 0) : 0;
}

// Copies one table in multi-row INSERTs; returns its rows.
Result<int64_t> CopyTable(sqlite::Db& db, Conn& pg, const Table& t) {
  const size_t width = t.types.size();
  const size_t rows_per_batch = kMaxParams / width;
  const std::string head = std::string("INSERT INTO ") + t.name + "(" + t.columns + ")" +
                           (t.identity ? " OVERRIDING SYSTEM VALUE" : "") + " VALUES";
  Params values;
  size_t bytes = 0;
  int64_t copied = 0;
  auto flush = [&]() -> Status {
    if (values.empty()) return Status::Ok();
    const size_t rows = values.size() / width;
    std::string sql = head;
    for (size_t row = 0, n = 1; row < rows; ++row) {
      sql += row ? ", (" : "(";
      for (size_t col = 0; col < width; ++col, ++n) sql += (col ? ", $" : "$") + std::to_string(n);
      sql += ")";
    }
    PC_ASSIGN_OR_RETURN(Rows done, pg.Query(sql, values));
    if (done.affected() != static_cast<int64_t>(rows))
      return Internal(std::string("copying ") + t.name + ": " + std::to_string(done.affected()) +
                      " of " + std::to_string(rows) + " rows inserted");
    copied += static_cast<int64_t>(rows);
    values.clear();
    bytes = 0;
    return Status::Ok();
  };
  PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db.Prepare(std::string("SELECT ") + t.select + " FROM " +
                                                 t.name + " ORDER BY " + t.order));
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    for (size_t col = 0; col < width; ++col) {
      const int i = static_cast<int>(col);
      if (s.IsNull(i)) {
        values.push_back(std::nullopt);
        continue;
      }
      switch (t.types[col]) {
        case Col::kText:
          values.push_back(s.Text(i));
          break;
        case Col::kInt:
          values.push_back(P(s.Int(i)));
          break;
        case Col::kBool:
          values.push_back(P(s.Int(i) != 0));
          break;
        case Col::kBlob: {
          auto [data, size] = s.Blob(i);
          values.push_back(HexBytes(data, size));
          break;
        }
      }
      bytes += values.back()->size();
    }
    if (values.size() / width >= rows_per_batch || bytes >= kMaxBatchBytes)
      PC_RETURN_IF_ERROR(flush());
  }
  PC_RETURN_IF_ERROR(flush());
  return copied;
}

// ---- Verification: the same reads through SqliteTxn and PgTxn, compared field by field.

std::string Quote(const std::string& s) {
  return "\"" + (s.size() > 60 ? s.substr(0, 60) + "…" : s) + "\"";
}

Status SameVersion(const EntryVersion& a, const EntryVersion& b, const std::string& where) {
  auto differs = [&](const char* field, const std::string& x, const std::string& y) {
    return Mismatch(where + ": entry version " + a.entry_version_id + " " + field + " is " +
                    Quote(x) + " in SQLite but " + Quote(y) + " in PostgreSQL");
  };
  if (a.entry_version_id != b.entry_version_id)
    return differs("id", a.entry_version_id, b.entry_version_id);
  if (a.entry_id != b.entry_id) return differs("entry_id", a.entry_id, b.entry_id);
  if (a.version != b.version) return differs("version", P(a.version), P(b.version));
  if (a.previous_version_id != b.previous_version_id)
    return differs("previous_version_id", a.previous_version_id.value_or("(none)"),
                   b.previous_version_id.value_or("(none)"));
  if (a.kind != b.kind) return differs("kind", a.kind, b.kind);
  if (a.text != b.text) return differs("text", a.text, b.text);
  if (a.content_hash != b.content_hash)
    return differs("content_hash", a.content_hash, b.content_hash);
  if (a.source_refs != b.source_refs)
    return differs("source_refs", JoinLines(a.source_refs), JoinLines(b.source_refs));
  if (a.created_by_revision != b.created_by_revision)
    return differs("created_by_revision", P(a.created_by_revision), P(b.created_by_revision));
  if (a.reason != b.reason) return differs("reason", a.reason, b.reason);
  if (a.created_at_ms != b.created_at_ms)
    return differs("created_at", P(a.created_at_ms), P(b.created_at_ms));
  if (a.valid_until_ms != b.valid_until_ms)
    return differs("valid_until", a.valid_until_ms ? P(*a.valid_until_ms) : "(none)",
                   b.valid_until_ms ? P(*b.valid_until_ms) : "(none)");
  return Status::Ok();
}

bool SameRevision(const RevisionInfo& a, const RevisionInfo& b) {
  if (!(a.memory == b.memory) || a.actor != b.actor || a.reason != b.reason ||
      a.created_at_ms != b.created_at_ms || a.lineage != b.lineage ||
      a.changes.size() != b.changes.size())
    return false;
  for (size_t i = 0; i < a.changes.size(); ++i) {
    const Change &x = a.changes[i], &y = b.changes[i];
    if (x.op != y.op || x.entry_id != y.entry_id || x.from_version_id != y.from_version_id ||
        x.to_version_id != y.to_version_id)
      return false;
  }
  return true;
}

bool SameSource(const Source& a, const Source& b) {
  return a.source_id == b.source_id && a.scope_id == b.scope_id && a.position == b.position &&
         a.kind == b.kind && a.purpose == b.purpose && a.content == b.content &&
         a.metadata_json == b.metadata_json && a.idempotency_key == b.idempotency_key &&
         a.created_at_ms == b.created_at_ms;
}

bool SameToken(const ApiToken& a, const ApiToken& b) {
  return a.name == b.name && a.role == b.role && a.scope_patterns == b.scope_patterns &&
         a.secret_hash == b.secret_hash && a.created_by == b.created_by &&
         a.created_at_ms == b.created_at_ms && a.expires_at_ms == b.expires_at_ms &&
         a.revoked_at_ms == b.revoked_at_ms;
}

bool SameAudit(const AuditRecord& a, const AuditRecord& b) {
  return a.seq == b.seq && a.at_ms == b.at_ms && a.actor == b.actor && a.operation == b.operation &&
         a.scope_id == b.scope_id && a.targets_json == b.targets_json && a.result == b.result &&
         a.request_id == b.request_id;
}

// Every revision's whole manifest (retired lines too), page by page.
Status VerifyManifests(ReadTxn& s, ReadTxn& p, const Artifact& a, ImportReport::Verified& v) {
  for (int64_t r = 1; r <= a.head_revision; ++r) {
    const std::string where = a.artifact_id + "@" + P(r);
    for (std::string after;;) {
      PC_ASSIGN_OR_RETURN(auto x, s.ListManifest(a.artifact_id, r, true, after, kPage));
      PC_ASSIGN_OR_RETURN(auto y, p.ListManifest(a.artifact_id, r, true, after, kPage));
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        const ManifestItem &mx = x[i], &my = y[i];
        if (mx.version.entry_id != my.version.entry_id)
          return Mismatch("the manifest of " + where + " lists entry " + mx.version.entry_id +
                          " in SQLite where " + "PostgreSQL lists " + my.version.entry_id);
        if (mx.version.entry_version_id != my.version.entry_version_id || mx.active != my.active)
          return Mismatch("the manifest of " + where + " has entry " + mx.version.entry_id +
                          " at " + mx.version.entry_version_id +
                          (mx.active ? " (active)" : " (retired)") + " in SQLite but at " +
                          my.version.entry_version_id + (my.active ? " (active)" : " (retired)") +
                          " in PostgreSQL");
        PC_RETURN_IF_ERROR(SameVersion(mx.version, my.version, "the manifest of " + where));
      }
      if (x.size() != y.size())
        return Mismatch("the manifest of " + where + " has " + std::to_string(x.size()) +
                        " lines after " + Quote(after) + " in SQLite but " +
                        std::to_string(y.size()) + " in PostgreSQL");
      v.manifest_lines += static_cast<int64_t>(x.size());
      if (static_cast<int>(x.size()) < kPage) break;
      after = x.back().version.entry_id;
    }
    ++v.manifests;
  }
  return Status::Ok();
}

Status VerifyRevisions(ReadTxn& s, ReadTxn& p, const Artifact& a, ImportReport::Verified& v) {
  for (int64_t before = 0;;) {
    PC_ASSIGN_OR_RETURN(auto x, s.ListRevisions(a.artifact_id, before, kPage));
    PC_ASSIGN_OR_RETURN(auto y, p.ListRevisions(a.artifact_id, before, kPage));
    if (x.size() != y.size())
      return Mismatch(a.artifact_id + " has " + std::to_string(x.size()) + " revisions below " +
                      P(before) + " in SQLite but " + std::to_string(y.size()) + " in PostgreSQL");
    for (size_t i = 0; i < x.size(); ++i)
      if (!SameRevision(x[i], y[i]))
        return Mismatch("revision " + a.artifact_id + "@" + P(x[i].memory.revision) +
                        " (its actor, reason, time,"
                        " lineage or changes) differs");
    v.revisions += static_cast<int64_t>(x.size());
    if (x.empty()) return Status::Ok();
    before = x.back().memory.revision;
    if (before <= 1) return Status::Ok();
  }
}

Status VerifyHandoffs(ReadTxn& s, ReadTxn& p, const Artifact& a, ImportReport::Verified& v) {
  for (int64_t before = 0;;) {
    PC_ASSIGN_OR_RETURN(auto x, s.ListHandoffs(a.artifact_id, before, kPage));
    PC_ASSIGN_OR_RETURN(auto y, p.ListHandoffs(a.artifact_id, before, kPage));
    if (x.size() != y.size())
      return Mismatch(a.artifact_id + " has " + std::to_string(x.size()) +
                      " handoff revisions below " + P(before) + " in SQLite but " +
                      std::to_string(y.size()) + " in PostgreSQL");
    for (size_t i = 0; i < x.size(); ++i)
      if (!(x[i].ref == y[i].ref) || x[i].actor != y[i].actor ||
          x[i].created_at_ms != y[i].created_at_ms || !(x[i].content == y[i].content))
        return Mismatch("handoff " + a.artifact_id + "@" + P(x[i].ref.revision) +
                        " (its content, claims or "
                        "citations) differs");
    v.handoffs += static_cast<int64_t>(x.size());
    if (x.empty()) return Status::Ok();
    before = x.back().ref.revision;
    if (before <= 1) return Status::Ok();
  }
}

Status VerifyArtifacts(sqlite::Db& db, ReadTxn& s, ReadTxn& p, ImportReport::Verified& v) {
  std::vector<std::string> ids;
  {
    PC_ASSIGN_OR_RETURN(sqlite::Stmt q,
                        db.Prepare("SELECT artifact_id FROM artifacts ORDER BY artifact_id"));
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      ids.push_back(q.Text(0));
    }
  }
  for (const std::string& id : ids) {
    PC_ASSIGN_OR_RETURN(auto x, s.FindArtifact(id));
    PC_ASSIGN_OR_RETURN(auto y, p.FindArtifact(id));
    if (!x) return Internal("artifact " + id + " vanished from the SQLite snapshot");
    if (!y) return Mismatch("artifact " + id + " is missing in PostgreSQL");
    if (x->scope_id != y->scope_id || x->family != y->family ||
        x->head_revision != y->head_revision || x->created_at_ms != y->created_at_ms)
      return Mismatch("artifact " + id + " (its scope, family, head revision or time) differs");
    PC_ASSIGN_OR_RETURN(auto vx, s.GetVectorState(id));
    PC_ASSIGN_OR_RETURN(auto vy, p.GetVectorState(id));
    if (vx.profile != vy.profile || vx.missing != vy.missing)
      return Mismatch("the vector state of " + id + " is " + Quote(vx.profile) + " with " +
                      P(vx.missing) + " missing in SQLite but " + Quote(vy.profile) + " with " +
                      P(vy.missing) + " in PostgreSQL");
    PC_RETURN_IF_ERROR(VerifyRevisions(s, p, *x, v));
    if (x->family == kHandoffFamily)
      PC_RETURN_IF_ERROR(VerifyHandoffs(s, p, *x, v));
    else
      PC_RETURN_IF_ERROR(VerifyManifests(s, p, *x, v));
    ++v.artifacts;
  }
  return Status::Ok();
}

// Every entry version ever written, by its id: the exact bytes a citation reads back.
Status VerifyVersions(sqlite::Db& db, ReadTxn& s, ReadTxn& p, ImportReport::Verified& v) {
  for (std::string after;;) {
    std::vector<std::string> ids;
    {
      PC_ASSIGN_OR_RETURN(
          sqlite::Stmt q,
          db.Prepare("SELECT entry_version_id FROM entry_versions"
                     " WHERE entry_version_id > ?1 ORDER BY entry_version_id LIMIT ?2"));
      q.Bind(1, after).Bind(2, int64_t{kPage});
      while (true) {
        PC_ASSIGN_OR_RETURN(bool row, q.Step());
        if (!row) break;
        ids.push_back(q.Text(0));
      }
    }
    for (const std::string& id : ids) {
      PC_ASSIGN_OR_RETURN(auto x, s.FindEntryVersion(id));
      PC_ASSIGN_OR_RETURN(auto y, p.FindEntryVersion(id));
      if (!x) return Internal("entry version " + id + " vanished from the SQLite snapshot");
      if (!y) return Mismatch("entry version " + id + " is missing in PostgreSQL");
      PC_RETURN_IF_ERROR(SameVersion(*x, *y, "reading it by id"));
      ++v.entry_versions;
    }
    if (static_cast<int>(ids.size()) < kPage) return Status::Ok();
    after = ids.back();
  }
}

Status VerifyScopesAndSources(ReadTxn& s, ReadTxn& p, ImportReport::Verified& v) {
  for (std::string after;;) {
    PC_ASSIGN_OR_RETURN(auto x, s.ListScopes(after, kPage));
    PC_ASSIGN_OR_RETURN(auto y, p.ListScopes(after, kPage));
    if (x.size() != y.size())
      return Mismatch(std::to_string(x.size()) + " scopes after " + Quote(after) +
                      " in SQLite but " + std::to_string(y.size()) + " in PostgreSQL");
    for (size_t i = 0; i < x.size(); ++i) {
      const Scope &a = x[i], &b = y[i];
      if (a.scope_id != b.scope_id || a.key != b.key || a.created_at_ms != b.created_at_ms ||
          a.memory_artifact_id != b.memory_artifact_id ||
          a.memory_head_revision != b.memory_head_revision)
        return Mismatch("scope " + a.scope_id + " (" + Quote(a.key) + ") differs");
      PC_ASSIGN_OR_RETURN(int64_t hx, s.SourceHighWatermark(a.scope_id));
      PC_ASSIGN_OR_RETURN(int64_t hy, p.SourceHighWatermark(a.scope_id));
      if (hx != hy)
        return Mismatch("the source log of " + a.scope_id + " ends at " + P(hx) +
                        " in SQLite but at " + P(hy) + " in PostgreSQL");
      for (int64_t at = 0; at < hx;) {
        PC_ASSIGN_OR_RETURN(auto sx, s.ListSources(a.scope_id, at, kPage));
        PC_ASSIGN_OR_RETURN(auto sy, p.ListSources(a.scope_id, at, kPage));
        if (sx.size() != sy.size() || sx.empty())
          return Mismatch("the source log of " + a.scope_id + " after position " + P(at) +
                          " differs in length");
        for (size_t j = 0; j < sx.size(); ++j)
          if (!SameSource(sx[j], sy[j]))
            return Mismatch("source " + sx[j].source_id + " (" + a.scope_id + " position " +
                            P(sx[j].position) + ") differs");
        v.sources += static_cast<int64_t>(sx.size());
        at = sx.back().position;
      }
    }
    if (static_cast<int>(x.size()) < kPage) return Status::Ok();
    after = x.back().scope_id;
  }
}

Status VerifyTokensAndAudit(ReadTxn& s, ReadTxn& p, ImportReport::Verified& v) {
  PC_ASSIGN_OR_RETURN(auto tx, s.ListTokens());
  PC_ASSIGN_OR_RETURN(auto ty, p.ListTokens());
  if (tx.size() != ty.size())
    return Mismatch(std::to_string(tx.size()) + " tokens in SQLite but " +
                    std::to_string(ty.size()) + " in PostgreSQL");
  for (size_t i = 0; i < tx.size(); ++i)
    if (!SameToken(tx[i], ty[i])) return Mismatch("token " + tx[i].name + " differs");
  v.tokens = static_cast<int64_t>(tx.size());
  AuditQuery q;
  q.limit = kPage;
  while (true) {
    PC_ASSIGN_OR_RETURN(auto ax, s.ListAudit(q));
    PC_ASSIGN_OR_RETURN(auto ay, p.ListAudit(q));
    if (ax.size() != ay.size())
      return Mismatch(std::to_string(ax.size()) + " audit rows before seq " + P(q.before_seq) +
                      " in SQLite but " + std::to_string(ay.size()) + " in PostgreSQL");
    for (size_t i = 0; i < ax.size(); ++i)
      if (!SameAudit(ax[i], ay[i])) return Mismatch("audit row " + P(ax[i].seq) + " differs");
    v.audit_rows += static_cast<int64_t>(ax.size());
    if (static_cast<int>(ax.size()) < kPage) return Status::Ok();
    q.before_seq = ax.back().seq;
  }
}

// The full-text projection holds exactly the head entries (at their versions, retired ones
// marked) and the sources, each index's totals adding up.
Status VerifyText(Conn& c) {
  PC_ASSIGN_OR_RETURN(int64_t heads,
                      PgCount(c, "SELECT count(*) FROM manifest WHERE to_revision IS NULL"));
  PC_ASSIGN_OR_RETURN(int64_t docs, PgCount(c, "SELECT count(*) FROM text_docs WHERE kind = 0"));
  PC_ASSIGN_OR_RETURN(
      int64_t matched,
      PgCount(c,
              "SELECT count(*) FROM manifest m JOIN entries e ON e.entry_id = m.entry_id"
              " JOIN text_docs d ON d.kind = 0 AND d.owner = m.artifact_id AND d.doc = e.doc"
              " AND d.entry_version_id = m.entry_version_id AND d.retired = NOT m.active WHERE "
              "m.to_revision IS NULL"));
  if (heads != docs || heads != matched)
    return Mismatch("the full-text index holds " + P(docs) + " memory documents (" + P(matched) +
                    " matching) for " + P(heads) + " head entries");
  PC_ASSIGN_OR_RETURN(int64_t sources, PgCount(c, "SELECT count(*) FROM sources"));
  PC_ASSIGN_OR_RETURN(int64_t source_docs,
                      PgCount(c,
                              "SELECT count(*) FROM sources s JOIN text_docs d ON d.kind = 1 AND "
                              "d.owner = s.scope_id AND d.doc = s.position"));
  PC_ASSIGN_OR_RETURN(int64_t all_source_docs,
                      PgCount(c, "SELECT count(*) FROM text_docs WHERE kind = 1"));
  if (sources != source_docs || sources != all_source_docs)
    return Mismatch("the full-text index holds " + P(all_source_docs) + " source documents for " +
                    P(sources) + " sources");
  PC_ASSIGN_OR_RETURN(
      int64_t off,
      PgCount(c,
              "SELECT count(*) FROM text_stats t FULL JOIN (SELECT kind, owner, count(*) AS docs, "
              "sum(tokens) AS tokens,"
              " count(*) FILTER (WHERE retired) AS retired FROM text_docs GROUP BY kind, owner) d"
              " ON d.kind = t.kind AND d.owner = t.owner"
              " WHERE t.docs IS DISTINCT FROM d.docs OR t.tokens IS DISTINCT FROM d.tokens"
              " OR t.retired IS DISTINCT FROM d.retired"));
  if (off != 0) return Mismatch(P(off) + " full-text indexes have totals that do not add up");
  return Status::Ok();
}

// Every vector row, byte for byte (what each server's vector index loads): both pages in entry
// id order (SQLite's BINARY, PostgreSQL's "C").
Status VerifyVectors(sqlite::Db& db, Conn& pg, ImportReport::Verified& v) {
  for (std::string after;;) {
    PC_ASSIGN_OR_RETURN(
        Rows y, pg.Query("SELECT entry_id, artifact_id, entry_version_id, active, profile, vector"
                         " FROM entry_vectors WHERE entry_id COLLATE \"C\" > $1"
                         " ORDER BY entry_id COLLATE \"C\" LIMIT $2",
                         {after, P(kPage)}));
    PC_ASSIGN_OR_RETURN(
        sqlite::Stmt x,
        db.Prepare("SELECT entry_id, artifact_id, entry_version_id, active, profile,"
                   " vector FROM entry_vectors WHERE entry_id > ?1"
                   " ORDER BY entry_id LIMIT ?2"));
    x.Bind(1, after).Bind(2, int64_t{kPage});
    int i = 0;
    for (;; ++i) {
      PC_ASSIGN_OR_RETURN(bool row, x.Step());
      if (!row) break;
      const std::string id = x.Text(0);
      if (i >= y.size() || y.Text(i, 0) != id)
        return Mismatch("the vector row of entry " + id + " is missing in PostgreSQL");
      auto [data, size] = x.Blob(5);
      const std::optional<std::string> vector =
          x.IsNull(5) ? std::nullopt : std::optional<std::string>(HexBytes(data, size));
      if (y.Text(i, 1) != x.Text(1) || y.Text(i, 2) != x.Text(2) ||
          Bool(y, i, 3) != (x.Int(3) != 0) || y.Get(i, 4) != x.OptText(4) || y.Get(i, 5) != vector)
        return Mismatch("the vector row of entry " + id +
                        " (its version, state, profile or vector bytes) differs");
      ++v.vectors;
    }
    if (i != y.size())
      return Mismatch("PostgreSQL has vector rows SQLite has not, after entry " + Quote(after));
    if (i < kPage) return Status::Ok();
    after = y.Text(i - 1, 0);
  }
}

Status Verify(sqlite::Db& db, Conn& pg, ImportReport& report) {
  ImportReport::Verified& v = report.verified;
  for (const Table& t : Tables()) {
    PC_ASSIGN_OR_RETURN(int64_t x, SqliteCount(db, std::string("SELECT count(*) FROM ") + t.name));
    PC_ASSIGN_OR_RETURN(int64_t y, PgCount(pg, std::string("SELECT count(*) FROM ") + t.name));
    if (x != y)
      return Mismatch(std::string("table ") + t.name + " has " + P(x) + " rows in SQLite but " +
                      P(y) + " in PostgreSQL");
    ++v.tables;
  }
  sqlite::SqliteTxn s(db, false);
  PgTxn p(pg, false);
  PC_RETURN_IF_ERROR(VerifyScopesAndSources(s, p, v));
  PC_RETURN_IF_ERROR(VerifyArtifacts(db, s, p, v));
  PC_RETURN_IF_ERROR(VerifyVersions(db, s, p, v));
  PC_RETURN_IF_ERROR(VerifyVectors(db, pg, v));
  PC_RETURN_IF_ERROR(VerifyTokensAndAudit(s, p, v));
  return VerifyText(pg);
}

// ---- The import.

Status RunImport(sqlite::Db& db, Conn& pg, const ImportOptions& options, ImportReport& report) {
  auto step = [&](const std::string& what) {
    if (options.progress) options.progress(what);
  };
  // Nobody else writes while the copy runs (reads go on); an existing row anywhere means the
  // target is in use: refused, never merged.
  std::string all;
  for (const Table& t : Tables()) all += std::string(all.empty() ? "" : ", ") + t.name;
  all += ", text_docs, text_postings, text_stats";
  PC_RETURN_IF_ERROR(pg.Exec("LOCK TABLE " + all + " IN EXCLUSIVE MODE"));
  std::string holding;
  for (const Table& t : Tables()) {
    PC_ASSIGN_OR_RETURN(Rows r,
                        pg.Query(std::string("SELECT EXISTS(SELECT 1 FROM ") + t.name + ")"));
    if (Bool(r, 0, 0)) holding += std::string(holding.empty() ? "" : ", ") + t.name;
  }
  if (!holding.empty()) {
    PC_ASSIGN_OR_RETURN(int64_t scopes, PgCount(pg, "SELECT count(*) FROM scopes"));
    return Status(Code::kStoreNotEmpty,
                  "the target database already holds data (" + std::to_string(scopes) +
                      " scopes; rows in " + holding +
                      "): migrate copies only into an empty database and never merges; nothing was "
                      "changed")
        .WithDetail("tables", holding);
  }

  for (const Table& t : Tables()) {
    step(std::string("copying ") + t.name);
    PC_ASSIGN_OR_RETURN(int64_t n, CopyTable(db, pg, t));
    report.tables.emplace_back(t.name, n);
  }
  // Identity columns continue after the copied values (ALTER: transactional, unlike setval).
  for (const Identity& id : kIdentities) {
    PC_ASSIGN_OR_RETURN(int64_t next, PgCount(pg, std::string("SELECT coalesce(max(") + id.column +
                                                      "), 0) + 1 FROM " + id.table));
    PC_RETURN_IF_ERROR(pg.Exec(std::string("ALTER TABLE ") + id.table + " ALTER COLUMN " +
                               id.column + " RESTART WITH " + P(next)));
  }
  // Servers on this database reload their tokens.
  PC_RETURN_IF_ERROR(pg.Exec("UPDATE store_epochs SET value = value + 1 WHERE name = 'tokens'"));

  step("building the full-text index");
  {
    PgTxn txn(pg, false);
    PC_ASSIGN_OR_RETURN(
        Rows memories,
        pg.Query("SELECT DISTINCT artifact_id FROM manifest WHERE to_revision IS NULL"
                 " ORDER BY artifact_id"));
    for (int i = 0; i < memories.size(); ++i)
      PC_RETURN_IF_ERROR(txn.RebuildTextIndex(memories.Text(i, 0), false));
    PC_ASSIGN_OR_RETURN(Rows logs,
                        pg.Query("SELECT DISTINCT scope_id FROM sources ORDER BY scope_id"));
    for (int i = 0; i < logs.size(); ++i)
      PC_RETURN_IF_ERROR(txn.RebuildTextIndex(logs.Text(i, 0), true));
    report.text_memories = memories.size();
    report.text_source_logs = logs.size();
    PC_ASSIGN_OR_RETURN(report.text_memory_docs,
                        PgCount(pg, "SELECT count(*) FROM text_docs WHERE kind = 0"));
    PC_ASSIGN_OR_RETURN(report.text_source_docs,
                        PgCount(pg, "SELECT count(*) FROM text_docs WHERE kind = 1"));
  }

  if (options.before_verify) PC_RETURN_IF_ERROR(options.before_verify(pg));
  step("verifying");
  return Verify(db, pg, report);
}

}  // namespace

Result<ImportReport> ImportSqlite(const ImportOptions& options) {
  ImportReport report;
  if (options.to_url.rfind("postgresql://", 0) != 0 && options.to_url.rfind("postgres://", 0) != 0)
    return InvalidArgument("--to must be a postgresql:// URL (postgresql://user@host:port/db)");
  PC_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Db> db,
                      sqlite::Db::OpenReadOnly(options.from_dir, report.source_path));

  // One read transaction: every row, and the verification's reads, from one snapshot.
  PC_RETURN_IF_ERROR(db->Exec("BEGIN"));
  struct EndRead {
    sqlite::Db& db;
    ~EndRead() { (void)db.Exec("ROLLBACK"); }
  } end_read{*db};
  {
    PC_ASSIGN_OR_RETURN(sqlite::Stmt s, db->Prepare("PRAGMA user_version"));
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    report.source_schema_version = row ? static_cast<int>(s.Int(0)) : 0;
  }
  const int latest = sqlite::LatestSchemaVersion();
  if (report.source_schema_version < latest)
    return InvalidArgument("the store in " + options.from_dir + " has schema version " +
                           std::to_string(report.source_schema_version) +
                           ", older than this build's " + std::to_string(latest) +
                           ": start `powercontext serve --data " + options.from_dir +
                           "` once with this build (it upgrades the store), stop it, then migrate");
  if (report.source_schema_version > latest)
    return InvalidArgument("the store in " + options.from_dir + " has schema version " +
                           std::to_string(report.source_schema_version) +
                           ", newer than this build's " + std::to_string(latest) +
                           ": use a newer powercontext");
  PC_ASSIGN_OR_RETURN(report.legacy_handoff_versions,
                      SqliteCount(*db, "SELECT count(*) FROM handoff_versions"));
  PC_ASSIGN_OR_RETURN(report.legacy_handoff_items,
                      SqliteCount(*db, "SELECT count(*) FROM handoff_items"));

  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> pg, Conn::Open(options.to_url));
  if (options.progress) options.progress("bringing the target's schema up to date");
  PC_ASSIGN_OR_RETURN(report.target_schema_found, Migrate(*pg));

  PC_RETURN_IF_ERROR(pg->Exec("BEGIN ISOLATION LEVEL READ COMMITTED"));
  Status status = RunImport(*db, *pg, options, report);
  if (!status.ok()) {
    (void)pg->Exec("ROLLBACK");
    return status;
  }
  if (options.progress) options.progress("committing");
  if (Status committed = pg->Exec("COMMIT"); !committed.ok())
    return Internal("the commit failed, so nothing was migrated: " + committed.message());
  return report;
}

}  // namespace pc::pg
