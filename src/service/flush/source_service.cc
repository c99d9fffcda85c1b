#include "service/flush/source_service.h"

#include "common/clock.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/memory/memory_service.h"

namespace pc {

namespace {

// `in` at the log's end, or (its idempotency key already used with the same kind and content) the
// first capture; another content under the key is source_conflict.
Result<SourceOutcome> AppendOne(WriteTxn& txn, const std::string& id, const SourceInput& in,
                                int64_t now) {
  if (in.idempotency_key) {
    PC_ASSIGN_OR_RETURN(std::optional<Source> first,
                        txn.FindSourceByIdempotencyKey(id, *in.idempotency_key));
    if (first && (first->content != in.content || first->kind != in.kind))
      return Status(Code::kSourceConflict, "source " + *in.idempotency_key +
                                               " was captured already with other "
                                               "content; a source id names one content for good")
          .WithDetail("source_id", *in.idempotency_key)
          .WithDetail("position", first->position);
    if (first) return SourceOutcome{std::move(*first), false};
  }
  Source s;
  s.source_id = NewId(kSourcePrefix);
  s.scope_id = id;
  s.kind = in.kind;
  s.purpose = in.purpose.empty() ? kPurposeMemory : in.purpose;
  s.content = in.content;
  s.metadata_json = in.metadata_json;
  s.idempotency_key = in.idempotency_key;
  s.created_at_ms = now;
  PC_ASSIGN_OR_RETURN(Source added, txn.AppendSource(std::move(s)));
  return SourceOutcome{std::move(added), true};
}

}  // namespace

bool IsReservedWorkKind(const std::string& kind) {
  return kind == kReceiptSourceKind || kind == "work-contract" || kind == "handoff-boundary";
}

Status SourceService::Check(const SourceInput& in, size_t index, size_t count) const {
  // In a batch, errors name the item: sources[3].content.
  const std::string at = count > 1 ? "sources[" + std::to_string(index) + "]." : "";
  auto named = [&](Status s, const char* field) {
    return s.ok() ? s : Status(s.code(), s.message()).WithDetail("field", at + field);
  };
  PC_RETURN_IF_ERROR(named(CheckKind(in.kind), "kind"));
  if (IsReservedWorkKind(in.kind))
    return FieldError(at + "kind",
                      "kind " + in.kind +
                          " is recorded only by its /v1/work operation (docs/work-continuity.md)");
  if (!in.purpose.empty() && in.purpose != kPurposeMemory && in.purpose != kPurposeArchive)
    return FieldError(at + "purpose",
                      "purpose must be memory (the default: extraction reads it) or archive "
                      "(kept, never extracted)");
  PC_RETURN_IF_ERROR(named(CheckText("content", in.content, max_source_bytes_), "content"));
  if (in.metadata_json.size() > kMaxSourceMetadataBytes)
    return TooLarge("metadata is over " + std::to_string(kMaxSourceMetadataBytes) + " bytes")
        .WithDetail("field", at + "metadata");
  if (in.idempotency_key) {
    PC_RETURN_IF_ERROR(
        named(CheckText("idempotency_key", *in.idempotency_key, kMaxIdempotencyKeyBytes),
              "idempotency_key"));
    if (CountCodePoints(*in.idempotency_key).value_or(0) > kMaxIdempotencyKeyChars)
      return TooLarge("idempotency_key is over " + std::to_string(kMaxIdempotencyKeyChars) +
                      " characters")
          .WithDetail("field", at + "idempotency_key");
  }
  return Status::Ok();
}

Result<std::vector<SourceOutcome>> SourceService::Add(const std::string& scope_id,
                                                      const std::vector<SourceInput>& inputs) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Parse(scope_id));
  if (inputs.empty()) return FieldError("sources", "no sources given");
  if (inputs.size() > kMaxSourceBatch)
    return TooLarge("at most " + std::to_string(kMaxSourceBatch) + " sources per request")
        .WithDetail("field", "sources");
  for (size_t i = 0; i < inputs.size(); ++i) PC_RETURN_IF_ERROR(Check(inputs[i], i, inputs.size()));
  return Append(scope, inputs);
}

Result<SourceOutcome> SourceService::AddWorkRecord(const std::string& scope_id,
                                                   const WorkRecordPlan& plan) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Parse(scope_id));
  SourceOutcome out;
  PC_RETURN_IF_ERROR(store_.WriteFor(scope.name(), RequestActor(), [&](WriteTxn& txn) -> Status {
    // The scope's key first: the plan reads under the same lock as the append.
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemoryForWrite(txn, scope));
    PC_ASSIGN_OR_RETURN(SourceInput input, plan(txn, memory));
    SourceInput checked = input;
    checked.kind = "work-record";  // any kind but the reserved ones: the rest of the checks
    PC_RETURN_IF_ERROR(Check(checked, 0, 1));
    PC_ASSIGN_OR_RETURN(out, AppendOne(txn, memory.scope_id, input, NowMillis()));
    return Status::Ok();
  }));
  return out;
}

Result<std::optional<Source>> SourceService::Find(const std::string& scope_id,
                                                  const std::string& public_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  std::optional<Source> found;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();
    PC_ASSIGN_OR_RETURN(found, txn.FindSourceByPublicId(memory->scope_id, public_id));
    return Status::Ok();
  }));
  return found;
}

Result<std::vector<SourceOutcome>> SourceService::Append(const ScopeRef& scope,
                                                         const std::vector<SourceInput>& inputs) {
  std::vector<SourceOutcome> out;
  auto append = [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemoryForWrite(txn, scope));  // a key is created
    const std::string& id = memory.scope_id;
    out.clear();
    const int64_t now = NowMillis();
    for (const SourceInput& in : inputs) {
      PC_ASSIGN_OR_RETURN(SourceOutcome one, AppendOne(txn, id, in, now));
      out.push_back(std::move(one));
    }
    return Status::Ok();
  };
  // A batch runs in a transaction of its own (Write): grouped with others (WriteFor), it would
  // hold up the writes of every scope that shares its group on PostgreSQL for its whole length
  // (store.h).
  PC_RETURN_IF_ERROR(inputs.size() == 1 ? store_.WriteFor(scope.name(), RequestActor(), append)
                                        : store_.Write(RequestActor(), append));
  return out;
}

Result<SourcesPage> SourceService::List(const std::string& scope_id, int64_t after, int limit) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  if (after < 0) return FieldError("after", "after must be 0 or more");
  if (limit < 1 || limit > kMaxPageLimit)
    return FieldError("limit", "limit must be between 1 and " + std::to_string(kMaxPageLimit));
  SourcesPage page;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();  // a scope nobody wrote to: no sources
    PC_ASSIGN_OR_RETURN(page.high_watermark, txn.SourceHighWatermark(memory->scope_id));
    PC_ASSIGN_OR_RETURN(page.items, txn.ListSources(memory->scope_id, after, limit));
    return Status::Ok();
  }));
  if (!page.items.empty() && page.items.back().position < page.high_watermark)
    page.next_after = page.items.back().position;
  return page;
}

}  // namespace pc
