// A memory: its manifest intervals against its changes, its entry versions and their hashes.
#include <functional>

#include "model/canonical.h"
#include "verify/memory_rows.h"

namespace pc::verify {
namespace {

// Runs `sql` on the memory `artifact_id` and hands each row to `row`.
Status EachRow(VerifySource& src, const char* sql, const std::string& artifact_id,
               const std::function<void(const VerifyRows&, size_t)>& row) {
  PC_ASSIGN_OR_RETURN(VerifyRows rows, src.Query(sql, {artifact_id}));
  for (size_t i = 0; i < rows.size(); ++i) row(rows, i);
  return Status::Ok();
}

Status LoadChanges(VerifySource& src, const std::string& artifact_id, MemoryRows& m) {
  return EachRow(src,
                 "SELECT revision, op, entry_id, coalesce(from_version_id, ''), to_version_id"
                 " FROM revision_changes WHERE artifact_id = $1 ORDER BY revision, seq",
                 artifact_id, [&](const VerifyRows& r, size_t i) {
                   m.changes[r.Text(i, 2)].push_back(
                       {r.Int(i, 0), r.Text(i, 1), r.Text(i, 2), r.Text(i, 3), r.Text(i, 4)});
                 });
}

Status LoadIntervals(VerifySource& src, const std::string& artifact_id, MemoryRows& m) {
  return EachRow(src,
                 "SELECT entry_id, entry_version_id, CASE WHEN active THEN 1 ELSE 0 END,"
                 " from_revision, to_revision FROM manifest WHERE artifact_id = $1"
                 " ORDER BY entry_id, from_revision",
                 artifact_id, [&](const VerifyRows& r, size_t i) {
                   IntervalRow line{r.Text(i, 1), r.Int(i, 2) != 0, r.Int(i, 3), std::nullopt};
                   if (!r.IsNull(i, 4)) line.to = r.Int(i, 4);
                   if (!line.to) m.head[r.Text(i, 0)] = HeadLine{line.version, line.active};
                   m.intervals[r.Text(i, 0)].push_back(std::move(line));
                 });
}

Status LoadVersions(VerifySource& src, const std::string& artifact_id, MemoryRows& m) {
  PC_RETURN_IF_ERROR(EachRow(
      src,
      "SELECT v.entry_version_id, v.entry_id, v.kind, v.text, v.content_hash,"
      " coalesce(v.previous_version_id, ''), v.version FROM entry_versions v"
      " JOIN entries e ON e.entry_id = v.entry_id WHERE e.artifact_id = $1"
      " ORDER BY v.entry_id, v.version",
      artifact_id, [&](const VerifyRows& r, size_t i) {
        m.versions[r.Text(i, 1)].push_back({r.Text(i, 0), r.Text(i, 1), r.Text(i, 2), r.Text(i, 3),
                                            r.Text(i, 4), r.Text(i, 5), r.Int(i, 6)});
      }));
  for (const auto& [entry, versions] : m.versions)
    for (const VersionRow& v : versions) m.version_by_id[v.id] = &v;
  return Status::Ok();
}

// The intervals an entry's changes say it has: one from each change's revision, at its version.
void CheckEntryIntervals(Sink& sink, const Target& t, const std::string& entry,
                         const std::vector<ChangeRow>& changes,
                         const std::vector<IntervalRow>& intervals) {
  for (size_t i = 0; i < std::max(changes.size(), intervals.size()); ++i) {
    if (i >= intervals.size()) {
      const ChangeRow& c = changes[i];
      sink.Add(t, "manifest_interval_missing", c.revision, entry, c.to_version,
               "revision " + std::to_string(c.revision) +
                   " changed the entry but no manifest interval starts "
                   "there");
      continue;
    }
    const IntervalRow& r = intervals[i];
    if (i >= changes.size()) {
      sink.Add(t, "manifest_interval_unexplained", r.from, entry, r.version,
               "a manifest interval starts at revision " + std::to_string(r.from) +
                   ", where no change touched the entry");
      continue;
    }
    const ChangeRow& c = changes[i];
    if (c.revision != r.from || c.to_version != r.version || (c.op != "retire") != r.active)
      sink.Add(t, "manifest_mismatch", r.from, entry, r.version,
               "the manifest interval from revision " + std::to_string(r.from) + " says " +
                   r.version + (r.active ? " active" : " retired") + "; the change at revision " +
                   std::to_string(c.revision) + " says " + c.op + " to " + c.to_version);
    if (i > 0 && c.op != "add" && c.from_version != changes[i - 1].to_version)
      sink.Add(
          t, "change_invalid", c.revision, entry, c.to_version,
          c.op + " from " + c.from_version + ", but the entry was at " + changes[i - 1].to_version);
  }
}

// Intervals of one entry follow each other: each ends where the next starts, the last is open.
void CheckContiguous(Sink& sink, const Target& t, const std::string& entry,
                     const std::vector<IntervalRow>& intervals) {
  for (size_t i = 0; i < intervals.size(); ++i) {
    const IntervalRow& r = intervals[i];
    const bool last = i + 1 == intervals.size();
    const std::optional<int64_t> want =
        last ? std::nullopt : std::optional<int64_t>(intervals[i + 1].from);
    if (r.to != want || (r.to && *r.to <= r.from))
      sink.Add(t, "manifest_interval_broken", r.from, entry, r.version,
               "the interval from revision " + std::to_string(r.from) + " ends at " +
                   (r.to ? std::to_string(*r.to) : std::string("the head")) + ", expected " +
                   (want ? std::to_string(*want) : std::string("the head")));
  }
}

void CheckManifest(Sink& sink, const Target& t, const MemoryRows& m) {
  static const std::vector<ChangeRow> kNone;
  static const std::vector<IntervalRow> kNoIntervals;
  std::map<std::string, bool> entries;
  for (const auto& [entry, rows] : m.changes) entries[entry] = true;
  for (const auto& [entry, rows] : m.intervals) entries[entry] = true;
  for (const auto& [entry, unused] : entries) {
    auto c = m.changes.find(entry);
    auto r = m.intervals.find(entry);
    const auto& changes = c == m.changes.end() ? kNone : c->second;
    const auto& intervals = r == m.intervals.end() ? kNoIntervals : r->second;
    CheckEntryIntervals(sink, t, entry, changes, intervals);
    CheckContiguous(sink, t, entry, intervals);
  }
}

void CheckVersionChain(Sink& sink, const Target& t, const std::vector<VersionRow>& versions) {
  for (size_t i = 0; i < versions.size(); ++i) {
    const VersionRow& v = versions[i];
    const std::string want_previous = i == 0 ? "" : versions[i - 1].id;
    if (v.version != static_cast<int64_t>(i + 1) || v.previous != want_previous)
      sink.Add(t, "version_chain_broken", std::nullopt, v.entry_id, v.id,
               "version " + std::to_string(v.version) + " (previous '" + v.previous +
                   "') where version " + std::to_string(static_cast<int64_t>(i + 1)) +
                   " (previous '" + want_previous + "') was expected");
  }
}

void CheckVersions(Sink& sink, const Target& t, const MemoryRows& m) {
  for (const auto& [entry, versions] : m.versions) {
    CheckVersionChain(sink, t, versions);
    for (const VersionRow& v : versions) {
      ++sink.report().entry_versions;
      Result<std::string> hash = ContentHash(v.kind, v.text);
      if (!hash.ok() || *hash != v.hash)
        sink.Add(t, "content_hash_mismatch", std::nullopt, entry, v.id,
                 "content_hash " + v.hash + " is not the hash of the version's kind and text" +
                     (hash.ok() ? " (" + *hash + ")" : ": " + hash.status().message()));
    }
  }
  for (const auto& [entry, changes] : m.changes)
    for (const ChangeRow& c : changes)
      if (!m.version_by_id.count(c.to_version))
        sink.Add(
            t, "version_missing", c.revision, entry, c.to_version,
            "revision " + std::to_string(c.revision) + " names a version the memory does not hold");
}

}  // namespace

Status CheckMemory(VerifySource& src, Sink& sink, const Target& t, const ArtifactRow& a,
                   bool embedder_configured) {
  MemoryRows m;
  PC_RETURN_IF_ERROR(LoadChanges(src, a.artifact_id, m));
  PC_RETURN_IF_ERROR(LoadIntervals(src, a.artifact_id, m));
  PC_RETURN_IF_ERROR(LoadVersions(src, a.artifact_id, m));
  CheckManifest(sink, t, m);
  CheckVersions(sink, t, m);
  PC_RETURN_IF_ERROR(CheckText(src, sink, t, m));
  return CheckVectors(src, sink, t, a, m, embedder_configured);
}

}  // namespace pc::verify
