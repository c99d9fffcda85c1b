// The core of PgTxn: scopes, artifacts, revisions, entries, their versions and the interval
// manifest — SqliteTxn's queries (store/sqlite/sqlite_txn.cc) in PostgreSQL's dialect.
#include "store/postgres/pg_txn.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <utility>

#include "common/clock.h"
#include "common/ids.h"

namespace pc::pg {
namespace {

const std::string kScopeColumns =
    "SELECT s.scope_id, s.key, s.created_at, a.artifact_id, a.head_revision, a.created_at";
const std::string kScopeFrom =
    " FROM scopes s"
    " JOIN artifacts a ON a.scope_id = s.scope_id AND a.family = 'memory' AND a.is_default";
const std::string kScopeSelect = kScopeColumns + kScopeFrom;
// The same with the scope's settings: one row a setting (columns 6 and 7), or one with none.
const std::string kScopeWithSettings = kScopeColumns + ", x.name, x.value" + kScopeFrom +
                                       " LEFT JOIN scope_settings x ON x.scope_id = s.scope_id";
// For a read, also the memory's full-text totals (columns 6 to 8, NULL without a row) and vector
// state (9 and 10), then the settings (11 and 12).
const std::string kScopeWithTotals =
    kScopeColumns +
    ", t.docs, t.tokens, t.retired, coalesce(a.vector_profile, ''), a.vector_missing, x.name,"
    " x.value" +
    kScopeFrom +
    " LEFT JOIN text_stats t ON t.kind = " + std::to_string(static_cast<int>(TextKind::kMemory)) +
    " AND t.owner = a.artifact_id LEFT JOIN scope_settings x ON x.scope_id = s.scope_id";

Scope ReadScope(const Rows& r, int row) {
  return Scope{r.Text(row, 0), r.Text(row, 1), r.Int(row, 2),
               r.Text(row, 3), r.Int(row, 4),  r.Int(row, 5)};
}

}  // namespace

std::string TextArray(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    out.push_back('"');
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  return out + "}";
}

EntryVersion ReadVersion(const Rows& r, int row, int at) {
  EntryVersion v;
  v.entry_version_id = r.Text(row, at);
  v.entry_id = r.Text(row, at + 1);
  v.version = r.Int(row, at + 2);
  v.previous_version_id = r.Get(row, at + 3);
  v.kind = r.Text(row, at + 4);
  v.text = r.Text(row, at + 5);
  v.content_hash = r.Text(row, at + 6);
  v.source_refs = SplitLines(r.Text(row, at + 7));
  v.created_by_revision = r.Int(row, at + 8);
  v.reason = r.Text(row, at + 9);
  v.created_at_ms = r.Int(row, at + 10);
  if (r.Get(row, at + 11)) v.valid_until_ms = r.Int(row, at + 11);
  return v;
}

ManifestItem ReadManifestItem(const Rows& r, int row) {
  return ManifestItem{ReadVersion(r, row, 1), Bool(r, row, 0)};
}

std::string HexBytes(const void* data, size_t size) {
  static const char* kDigits = "0123456789abcdef";
  std::string out = "\\x";
  out.reserve(2 + size * 2);
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[p[i] >> 4]);
    out.push_back(kDigits[p[i] & 15]);
  }
  return out;
}

std::vector<float> FloatsFromHex(const std::string& hex) {
  auto nibble = [](char c) -> unsigned { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  const size_t start = hex.rfind("\\x", 0) == 0 ? 2 : 0;
  std::vector<unsigned char> bytes((hex.size() - start) / 2);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<unsigned char>(nibble(hex[start + 2 * i]) << 4 |
                                          nibble(hex[start + 2 * i + 1]));
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

Result<std::optional<Scope>> PgTxn::FindScopeWhere(const std::string& column,
                                                   const std::string& value) {
  // With the scope's settings, in the same round trip: a remember asks for them next (its
  // gates' policy, write_policy.h).
  // A read also takes its memory's full-text totals and vector state, as of its one snapshot: the
  // gate's lookup and a search ask for them next (MemoryRead).
  PC_ASSIGN_OR_RETURN(Rows r, Q((writing_ ? kScopeWithSettings : kScopeWithTotals) + " WHERE s." +
                                    column + " = $1" + LockOf("a"),
                                {value}));
  if (r.size() == 0) return std::optional<Scope>();
  Scope scope = ReadScope(r, 0);
  if (!writing_)
    memory_read_ =
        MemoryRead{scope.memory_artifact_id, scope.memory_head_revision, r.Get(0, 6).has_value(),
                   TextIndexTotals{r.Int(0, 6), r.Int(0, 7), r.Int(0, 8)},
                   VectorState{r.Text(0, 9), r.Int(0, 10)}};
  KeepSettings(scope.scope_id, r, writing_ ? 6 : 11);
  return std::optional<Scope>(std::move(scope));
}

void PgTxn::KeepSettings(const std::string& scope_id, const Rows& r, int name_column) {
  ScopeSettingsRead read{scope_id, {}};
  for (int i = 0; i < r.size(); ++i)
    if (r.Get(i, name_column)) read.settings[r.Text(i, name_column)] = r.Text(i, name_column + 1);
  settings_ = std::move(read);
}

Result<std::optional<Scope>> PgTxn::FindScope(const std::string& scope_id) {
  return FindScopeWhere("scope_id", scope_id);
}
Result<std::optional<Scope>> PgTxn::FindScopeByKey(const std::string& key) {
  return FindScopeWhere("key", key);
}

Result<std::vector<Scope>> PgTxn::ListScopes(const std::string& after, int limit) {
  PC_ASSIGN_OR_RETURN(Rows r, Q(kScopeSelect + " WHERE s.scope_id COLLATE \"C\" > $1"
                                               " ORDER BY s.scope_id COLLATE \"C\" LIMIT $2",
                                {after, P(limit)}));
  std::vector<Scope> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(ReadScope(r, i));
  return out;
}

namespace {

// The active head line with this content hash ($2) in artifact $1. From the few versions with
// the hash to their head lines, one index lookup each: written so that no plan (a generic one
// made while the tables were small, statistics or none) scans the memory's whole head instead,
// which made every remember cost O(entries).
const std::string& ActiveByHashSql() {
  static const std::string sql =
      std::string("SELECT m.active, ") + kVersionColumns +
      " FROM entry_versions v CROSS JOIN LATERAL (SELECT h.active FROM manifest h"
      " WHERE h.artifact_id = $1 AND h.entry_id = v.entry_id AND h.to_revision IS NULL"
      " AND h.entry_version_id = v.entry_version_id OFFSET 0) m"
      " WHERE v.content_hash = $2 AND m.active LIMIT 1";
  return sql;
}

}  // namespace

Result<std::optional<Artifact>> PgTxn::FindArtifact(const std::string& artifact_id) {
  // A write locks the artifact, and reads its scope's settings in the same round trip: the write
  // asks for them next (its gates' policy, write_policy.h), with the scope's lock held; and the
  // exact-duplicate question it said it would ask (ExpectActiveByHash), run after the lock.
  const std::string lookup =
      writing_ ? "SELECT a.artifact_id, a.scope_id, a.family, a.head_revision, a.created_at,"
                 " s.name, s.value FROM artifacts a"
                 " LEFT JOIN scope_settings s ON s.scope_id = a.scope_id"
                 " WHERE a.artifact_id = $1" +
                     LockOf("a")
               : "SELECT artifact_id, scope_id, family, head_revision, created_at FROM artifacts"
                 " WHERE artifact_id = $1";
  Rows r;
  if (!expected_hash_.empty()) {
    const std::string hash = std::exchange(expected_hash_, std::string());
    PC_ASSIGN_OR_RETURN(std::vector<Rows> both,
                        QEach({{lookup, {artifact_id}}, {ActiveByHashSql(), {artifact_id, hash}}}));
    r = std::move(both.at(0));
    active_by_hash_ = ActiveByHashRead{artifact_id, hash, c_.changes(), std::move(both.at(1))};
  } else {
    PC_ASSIGN_OR_RETURN(r, Q(lookup, {artifact_id}));
  }
  if (r.size() == 0) return std::optional<Artifact>();
  if (writing_) KeepSettings(r.Text(0, 1), r, 5);
  return std::optional<Artifact>(
      Artifact{r.Text(0, 0), r.Text(0, 1), r.Text(0, 2), r.Int(0, 3), r.Int(0, 4)});
}

Result<std::vector<ManifestItem>> PgTxn::ListManifest(const std::string& artifact_id,
                                                      int64_t revision, bool include_inactive,
                                                      const std::string& after_entry_id,
                                                      int limit) {
  // The interval covering `revision`: at the head that is the open one (the partial index).
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q(std::string("SELECT m.active, ") + kVersionColumns +
            " FROM manifest m JOIN entry_versions v ON v.entry_version_id = m.entry_version_id"
            " WHERE m.artifact_id = $1 AND m.from_revision <= $2"
            " AND (m.to_revision IS NULL OR m.to_revision > $2)"
            " AND m.entry_id COLLATE \"C\" > $3 AND ($4 OR m.active)"
            " ORDER BY m.entry_id COLLATE \"C\" LIMIT $5",
        {artifact_id, P(revision), after_entry_id, P(include_inactive), P(limit)}));
  std::vector<ManifestItem> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(ReadManifestItem(r, i));
  return out;
}

Result<std::optional<ManifestItem>> PgTxn::FindManifestItem(const std::string& artifact_id,
                                                            int64_t revision,
                                                            const std::string& entry_id) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q(std::string("SELECT m.active, ") + kVersionColumns +
            " FROM manifest m JOIN entry_versions v ON v.entry_version_id = m.entry_version_id"
            " WHERE m.artifact_id = $1 AND m.entry_id = $3 AND m.from_revision <= $2"
            " AND (m.to_revision IS NULL OR m.to_revision > $2)"
            " ORDER BY m.from_revision DESC LIMIT 1",
        {artifact_id, P(revision), entry_id}));
  if (r.size() == 0) return std::optional<ManifestItem>();
  return std::optional<ManifestItem>(ReadManifestItem(r, 0));
}

Result<std::optional<ManifestItem>> PgTxn::FindActiveByHash(const std::string& artifact_id,
                                                            const std::string& content_hash) {
  Rows r;
  std::optional<ActiveByHashRead> read = std::exchange(active_by_hash_, std::nullopt);
  if (read && read->artifact_id == artifact_id && read->hash == content_hash &&
      read->changes == c_.changes()) {
    r = std::move(read->rows);  // asked with the lock, nothing changed since
  } else {
    PC_ASSIGN_OR_RETURN(r, Q(ActiveByHashSql(), {artifact_id, content_hash}));
  }
  if (r.size() == 0) return std::optional<ManifestItem>();
  return std::optional<ManifestItem>(ReadManifestItem(r, 0));
}

Status PgTxn::LoadChanges(RevisionInfo& info) {
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q("SELECT op, entry_id, from_version_id, to_version_id FROM revision_changes"
                        " WHERE artifact_id = $1 AND revision = $2 ORDER BY seq",
                        {info.memory.artifact_id, P(info.memory.revision)}));
  for (int i = 0; i < r.size(); ++i) {
    std::optional<ChangeOp> op = ParseChangeOp(r.Text(i, 0));
    // A change the store cannot name is corruption: an error, never read as an add.
    if (!op)
      return Internal("revision " + std::to_string(info.memory.revision) +
                      " names an unknown change: " + r.Text(i, 0));
    info.changes.push_back(Change{*op, r.Text(i, 1), r.Get(i, 2), r.Text(i, 3)});
  }
  return Status::Ok();
}

Result<std::vector<RevisionInfo>> PgTxn::ListRevisions(const std::string& artifact_id,
                                                       int64_t before, int limit) {
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q("SELECT r.revision, r.actor, r.reason, r.lineage, r.created_at, a.family"
                        " FROM revisions r JOIN artifacts a ON a.artifact_id = r.artifact_id"
                        " WHERE r.artifact_id = $1 AND ($2 = 0 OR r.revision < $2)"
                        " ORDER BY r.revision DESC LIMIT $3",
                        {artifact_id, P(before), P(limit)}));
  std::vector<RevisionInfo> out;
  for (int i = 0; i < r.size(); ++i) {
    RevisionInfo info;
    info.memory = MemoryRef{r.Text(i, 5), artifact_id, r.Int(i, 0)};
    info.actor = r.Text(i, 1);
    info.reason = r.Text(i, 2);
    info.lineage = SplitLines(r.Text(i, 3));
    info.created_at_ms = r.Int(i, 4);
    out.push_back(std::move(info));
  }
  for (auto& info : out) PC_RETURN_IF_ERROR(LoadChanges(info));
  return out;
}

Result<std::optional<RevisionInfo>> PgTxn::FindRevision(const std::string& artifact_id,
                                                        int64_t revision) {
  PC_ASSIGN_OR_RETURN(auto list, ListRevisions(artifact_id, revision + 1, 1));
  if (list.empty() || list[0].memory.revision != revision) return std::optional<RevisionInfo>();
  return std::optional<RevisionInfo>(std::move(list[0]));
}

Result<std::vector<EntryVersion>> PgTxn::ListEntryVersions(const std::string& entry_id,
                                                           int64_t after_version, int limit) {
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q(std::string("SELECT ") + kVersionColumns +
                            " FROM entry_versions v WHERE v.entry_id = $1 AND v.version > $2"
                            " ORDER BY v.version LIMIT $3",
                        {entry_id, P(after_version), P(limit)}));
  std::vector<EntryVersion> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(ReadVersion(r, i, 0));
  return out;
}

Result<std::optional<EntryVersion>> PgTxn::FindEntryVersion(const std::string& version_id) {
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT ") + kVersionColumns +
                                    " FROM entry_versions v WHERE v.entry_version_id = $1",
                                {version_id}));
  if (r.size() == 0) return std::optional<EntryVersion>();
  return std::optional<EntryVersion>(ReadVersion(r, 0, 0));
}

Result<std::optional<std::string>> PgTxn::FindEntryArtifact(const std::string& entry_id) {
  PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT artifact_id FROM entries WHERE entry_id = $1", {entry_id}));
  if (r.size() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.Text(0, 0));
}

Result<std::vector<ReadTxn::ExpiredItem>> PgTxn::ListExpired(int64_t after_ms, int64_t until_ms,
                                                             int limit) {
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q("SELECT m.artifact_id, v.entry_id, v.entry_version_id, v.valid_until"
                        " FROM entry_versions v"
                        " JOIN entries e ON e.entry_id = v.entry_id"
                        " JOIN manifest m ON m.artifact_id = e.artifact_id"
                        " AND m.entry_id = v.entry_id AND m.to_revision IS NULL"
                        " WHERE v.valid_until > $1 AND v.valid_until <= $2"
                        " AND m.entry_version_id = v.entry_version_id AND m.active"
                        " ORDER BY v.valid_until LIMIT $3",
                        {P(after_ms), P(until_ms), P(limit)}));
  std::vector<ExpiredItem> out;
  for (int i = 0; i < r.size(); ++i)
    out.push_back(ExpiredItem{r.Text(i, 0), r.Text(i, 1), r.Text(i, 2), r.Int(i, 3)});
  return out;
}

Result<Scope> PgTxn::CreateScope(const std::string& key) {
  const int64_t now = NowMillis();
  Scope scope{NewId(kScopePrefix), key, now, NewId(kMemoryPrefix), 0, now};
  PC_RETURN_IF_ERROR(Send("INSERT INTO scopes(scope_id, key, created_at) VALUES($1, $2, $3)",
                          {scope.scope_id, key, P(scope.created_at_ms)}));
  PC_RETURN_IF_ERROR(Send(
      "INSERT INTO artifacts(artifact_id, scope_id, family, is_default, head_revision, created_at)"
      " VALUES($1, $2, $3, true, 0, $4)",
      {scope.memory_artifact_id, scope.scope_id, std::string(kMemoryFamily),
       P(scope.created_at_ms)}));
  audit_trail().created_scope = true;
  if (audit_trail().scope_id.empty()) audit_trail().scope_id = scope.scope_id;
  return scope;
}

Status PgTxn::AppendRevision(const std::string& artifact, int64_t r, const std::string& actor,
                             const std::string& reason, const std::vector<std::string>& lineage,
                             int64_t created_at_ms, int64_t vector_missing_delta) {
  // The compare-and-set of the head: the last line of defence, as in SQLite (the service read
  // the head after locking the artifact, so it holds).
  PC_ASSIGN_OR_RETURN(Rows moved, Q("UPDATE artifacts SET head_revision = $2,"
                                    " vector_missing = vector_missing + $4"
                                    " WHERE artifact_id = $1 AND head_revision = $3",
                                    {artifact, P(r), P(r - 1), P(vector_missing_delta)}));
  if (moved.affected() != 1)
    return Conflict("the head of " + artifact + " moved; revision " + std::to_string(r) +
                    " is taken");
  return Send(
      "INSERT INTO revisions(artifact_id, revision, actor, reason, lineage, created_at)"
      " VALUES($1, $2, $3, $4, $5, $6)",
      {artifact, P(r), actor, reason, JoinLines(lineage), P(created_at_ms)});
}

Status PgTxn::CommitRevision(const NewRevision& rev) {
  const std::string& artifact = rev.info.memory.artifact_id;
  const int64_t r = rev.info.memory.revision;
  NewEntries fresh;  // the entries this revision creates: nothing of theirs to close or look up
  for (const EntryVersion& v : rev.new_versions)
    if (v.version == 1) fresh.emplace(v.entry_id, &v.text);
  // What the vector projection will add to the artifact's count of missing vectors, when that is
  // known before any read: the head's compare-and-set carries it, one update of the row, not two.
  const int64_t counted = MissingOfNewEntries(rev, fresh);
  PC_RETURN_IF_ERROR(AppendRevision(artifact, r, rev.info.actor, rev.info.reason, rev.info.lineage,
                                    rev.info.created_at_ms, counted));
  OwnRevision* own = StartOwnRevision(rev, fresh);
  // Whatever fails from here fails the write: its note is never used (left in place, for the
  // answers queued into it).
  struct Unnoted {
    OwnRevision* own;
    bool done = false;
    ~Unnoted() {
      if (own && !done) own->memory.clear();
    }
  } unnoted{own};
  for (const EntryVersion& v : rev.new_versions) {
    if (v.version == 1) {
      // Queued: its document number is looked up by the full-text statements (AddNewEntryText),
      // and answered into the revision's note.
      Rows* doc = own ? own->docs.at(own->at.at(v.entry_id)).get() : nullptr;
      PC_RETURN_IF_ERROR(
          c_.Send("INSERT INTO entries(entry_id, artifact_id, created_revision) VALUES($1, $2, $3)"
                  " RETURNING doc",
                  {v.entry_id, artifact, P(r)}, doc));
    }
    PC_RETURN_IF_ERROR(Send(
        "INSERT INTO entry_versions(entry_version_id, entry_id, version, previous_version_id, kind,"
        " text, content_hash, source_refs, created_by_revision, reason, created_at, valid_until)"
        " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        {v.entry_version_id, v.entry_id, P(v.version), v.previous_version_id, v.kind, v.text,
         v.content_hash, JoinLines(v.source_refs), P(r), v.reason, P(v.created_at_ms),
         v.valid_until_ms ? std::optional<std::string>(P(*v.valid_until_ms)) : std::nullopt}));
  }
  int64_t seq = 0;
  for (const Change& c : rev.info.changes)
    PC_RETURN_IF_ERROR(Send(
        "INSERT INTO revision_changes(artifact_id, revision, seq, op, entry_id, from_version_id,"
        " to_version_id) VALUES($1, $2, $3, $4, $5, $6, $7)",
        {artifact, P(r), P(++seq), std::string(ChangeOpName(c.op)), c.entry_id, c.from_version_id,
         c.to_version_id}));
  for (const ManifestUpdate& u : rev.manifest) {
    auto created = fresh.find(u.entry_id);
    if (created == fresh.end())
      PC_RETURN_IF_ERROR(
          Send("UPDATE manifest SET to_revision = $3"
               " WHERE artifact_id = $1 AND entry_id = $2 AND to_revision IS NULL",
               {artifact, u.entry_id, P(r)}));
    PC_RETURN_IF_ERROR(
        Send("INSERT INTO manifest(artifact_id, entry_id, entry_version_id, active, from_revision,"
             " to_revision) VALUES($1, $2, $3, $4, $5, NULL)",
             {artifact, u.entry_id, u.entry_version_id, P(u.active), P(r)}));
    if (created != fresh.end()) {
      std::vector<std::string>* terms =
          own && u.active ? &own->changes.at(own->at.at(u.entry_id)).terms : nullptr;
      PC_RETURN_IF_ERROR(AddNewEntryText(artifact, u.entry_id, *created->second, !u.active,
                                         u.entry_version_id, terms));
    } else {
      PC_RETURN_IF_ERROR(IndexEntryText(artifact, r, u));
    }
  }
  AuditTrail& trail = audit_trail();
  if (trail.artifact_id.empty()) trail.artifact_id = artifact;
  trail.revision = r;
  for (const Change& c : rev.info.changes) trail.AddEntry(c.entry_id);
  PC_RETURN_IF_ERROR(PutGraphEdges(rev));
  PC_RETURN_IF_ERROR(ProjectVectors(rev, fresh, counted));
  NoteRevision(rev);
  unnoted.done = true;
  return Status::Ok();
}

OwnRevision* PgTxn::StartOwnRevision(const NewRevision& rev, const NewEntries& fresh) {
  // Every new entry a change and a line of its own, and nothing else (checked below).
  if (!own_ || rev.info.changes.empty() || rev.info.changes.size() != rev.manifest.size() ||
      rev.info.changes.size() != fresh.size())
    return nullptr;
  std::unordered_map<std::string, const ManifestUpdate*> lines;
  for (const ManifestUpdate& u : rev.manifest) lines.emplace(u.entry_id, &u);
  std::unordered_map<std::string, const EntryVersion*> made;
  for (const EntryVersion& v : rev.new_versions) made.emplace(v.entry_version_id, &v);
  OwnRevision note;
  note.memory = rev.info.memory.artifact_id;
  note.revision = rev.info.memory.revision;
  for (const Change& c : rev.info.changes) {
    // Each change a new entry's, with its one line (what the catch-up would read as of it).
    auto line = lines.find(c.entry_id);
    if (!fresh.count(c.entry_id) || line == lines.end() ||
        !note.at.emplace(c.entry_id, note.changes.size()).second)
      return nullptr;
    GateLists::Change change;
    change.active = line->second->active;
    if (change.active) {
      auto version = made.find(line->second->entry_version_id);
      if (version == made.end()) return nullptr;
      change.version = *version->second;
      change.version.created_by_revision = note.revision;  // as written
    }
    note.changes.push_back(std::move(change));
    note.docs.push_back(std::make_unique<Rows>());
  }
  own_->push_back(std::move(note));
  return &own_->back();
}

bool OwnRevision::Resolve() {
  if (memory.empty()) return false;
  for (size_t i = 0; i < changes.size(); ++i) {
    if (docs[i]->size() != 1) return false;
    changes[i].doc = docs[i]->Int(0, 0);
  }
  return true;
}

}  // namespace pc::pg
