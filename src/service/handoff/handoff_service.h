// The handoff (DESIGN §6, RFC 0048, docs/handoff.md): "who continues, and from where", as the
// spec's cited structure. One `handoff` artifact per scope, versioned like memory.
//   prepare / activate: the extraction model drafts content from exact evidence the caller (or
//     the source log, at a boundary) supplies; its answer is untrusted and checked.
//   finalize: the inspected draft, every citation resolved in the scope: a PreparedHandoff value.
//   commit: compare-and-set against the handoff head; the only write of a handoff revision.
//   continue: a prepared, exact or latest handoff, every claim's evidence re-checked now.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "extract/extractor.h"
#include "model/types.h"
#include "service/core/page.h"
#include "service/handoff/handoff_content.h"
#include "store/store.h"

namespace pc {

// The source log consumer whose cursor marks the last boundary activate consumed.
inline constexpr const char* kHandoffConsumer = "handoff_activation";

struct PrepareHandoffRequest {
  std::string scope_id;
  std::string objective;
  std::vector<HandoffCitation> evidence;
  int64_t max_bytes = kDefaultHandoffBytes;  // bounds HandoffContentText of the draft
};

struct ActivateHandoffRequest {
  std::string scope_id;
  std::string boundary_name;  // SourceReference.name
  std::string boundary_source_id;
  std::string objective;
  std::vector<HandoffCitation> evidence;
  int64_t max_bytes = kDefaultHandoffBytes;
};

struct HandoffActivation {
  bool generated = false;  // false: the boundary was already consumed ("ignored")
  int64_t previous_position = 0, current_position = 0;
  std::optional<HandoffContent> draft;
};

// The temporary, transferable value: content plus the scope and handoff head it was prepared on.
struct PreparedHandoff {
  std::string scope_id;  // as the caller named the scope
  std::optional<MemoryRef> base;
  HandoffContent content;
};

struct CommittedHandoff {
  Handoff handoff;
  std::vector<HandoffCitation> sources;  // the distinct source citations, in order
  std::vector<MemoryRef>
      artifacts;  // the distinct artifact revisions cited (memory citations' too)
};

enum class HandoffSelection { kPrepared, kExact, kLatest };
const char* HandoffSelectionName(HandoffSelection s);  // prepared, exact, latest

struct ContinueHandoffRequest {
  std::string scope_id;
  HandoffSelection selection = HandoffSelection::kLatest;
  std::optional<PreparedHandoff> prepared;  // kPrepared only
  std::optional<MemoryRef> revision;        // kExact only
};

struct HandoffEvidenceCheck {
  std::optional<int64_t> state_index;  // null: the next action
  std::vector<HandoffCitation> unavailable;
};

struct HandoffResolution {
  std::string scope_id;
  std::optional<HandoffContent> content;  // empty: no handoff
  HandoffSelection selection = HandoffSelection::kLatest;
  std::optional<MemoryRef> selected_revision, current_revision;
  std::vector<HandoffEvidenceCheck> checks;
};

// A citation and the request field that holds it (for the error that names it).
struct NamedCitation {
  std::string field;
  HandoffCitation citation;
};

struct HandoffPage {
  std::vector<Handoff> items;  // newest first
  std::optional<std::string> next_cursor;
};

class HandoffService {
 public:
  // `extractor` may be null: prepare and activate are then CapabilityUnavailable.
  HandoffService(Store& store, Extractor* extractor) : store_(store), extractor_(extractor) {}

  Result<HandoffContent> Prepare(const PrepareHandoffRequest& req);
  Result<HandoffActivation> Activate(const ActivateHandoffRequest& req);
  Result<PreparedHandoff> Finalize(const std::string& scope_id, const HandoffContent& draft);
  Result<CommittedHandoff> Commit(const std::string& scope_id, const PreparedHandoff& prepared,
                                  const std::string& actor = "api");
  Result<HandoffResolution> Continue(const ContinueHandoffRequest& req);
  // Every citation resolves in the scope, as finalize resolves a draft's (404 naming the field of
  // the first that does not, also when the scope does not exist). Reads only.
  Status CheckEvidence(const std::string& scope_id, const std::vector<NamedCitation>& evidence);

  // Our read routes: the latest revision, or `revision`; 404 when the scope has none (or not that
  // one).
  Result<Handoff> Get(const std::string& scope_id, std::optional<int64_t> revision);
  Result<HandoffPage> History(const std::string& scope_id, const PageRequest& page);

 private:
  Store& store_;
  Extractor* extractor_;
};

// Continue's checks of the request alone (InvalidArgument naming the field); reads nothing.
Status CheckContinueRequest(const ContinueHandoffRequest& req);
// Continue in the caller's transaction (`req` passed CheckContinueRequest): in a write's, what it
// resolved cannot change before that write commits. A pure function of `txn` and `req`.
Result<HandoffResolution> ResolveHandoff(ReadTxn& txn, const ContinueHandoffRequest& req);

// The scope's latest handoff, if any, read in `txn` (`scope_id`: the internal id).
Result<std::optional<Handoff>> LatestHandoff(ReadTxn& txn, const std::string& scope_id);

}  // namespace pc
