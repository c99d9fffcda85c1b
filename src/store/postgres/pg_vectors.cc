// The vector projection of PgTxn: each head entry's vector (bytea, float32) in entry_vectors,
// written with each revision and by reindexing, and a missing-vector count per artifact — the
// SQLite store's scheme (sqlite_vectors.cc). Each server searches them in its own in-memory index
// (service/search/vector_cache.h), brought forward from the revision log inside the reader's
// snapshot.
#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "store/postgres/pg_txn.h"

namespace pc::pg {
namespace {

struct ArtifactVectors {
  std::string profile;
  int64_t missing = 0;
};

Result<ArtifactVectors> LoadArtifactVectors(Conn& c, const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(Rows r,
                      c.Query("SELECT coalesce(vector_profile, ''), vector_missing FROM artifacts"
                              " WHERE artifact_id = $1",
                              {artifact_id}));
  if (r.size() == 0) return NotFound("no artifact " + artifact_id);
  return ArtifactVectors{r.Text(0, 0), r.Int(0, 1)};
}

Status AddMissing(Conn& c, const std::string& artifact_id, int64_t delta) {
  if (delta == 0) return Status::Ok();
  return c.Send("UPDATE artifacts SET vector_missing = vector_missing + $2 WHERE artifact_id = $1",
                {artifact_id, P(delta)});
}

int64_t Missing(bool active, bool has_vector, const std::string& profile,
                const std::string& artifact_profile) {
  return active && (!has_vector || profile != artifact_profile) ? 1 : 0;
}

}  // namespace

// Whether an entry's vector is missing is `Missing` of its row; the artifact's profile is read only
// when that depends on it (a row with a vector): a revision without vectors (no embedder) over
// entries without them reads nothing, a round trip of every remember saved.
int64_t PgTxn::MissingOfNewEntries(const NewRevision& rev, const NewEntries& fresh) {
  if (!rev.vectors.empty() || !rev.vector_profile.empty()) return 0;
  int64_t active = 0;
  for (const ManifestUpdate& u : rev.manifest) {
    if (!fresh.count(u.entry_id)) return 0;
    active += Missing(u.active, false, "", "");
  }
  return active;
}

Status PgTxn::ProjectVectors(const NewRevision& rev, const NewEntries& fresh, int64_t counted) {
  const std::string& artifact = rev.info.memory.artifact_id;
  std::optional<ArtifactVectors> state;
  if (!rev.vector_profile.empty()) {
    PC_ASSIGN_OR_RETURN(state, LoadArtifactVectors(c_, artifact));
    if (state->profile.empty() && state->missing == 0) {
      PC_RETURN_IF_ERROR(Q("UPDATE artifacts SET vector_profile = $2 WHERE artifact_id = $1",
                           {artifact, rev.vector_profile})
                             .status());
      state->profile = rev.vector_profile;
    }
  }
  auto missing = [&](bool active, bool has_vector, const std::string& profile) -> Result<int64_t> {
    if (!active || !has_vector) return Missing(active, has_vector, profile, "");
    if (!state) {
      PC_ASSIGN_OR_RETURN(state, LoadArtifactVectors(c_, artifact));
    }
    return Missing(active, has_vector, profile, state->profile);
  };
  int64_t delta = 0;
  for (const ManifestUpdate& u : rev.manifest) {
    Rows old;  // an entry created here has no row yet
    if (!fresh.count(u.entry_id)) {
      PC_ASSIGN_OR_RETURN(
          old, Q("SELECT active, vector IS NOT NULL, coalesce(profile, ''), entry_version_id"
                 " FROM entry_vectors WHERE entry_id = $1",
                 {u.entry_id}));
    }
    if (old.size() == 1) {
      PC_ASSIGN_OR_RETURN(const int64_t was,
                          missing(Bool(old, 0, 0), Bool(old, 0, 1), old.Text(0, 2)));
      if (old.Text(0, 3) == u.entry_version_id) {  // retire: same version, only the flag changes
        PC_RETURN_IF_ERROR(
            Q("UPDATE entry_vectors SET active = $2 WHERE entry_id = $1", {u.entry_id, P(u.active)})
                .status());
        PC_ASSIGN_OR_RETURN(const int64_t is, missing(u.active, Bool(old, 0, 1), old.Text(0, 2)));
        delta += is - was;
        continue;
      }
      delta -= was;
    }
    auto vec = rev.vectors.find(u.entry_version_id);
    const bool has = vec != rev.vectors.end();
    PC_RETURN_IF_ERROR(
        Send("INSERT INTO entry_vectors(entry_id, artifact_id, entry_version_id, active, profile, "
             "vector)"
             " VALUES($1, $2, $3, $4, $5, $6::bytea) ON CONFLICT(entry_id) DO UPDATE SET"
             " artifact_id = excluded.artifact_id, entry_version_id = excluded.entry_version_id,"
             " active = excluded.active, profile = excluded.profile, vector = excluded.vector",
             {u.entry_id, artifact, u.entry_version_id, P(u.active),
              has ? std::optional<std::string>(rev.vector_profile) : std::nullopt,
              has ? std::optional<std::string>(
                        HexBytes(vec->second.data(), vec->second.size() * sizeof(float)))
                  : std::nullopt}));
    PC_ASSIGN_OR_RETURN(const int64_t is,
                        missing(u.active, has, has ? rev.vector_profile : std::string()));
    delta += is;
  }
  return AddMissing(c_, artifact, delta - counted);
}

Result<ReadTxn::VectorState> PgTxn::GetVectorState(const std::string& artifact_id) {
  if (const MemoryRead* m = MemoryReadOf(artifact_id)) return m->vectors;  // read with the scope
  PC_ASSIGN_OR_RETURN(ArtifactVectors a, LoadArtifactVectors(c_, artifact_id));
  return VectorState{a.profile, a.missing};
}

Status PgTxn::ScanVectors(const std::string& artifact_id, const std::string& profile,
                          bool include_inactive, const VectorVisitor& visit) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("SELECT entry_id, entry_version_id, active, vector FROM entry_vectors"
        " WHERE artifact_id = $1 AND profile = $2 AND vector IS NOT NULL AND ($3 OR active)",
        {artifact_id, profile, P(include_inactive)}));
  for (int i = 0; i < r.size(); ++i) {
    const std::vector<float> v = FloatsFromHex(r.Text(i, 3));
    visit(r.Text(i, 0), r.Text(i, 1), Bool(r, i, 2), v.data(), v.size());
  }
  return Status::Ok();
}

Status PgTxn::VisitVectorRows(const std::string& profile, const std::vector<std::string>& entry_ids,
                              const VectorVisitor& visit) {
  if (entry_ids.empty()) return Status::Ok();
  // One statement for them all: a round trip each was most of a remember's waits with an
  // embedder (the gate's candidates, ~5 of them). On its generic plan (an array parameter).
  PC_ASSIGN_OR_RETURN(
      Rows r, QOnce("SELECT entry_id, entry_version_id, active, profile IS NOT DISTINCT FROM $2"
                    " AND vector IS NOT NULL, vector FROM entry_vectors"
                    " WHERE entry_id = ANY($1::text[])",
                    {TextArray(entry_ids), profile}));
  std::unordered_map<std::string, int> row_of;  // entry_id → its row (one at most: the key)
  for (int i = 0; i < r.size(); ++i) row_of.emplace(r.Text(i, 0), i);
  for (const std::string& entry_id : entry_ids) {
    auto found = row_of.find(entry_id);
    const int i = found == row_of.end() ? -1 : found->second;
    if (i < 0 || !Bool(r, i, 3)) {
      visit(entry_id, i >= 0 ? r.Text(i, 1) : std::string(), i >= 0 && Bool(r, i, 2), nullptr, 0);
      continue;
    }
    const std::vector<float> v = FloatsFromHex(r.Text(i, 4));
    visit(entry_id, r.Text(i, 1), Bool(r, i, 2), v.data(), v.size());
  }
  return Status::Ok();
}

// With a limit, the changes are read in the key's order a page at a time until `limit` distinct
// entries are found: PostgreSQL's DISTINCT … LIMIT hashes every change of the range first, so the
// search's neighbour lookup (limit 5) read all 1,000 changes of an import's revision each time
// (auto_explain, scale_bench at 10,000 entries loaded by 1,000). On its generic plan: the row
// comparison made PostgreSQL plan it at every call.
Result<std::vector<std::string>> PgTxn::ChangedEntries(const std::string& artifact_id,
                                                       int64_t after, int64_t upto, int64_t limit) {
  std::vector<std::string> out;
  if (limit < 0) {
    PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT DISTINCT entry_id FROM revision_changes"
                                  " WHERE artifact_id = $1 AND revision > $2 AND revision <= $3",
                                  {artifact_id, P(after), P(upto)}));
    for (int i = 0; i < r.size(); ++i) out.push_back(r.Text(i, 0));
    return out;
  }
  std::unordered_set<std::string> seen;
  int64_t revision = after, seq = std::numeric_limits<int32_t>::max();  // past revision `after`
  // Pages of `limit` changes: a page of the still-missing count only would shrink to one change
  // a round trip when the range repeats entries already found.
  const int64_t page = limit;
  while (static_cast<int64_t>(out.size()) < limit) {
    PC_ASSIGN_OR_RETURN(Rows r, QOnce("SELECT entry_id, revision, seq FROM revision_changes"
                                      " WHERE artifact_id = $1 AND (revision, seq) > ($2, $3)"
                                      " AND revision <= $4 ORDER BY revision, seq LIMIT $5",
                                      {artifact_id, P(revision), P(seq), P(upto), P(page)}));
    for (int i = 0; i < r.size() && static_cast<int64_t>(out.size()) < limit; ++i)
      if (seen.insert(r.Text(i, 0)).second) out.push_back(r.Text(i, 0));
    if (r.size() < page) break;  // the range is read
    revision = r.Int(r.size() - 1, 1);
    seq = r.Int(r.size() - 1, 2);
  }
  return out;
}

// Each changed entry's line at `upto`, one index probe each (LATERAL … LIMIT 1, as
// FindManifestItem), in one round trip; in a group, only the revisions since its last read from
// the same revision (ChangedLinesMemo).
Result<std::vector<ManifestItem>> PgTxn::ChangedItems(const std::string& artifact_id, int64_t after,
                                                      int64_t upto) {
  auto read = [&](int64_t from) -> Result<std::vector<ManifestItem>> {
    PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT m.active, ") + kVersionColumns +
                                      kChangedLinesFrom + " ORDER BY v.entry_id COLLATE \"C\"",
                                  {artifact_id, P(from), P(upto)}));
    std::vector<ManifestItem> out;
    for (int i = 0; i < r.size(); ++i) out.push_back(ReadManifestItem(r, i));
    return out;
  };
  ChangedLinesRead* known = nullptr;
  if (changed_)
    if (auto it = changed_->find({artifact_id, after});
        it != changed_->end() && it->second.upto <= upto)
      known = &it->second;
  if (!known) {
    PC_ASSIGN_OR_RETURN(std::vector<ManifestItem> out, read(after));
    if (changed_) (*changed_)[{artifact_id, after}] = ChangedLinesRead{upto, out};
    return out;
  }
  if (known->upto < upto) {
    PC_ASSIGN_OR_RETURN(std::vector<ManifestItem> since, read(known->upto));
    known->BringTo(upto, std::move(since));
  }
  return known->items;
}

// The lines of entries changed since replace theirs; the others are unchanged at `to`.
void ChangedLinesRead::BringTo(int64_t to, std::vector<ManifestItem> lines) {
  for (ManifestItem& m : lines) {
    auto at = std::lower_bound(
        items.begin(), items.end(), m.version.entry_id,
        [](const ManifestItem& a, const std::string& id) { return a.version.entry_id < id; });
    if (at != items.end() && at->version.entry_id == m.version.entry_id)
      *at = std::move(m);
    else
      items.insert(at, std::move(m));
  }
  upto = to;
}

// From the revision's own lines, where each is known (a version it creates, or one the read
// holds) and they are its changes' entries: then the group's next write reads nothing for it.
// Otherwise the read stays where it was, and the next ChangedItems reads what came since.
void PgTxn::NoteRevision(const NewRevision& rev) {
  if (!changed_) return;
  const int64_t r = rev.info.memory.revision;
  std::set<std::string> changes, lines;
  for (const Change& c : rev.info.changes) changes.insert(c.entry_id);
  for (const ManifestUpdate& u : rev.manifest) lines.insert(u.entry_id);
  if (changes != lines || lines.size() != rev.manifest.size()) return;
  for (auto& [key, read] : *changed_) {
    if (key.first != rev.info.memory.artifact_id || read.upto != r - 1) continue;
    std::vector<ManifestItem> now;
    for (const ManifestUpdate& u : rev.manifest) {
      auto made = std::find_if(
          rev.new_versions.begin(), rev.new_versions.end(),
          [&](const EntryVersion& v) { return v.entry_version_id == u.entry_version_id; });
      if (made != rev.new_versions.end()) {
        now.push_back(ManifestItem{*made, u.active});
        now.back().version.created_by_revision = r;  // as CommitRevision writes it
        continue;
      }
      auto held = std::find_if(read.items.begin(), read.items.end(), [&](const ManifestItem& m) {
        return m.version.entry_version_id == u.entry_version_id;
      });
      if (held == read.items.end()) break;
      now.push_back(ManifestItem{held->version, u.active});
    }
    if (now.size() == rev.manifest.size()) read.BringTo(r, std::move(now));
  }
}

Status PgTxn::SetVectorProfile(const std::string& artifact_id, const std::string& profile) {
  return Q("UPDATE artifacts SET vector_profile = $2, vector_missing ="
           " (SELECT count(*) FROM entry_vectors v WHERE v.artifact_id = $1 AND v.active"
           "  AND (v.vector IS NULL OR v.profile IS DISTINCT FROM $2))"
           " WHERE artifact_id = $1",
           {artifact_id, profile})
      .status();
}

Result<std::vector<EntryVersion>> PgTxn::VectorBacklog(const std::string& artifact_id,
                                                       const std::string& after_entry_id,
                                                       int limit) {
  PC_ASSIGN_OR_RETURN(ArtifactVectors a, LoadArtifactVectors(c_, artifact_id));
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT ") + kVersionColumns +
                                    " FROM entry_vectors ev JOIN entry_versions v ON "
                                    "v.entry_version_id = ev.entry_version_id"
                                    " WHERE ev.artifact_id = $1 AND ev.entry_id COLLATE \"C\" > $2"
                                    " AND (ev.vector IS NULL OR ev.profile IS DISTINCT FROM $3)"
                                    " ORDER BY ev.entry_id COLLATE \"C\" LIMIT $4",
                                {artifact_id, after_entry_id, a.profile, P(limit)}));
  std::vector<EntryVersion> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(ReadVersion(r, i, 0));
  return out;
}

Status PgTxn::PutVectors(const std::string& artifact_id, const std::string& profile,
                         const std::unordered_map<std::string, std::vector<float>>& vectors) {
  PC_ASSIGN_OR_RETURN(ArtifactVectors a, LoadArtifactVectors(c_, artifact_id));
  int64_t delta = 0;
  for (const auto& [version_id, vec] : vectors) {
    // Only the head row of that exact version: a version revised meanwhile is not resurrected.
    PC_ASSIGN_OR_RETURN(
        Rows r,
        Q("UPDATE entry_vectors ev SET profile = $3, vector = $4::bytea"
          " FROM entry_vectors old WHERE old.entry_id = ev.entry_id"
          " AND ev.artifact_id = $1 AND ev.entry_version_id = $2"
          " RETURNING old.active, old.vector IS NOT NULL, coalesce(old.profile, '')",
          {artifact_id, version_id, profile, HexBytes(vec.data(), vec.size() * sizeof(float))}));
    if (r.size() == 0) continue;
    const bool active = Bool(r, 0, 0);
    delta += Missing(active, true, profile, a.profile) -
             Missing(active, Bool(r, 0, 1), r.Text(0, 2), a.profile);
  }
  return AddMissing(c_, artifact_id, delta);
}

}  // namespace pc::pg
