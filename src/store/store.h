// Storage interfaces. No backend types appear here: SQLite today, PostgreSQL later.
//
// All access happens inside a transaction handed to a callback:
//   - Read: one consistent snapshot for the whole callback (readers never see half a commit).
//   - Write: one serialized transaction; if the callback returns an error, or anything fails, the
//     whole transaction rolls back and the store is exactly as before (nothing half-written).
// The callbacks must not throw; a throw is caught at the seam and reported as Internal.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "search/text_query.h"

namespace pc {

class ReadTxn {
 public:
  virtual ~ReadTxn() = default;

  virtual Result<std::optional<Scope>> FindScope(const std::string& scope_id) = 0;
  virtual Result<std::optional<Scope>> FindScopeByKey(const std::string& key) = 0;
  // Scopes ordered by scope_id, strictly after `after` (empty = from the start).
  virtual Result<std::vector<Scope>> ListScopes(const std::string& after, int limit) = 0;

  virtual Result<std::optional<Artifact>> FindArtifact(const std::string& artifact_id) = 0;

  // The manifest at `revision`, ordered by entry_id, strictly after `after_entry_id`.
  virtual Result<std::vector<ManifestItem>> ListManifest(const std::string& artifact_id,
                                                         int64_t revision, bool include_inactive,
                                                         const std::string& after_entry_id,
                                                         int limit) = 0;
  // One entry's manifest line at `revision`, if the entry exists there.
  virtual Result<std::optional<ManifestItem>> FindManifestItem(const std::string& artifact_id,
                                                               int64_t revision,
                                                               const std::string& entry_id) = 0;
  // The active head entry whose content_hash is `content_hash`, if any.
  virtual Result<std::optional<ManifestItem>> FindActiveByHash(const std::string& artifact_id,
                                                               const std::string& content_hash) = 0;

  // Revisions newest first, strictly below `before` (0 = from the head). Changes are filled in.
  virtual Result<std::vector<RevisionInfo>> ListRevisions(const std::string& artifact_id,
                                                          int64_t before, int limit) = 0;
  virtual Result<std::optional<RevisionInfo>> FindRevision(const std::string& artifact_id,
                                                           int64_t revision) = 0;

  // An entry's versions in version order, strictly after `after_version`.
  virtual Result<std::vector<EntryVersion>> ListEntryVersions(const std::string& entry_id,
                                                              int64_t after_version, int limit) = 0;
  virtual Result<std::optional<EntryVersion>> FindEntryVersion(const std::string& version_id) = 0;
  // The artifact an entry belongs to, if the entry exists.
  virtual Result<std::optional<std::string>> FindEntryArtifact(const std::string& entry_id) = 0;

  // Full-text search over the head of an artifact: BM25, best first; `score` higher is better.
  // Retired entries only with include_inactive.
  struct TextHit {
    ManifestItem item;
    double score = 0;
  };
  virtual Result<std::vector<TextHit>> SearchText(const std::string& artifact_id,
                                                  const TextQuery& query, bool include_inactive,
                                                  int limit) = 0;
};

// One manifest line that a new revision sets: entry `entry_id` is at `entry_version_id`, active or not.
struct ManifestUpdate {
  std::string entry_id;
  std::string entry_version_id;
  bool active = true;
};

// Everything one revision writes. Cost of committing is O(size of this), never O(entries in memory).
// The store updates its search projections (full text) in the same transaction.
struct NewRevision {
  RevisionInfo info;                       // info.memory.revision must be head + 1
  std::vector<EntryVersion> new_versions;  // versions created by this revision (version 1 = new entry)
  std::vector<ManifestUpdate> manifest;    // lines that change at this revision
};

class WriteTxn : public ReadTxn {
 public:
  // Creates a scope and its default memory artifact (revision 0).
  virtual Result<Scope> CreateScope(const std::string& key) = 0;
  // Appends a revision. Fails with Conflict if the artifact's head moved (info.memory.revision is
  // not head + 1), which the service checks first; the check here is the last line of defence.
  virtual Status CommitRevision(const NewRevision& rev) = 0;
};

class Store {
 public:
  virtual ~Store() = default;
  virtual Status Read(const std::function<Status(ReadTxn&)>& fn) = 0;
  virtual Status Write(const std::function<Status(WriteTxn&)>& fn) = 0;
};

}  // namespace pc
