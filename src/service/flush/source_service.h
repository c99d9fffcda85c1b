// The source log (DESIGN §3, "From sources"): POST /v1/sources appends raw work records to a
// scope's log at the next position; GET /v1/sources lists them. Extraction reads them
// (service/flush/flush_service.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/core/scope_ref.h"
#include "store/store.h"

namespace pc {

inline constexpr size_t kDefaultMaxSourceBytes = 256 * 1024;
inline constexpr size_t kMaxSourceBatch = 100;  // sources in one batch request
inline constexpr size_t kMaxSourceMetadataBytes = 16 * 1024;
// A source's idempotency key (a source id): 256 characters, as the spec counts them, so at most
// 1,024 bytes of UTF-8.
inline constexpr size_t kMaxIdempotencyKeyChars = 256;
inline constexpr size_t kMaxIdempotencyKeyBytes = 4 * kMaxIdempotencyKeyChars;
// The kind of a Handoff Receipt (RFC 1223): only the work service writes it (AddWorkRecord), so
// a Task Outcome that links a receipt links one the server recorded, never one a caller forged.
inline constexpr const char* kReceiptSourceKind = "handoff-receipt";
// The Work record kinds only the work service writes (its checks are what makes them records):
// the receipt, the contract and the boundary. A task-outcome stays open to every caller: RFC
// 0051's Experience incubation reads task-outcome sources captured as content.
bool IsReservedWorkKind(const std::string& kind);

struct SourceInput {
  std::string kind;
  std::string purpose;  // empty: kPurposeMemory
  std::string content;
  std::string metadata_json = "{}";  // a JSON object, already checked by the caller's codec
  std::optional<std::string> idempotency_key;
};

struct SourceOutcome {
  Source source;
  bool created = true;  // false: a retry of the same idempotency key; `source` is the first result
};

struct SourcesPage {
  std::vector<Source> items;
  int64_t high_watermark = 0;
  std::optional<int64_t> next_after;  // pass as `after` for the next page
};

class SourceService {
 public:
  SourceService(Store& store, size_t max_source_bytes = kDefaultMaxSourceBytes)
      : store_(store), max_source_bytes_(max_source_bytes) {}
  size_t max_source_bytes() const { return max_source_bytes_; }

  // Appends the inputs in order, in one transaction: all of them or (on any error) none.
  Result<std::vector<SourceOutcome>> Add(const std::string& scope_id,
                                         const std::vector<SourceInput>& inputs);
  // One Work record (service/work), as Add, and the only way to write kReceiptSourceKind:
  // planned in the write transaction that appends it: `plan` reads what the
  // record depends on (in `memory`'s scope) and answers the record or refuses, so nothing can land
  // between its reads and the append. It may run more than once (store.h's write contract): a
  // pure function of the transaction and its captures, resetting whatever it fills in.
  using WorkRecordPlan = std::function<Result<SourceInput>(WriteTxn& txn, const Artifact& memory)>;
  Result<SourceOutcome> AddWorkRecord(const std::string& scope_id, const WorkRecordPlan& plan);
  // The scope's source the caller knows by `public_id` (nullopt: none, or no such scope).
  Result<std::optional<Source>> Find(const std::string& scope_id, const std::string& public_id);
  // Positions after `after`, in order.
  Result<SourcesPage> List(const std::string& scope_id, int64_t after, int limit);

 private:
  Status Check(const SourceInput& in, size_t index, size_t count) const;
  Result<std::vector<SourceOutcome>> Append(const ScopeRef& scope,
                                            const std::vector<SourceInput>& inputs);
  Store& store_;
  size_t max_source_bytes_;
};

}  // namespace pc
