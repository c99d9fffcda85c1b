// The checks of verify.h, one per invariant, over rows read from one snapshot. Internal to
// src/verify/.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "verify/verify.h"

namespace pc::verify {

// What a finding is about, and where findings go.
struct Target {
  std::string scope_id, scope_key, artifact_id;
};

class Sink {
 public:
  explicit Sink(Report& report) : report_(report) {}
  // A violation; Warn for a warning.
  void Add(const Target& t, std::string kind, std::optional<int64_t> revision, std::string entry_id,
           std::string version_id, std::string detail);
  void Warn(const Target& t, std::string kind, std::string entry_id, std::string detail);
  Report& report() { return report_; }

 private:
  Report& report_;
};

struct ArtifactRow {
  std::string artifact_id, family;
  bool is_default = false;
  int64_t head = 0;
  std::string vector_profile;
  int64_t vector_missing = 0;
};

// A revision and when it was committed (milliseconds).
struct RevisionRow {
  int64_t revision = 0, created_at = 0;
};

// Revisions 1..head, no gap, none past the head; each with exactly one change set (a memory's
// revision_changes rows numbered 1..n; a handoff's or an Experience's content row).
Status CheckChain(VerifySource& src, Sink& sink, const Target& t, const ArtifactRow& a,
                  const std::vector<RevisionRow>& revisions);
// A memory's manifest intervals equal what its changes say, at every revision; its entry
// versions exist, are numbered and chained, and hash to their content_hash.
Status CheckMemory(VerifySource& src, Sink& sink, const Target& t, const ArtifactRow& a,
                   bool embedder_configured);
// The audit rows of the scope equal its committed revisions (those after the retention horizon,
// `horizon_ms`); cursors within the source log, and the log contiguous.
Status CheckLogs(VerifySource& src, Sink& sink, const Target& t,
                 const std::vector<ArtifactRow>& artifacts,
                 const std::map<std::string, std::vector<RevisionRow>>& revisions,
                 int64_t horizon_ms);

}  // namespace pc::verify
