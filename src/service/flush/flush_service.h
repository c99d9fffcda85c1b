// POST /v1/memory/flush (DESIGN §3, invariants 7 and 8): the next window of a scope's source log
// → the model (through an Extractor) → validation → one revision and the cursor advance, in one
// transaction. A provider error, a timeout or an unusable answer commits nothing and leaves the
// cursor where it was.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "extract/extractor.h"
#include "extract/operations.h"
#include "model/types.h"
#include "service/flush/flush_types.h"
#include "service/memory/commit.h"  // OneChange
#include "store/store.h"

namespace pc {

class Embedder;

class FlushService {
 public:
  // `extractor` may be null (flush is then capability_unavailable); `embedder` may be null.
  FlushService(Store& store, Extractor* extractor, Embedder* embedder, FlushOptions options = {})
      : store_(store), extractor_(extractor), embedder_(embedder), options_(options) {}

  // Processes the next window. Flushes of one scope run one at a time (a second waits); across
  // processes, the cursor is compared and set in the commit, so no window is processed twice.
  Result<FlushOutcome> Flush(const std::string& scope_id);
  // The scope's last flush that processed a window (service/flush/flush_record.h), with its
  // changes' versions; nullopt before the first (or for a scope nobody wrote to).
  Result<std::optional<FlushRecord>> Last(const std::string& scope_id);
  // Whether the scope's log is ahead of its extraction cursor (for the scheduler).
  Result<bool> HasPending(const std::string& scope_id);
  bool available() const { return extractor_ != nullptr; }
  // The extraction provider's readiness (Extractor::Probe); "ready" without one.
  std::string ProbeExtractor() { return extractor_ ? extractor_->Probe() : "ready"; }
  // Scopes with a flush running or waiting now (tests: the lock map never outgrows them).
  size_t locked_scopes();

 private:
  struct Window;
  // Serializes flushes of one scope. The map holds a scope only while a flush of it runs or
  // waits, so it is bounded by the flushes in progress, whatever scope ids requests name.
  class ScopeGuard {
   public:
    struct Entry;
    ScopeGuard(FlushService& service, const std::string& scope_id);
    ~ScopeGuard();

   private:
    FlushService& service_;
    std::string scope_id_;
    std::shared_ptr<Entry> entry_;
  };
  struct Prepared;
  // Flush without its outcome metric.
  Result<FlushOutcome> FlushWindow(const std::string& scope_id);
  // The window past the extraction cursor, what the model is shown beside it; under the lock.
  Status ReadWindow(const std::string& scope_id, Window& w);
  // The rest of a flush once its window is read, under the scope's lock.
  Result<FlushOutcome> FlushLocked(const std::string& scope_id, Window& w);
  std::vector<Prepared> Prepare(const Window& w, std::vector<Candidate> valid,
                                std::vector<Rejection>& rejected, std::string& profile,
                                ModelUsage& usage);
  // The prepared operations that still apply at `head` (CheckAgainstHead), each text once.
  Result<std::vector<OneChange>> KeepAtHead(WriteTxn& txn, const Window& w, const Artifact& memory,
                                            const WritePolicy& policy, const MemoryRef& head,
                                            const std::vector<Prepared>& prepared,
                                            const std::string& profile,
                                            std::vector<Rejection>& late);
  Result<std::optional<OneChange>> CheckAgainstHead(WriteTxn& txn, const Window& w,
                                                    const Artifact& memory,
                                                    const WritePolicy& policy,
                                                    const MemoryRef& head, const Prepared& p,
                                                    const std::string& profile,
                                                    std::vector<Rejection>& late);
  // `usage` gains what the embedding model reported for the new versions' vectors.
  Result<FlushOutcome> Commit(const std::string& scope_id, Window& w, ParsedAnswer answer,
                              ModelUsage& usage);

  Store& store_;
  Extractor* extractor_;
  Embedder* embedder_;
  FlushOptions options_;
  std::mutex locks_mu_;
  std::unordered_map<std::string, std::shared_ptr<ScopeGuard::Entry>> locks_;
};

}  // namespace pc
