// One memory's rows as verify reads them (memory.cc), and the checks of its projections
// (projections.cc). Internal to src/verify/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verify/checks.h"

namespace pc::verify {

struct ChangeRow {
  int64_t revision = 0;
  std::string op, entry_id, from_version, to_version;
};

struct IntervalRow {
  std::string version;
  bool active = true;
  int64_t from = 0;
  std::optional<int64_t> to;
};

struct VersionRow {
  std::string id, entry_id, kind, text, hash, previous;
  int64_t version = 0;
};

// The head as the manifest's open intervals say it: entry → its version and whether active.
struct HeadLine {
  std::string version;
  bool active = true;
};

struct MemoryRows {
  std::map<std::string, std::vector<ChangeRow>> changes;      // by entry, in revision order
  std::map<std::string, std::vector<IntervalRow>> intervals;  // by entry, by from_revision
  std::map<std::string, std::vector<VersionRow>> versions;    // by entry, by version
  std::map<std::string, const VersionRow*> version_by_id;
  std::map<std::string, HeadLine> head;
};

// Full-text documents equal the head's entries: one each, its version, its state, its text.
Status CheckText(VerifySource& src, Sink& sink, const Target& t, const MemoryRows& m);
// A vector row per head entry at its version; the missing count as stored; missing vectors a
// warning where an embedder computes them.
Status CheckVectors(VerifySource& src, Sink& sink, const Target& t, const ArtifactRow& a,
                    const MemoryRows& m, bool embedder_configured);

}  // namespace pc::verify
