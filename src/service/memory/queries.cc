// The read side: listings at a revision, history, versions, and reading any issued citation.
#include <algorithm>

#include "common/clock.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "model/citation.h"
#include "service/core/validation.h"
#include "service/memory/memory_service.h"

namespace pc {
namespace {

// Checks `revision` against the artifact; 0 / unset means head.
Result<int64_t> PickRevision(const Artifact& memory, std::optional<int64_t> revision) {
  if (!revision) return memory.head_revision;
  if (*revision < 1) return FieldError("revision", "revision must be 1 or more");
  if (*revision > memory.head_revision)
    return NotFound("revision " + std::to_string(*revision) + " does not exist")
        .WithDetail("current_revision", memory.head_revision);
  return *revision;
}

Status CheckEntryCursor(const std::string& cursor) {
  if (!cursor.empty() && !IsWellFormedId(cursor, kEntryPrefix))
    return FieldError("cursor", "cursor is not one this server issued");
  return Status::Ok();
}

// An entry cursor names an entry of this memory: one from another scope's listing is refused
// rather than silently paging this memory from that entry's place in the order.
Status CheckCursorInMemory(ReadTxn& txn, const std::string& cursor, const Artifact& memory) {
  if (cursor.empty()) return Status::Ok();
  PC_ASSIGN_OR_RETURN(std::optional<std::string> owner, txn.FindEntryArtifact(cursor));
  if (!owner || *owner != memory.artifact_id)
    return FieldError("cursor", "cursor is not from this scope's listing");
  return Status::Ok();
}

// Trims a page fetched with limit + 1 rows and returns the cursor of the last kept row.
template <typename T, typename KeyFn>
std::optional<std::string> TrimPage(std::vector<T>& items, int limit, KeyFn key) {
  if (items.size() <= static_cast<size_t>(limit)) return std::nullopt;
  items.resize(static_cast<size_t>(limit));
  return key(items.back());
}

}  // namespace

Result<EntriesPage> MemoryService::ListEntries(const ListEntriesRequest& req) {
  PC_RETURN_IF_ERROR(CheckPage(req.page));
  PC_RETURN_IF_ERROR(CheckEntryCursor(req.page.cursor));
  PC_RETURN_IF_ERROR(CheckMinRevisionValue(req.min_revision));
  if (req.revision && req.min_revision && *req.revision < *req.min_revision)
    return FieldError("min_revision", "revision " + std::to_string(*req.revision) +
                                          " is before min_revision " +
                                          std::to_string(*req.min_revision));
  EntriesPage out;
  std::optional<int64_t> valid_at;  // set: leave out what was not valid then
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    valid_at.reset();
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> found, FindMemory(txn, req.scope_id));
    PC_RETURN_IF_ERROR(CheckMinRevision(req.min_revision, found, req.scope_id));
    // A scope nobody wrote to lists nothing (reads never create scopes); its revisions don't exist.
    if (!found && !req.revision && req.page.cursor.empty()) return Status::Ok();
    if (!found) return NotFound("no scope " + req.scope_id).WithDetail("scope_id", req.scope_id);
    const Artifact& memory = *found;
    PC_RETURN_IF_ERROR(CheckCursorInMemory(txn, req.page.cursor, memory));
    PC_ASSIGN_OR_RETURN(int64_t revision, PickRevision(memory, req.revision));
    out.memory = MemoryRef{memory.family, memory.artifact_id, revision};
    PC_ASSIGN_OR_RETURN(out.items,
                        txn.ListManifest(memory.artifact_id, revision, req.include_inactive,
                                         req.page.cursor, req.page.limit + 1));
    if (req.include_inactive) return Status::Ok();
    // What was valid then (docs/expiry.md): at the head, now; at a past revision, when it was
    // made; or the moment the walk's first page was judged at.
    valid_at = req.valid_at ? *req.valid_at : NowMillis();
    if (req.valid_at) return Status::Ok();
    if (revision != memory.head_revision) {
      PC_ASSIGN_OR_RETURN(std::optional<RevisionInfo> info,
                          txn.FindRevision(memory.artifact_id, revision));
      if (info) valid_at = info->created_at_ms;
    }
    return Status::Ok();
  }));
  out.next_cursor =
      TrimPage(out.items, req.page.limit, [](const ManifestItem& m) { return m.version.entry_id; });
  // After the page is cut, so the cursor walks on: a page may hold fewer than its limit.
  if (valid_at)
    std::erase_if(out.items, [&](const ManifestItem& m) { return !ValidAt(m.version, *valid_at); });
  out.valid_at = valid_at;
  return out;
}

Result<RevisionsPage> MemoryService::ListRevisions(const std::string& scope_id,
                                                   const PageRequest& page) {
  PC_RETURN_IF_ERROR(CheckPage(page));
  int64_t before = 0;
  if (!page.cursor.empty()) {
    PC_ASSIGN_OR_RETURN(before, ParseIntCursor(page.cursor));
  }
  RevisionsPage out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();  // a scope nobody wrote to: no history (head revision 0)
    out.head = MemoryRef{memory->family, memory->artifact_id, memory->head_revision};
    PC_ASSIGN_OR_RETURN(out.items, txn.ListRevisions(memory->artifact_id, before, page.limit + 1));
    return Status::Ok();
  }));
  out.next_cursor = TrimPage(out.items, page.limit, [](const RevisionInfo& r) {
    return std::to_string(r.memory.revision);
  });
  return out;
}

Result<ChangesPage> MemoryService::ListChanges(const std::string& scope_id,
                                               int64_t since_revision) {
  if (since_revision < 0) return FieldError("since_revision", "since_revision must be 0 or more");
  ChangesPage out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    const int64_t head = memory ? memory->head_revision : 0;
    if (since_revision > head)
      return NotFound("revision " + std::to_string(since_revision) + " does not exist")
          .WithDetail("current_revision", head);
    if (!memory || since_revision == head) {
      if (memory) out.head = MemoryRef{memory->family, memory->artifact_id, head};
      return Status::Ok();
    }
    out.head = MemoryRef{memory->family, memory->artifact_id, head};
    // The oldest kMaxChangesRevisions after since_revision; a client whose last revision is below
    // the head asks again from there.
    const int64_t count = std::min<int64_t>(head - since_revision, kMaxChangesRevisions);
    const int64_t before = since_revision + count < head ? since_revision + count + 1 : 0;
    PC_ASSIGN_OR_RETURN(out.revisions,
                        txn.ListRevisions(memory->artifact_id, before, static_cast<int>(count)));
    std::reverse(out.revisions.begin(), out.revisions.end());
    return Status::Ok();
  }));
  return out;
}

Result<RevisionDetail> MemoryService::GetRevision(const std::string& scope_id, int64_t revision,
                                                  const PageRequest& page) {
  PC_RETURN_IF_ERROR(CheckPage(page));
  PC_RETURN_IF_ERROR(CheckEntryCursor(page.cursor));
  RevisionDetail out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_RETURN_IF_ERROR(CheckCursorInMemory(txn, page.cursor, memory));
    PC_ASSIGN_OR_RETURN(int64_t r, PickRevision(memory, revision));
    PC_ASSIGN_OR_RETURN(std::optional<RevisionInfo> info, txn.FindRevision(memory.artifact_id, r));
    if (!info) return Internal("revision " + std::to_string(r) + " is missing from the history");
    out.info = std::move(*info);
    PC_ASSIGN_OR_RETURN(out.manifest,
                        txn.ListManifest(memory.artifact_id, r, true, page.cursor, page.limit + 1));
    return Status::Ok();
  }));
  out.next_cursor =
      TrimPage(out.manifest, page.limit, [](const ManifestItem& m) { return m.version.entry_id; });
  return out;
}

Result<VersionsPage> MemoryService::ListVersions(const std::string& scope_id,
                                                 const std::string& entry_id,
                                                 const PageRequest& page) {
  PC_RETURN_IF_ERROR(CheckPage(page));
  int64_t after = 0;
  if (!page.cursor.empty()) {
    PC_ASSIGN_OR_RETURN(after, ParseIntCursor(page.cursor));
  }
  if (!IsValidUtf8(entry_id)) return FieldError("entry_id", "entry_id is not valid UTF-8");
  VersionsPage out;
  out.entry_id = entry_id;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(std::optional<std::string> owner, txn.FindEntryArtifact(entry_id));
    if (!owner || *owner != memory.artifact_id)
      return NotFound("no entry " + entry_id + " in this scope").WithDetail("entry_id", entry_id);
    PC_ASSIGN_OR_RETURN(out.items, txn.ListEntryVersions(entry_id, after, page.limit + 1));
    return Status::Ok();
  }));
  out.next_cursor = TrimPage(out.items, page.limit,
                             [](const EntryVersion& v) { return std::to_string(v.version); });
  return out;
}

Result<ReadOutcome> MemoryService::Read(const std::string& scope_id, const Citation& citation) {
  PC_RETURN_IF_ERROR(ValidateCitation(citation));
  ReadOutcome out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_RETURN_IF_ERROR(CheckCitationInMemory(citation, memory));
    PC_ASSIGN_OR_RETURN(
        std::optional<ManifestItem> at,
        txn.FindManifestItem(memory.artifact_id, citation.memory.revision, citation.entry_id));
    if (!at || at->version.entry_version_id != citation.entry_version_id)
      return NotFound("citation " + FormatCitation(citation) + " does not exist");
    out.citation = citation;
    out.version = at->version;
    out.active_at_revision = at->active;
    out.head = MemoryRef{memory.family, memory.artifact_id, memory.head_revision};
    PC_ASSIGN_OR_RETURN(
        std::optional<ManifestItem> now,
        txn.FindManifestItem(memory.artifact_id, memory.head_revision, citation.entry_id));
    out.current = now && now->active && now->version.entry_version_id == citation.entry_version_id;
    return Status::Ok();
  }));
  return out;
}

}  // namespace pc
