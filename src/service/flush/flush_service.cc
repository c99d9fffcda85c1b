#include "service/flush/flush_service.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "common/clock.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "extract/prompt.h"
#include "model/canonical.h"
#include "ops/metrics.h"
#include "search/embedder.h"
#include "search/entity_graph.h"
#include "search/text_query.h"
#include "service/core/actor.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/flush/flush_record.h"
#include "service/memory/commit.h"
#include "service/memory/write_gates.h"

namespace pc {

// What one flush read when it started: the window, what the model is shown, where things stood.
struct FlushService::Window {
  Artifact memory;
  int64_t cursor = 0, high_watermark = 0, end = 0;  // the window is (cursor, end]
  std::vector<Source> usable;                       // shown as S1…Sn
  std::vector<ManifestItem> shown;                  // shown as E1…Em
};

namespace {

// The entries the model is shown: all active ones when they fit, else the kMaxPromptEntries most
// relevant to the window (full-text search over the head). The query is bounded: the start of
// each source, at most kRelevanceQueryPhrases phrases (a whole window as one query cost ~16 ms).
constexpr size_t kRelevanceSnippetBytes = 200;
constexpr size_t kRelevanceQueryBytes = 4096;
constexpr size_t kRelevanceQueryPhrases = 64;

Result<std::vector<ManifestItem>> EntriesToShow(ReadTxn& txn, const Artifact& memory,
                                                const std::vector<Source>& usable) {
  if (memory.head_revision == 0) return std::vector<ManifestItem>{};
  PC_ASSIGN_OR_RETURN(auto all, txn.ListManifest(memory.artifact_id, memory.head_revision, false,
                                                 "", static_cast<int>(kMaxPromptEntries) + 1));
  if (all.size() <= kMaxPromptEntries) return all;
  std::string text;
  for (const Source& s : usable) {
    if (text.size() >= kRelevanceQueryBytes) break;
    text +=
        CutUtf8(s.content, std::min(kRelevanceSnippetBytes, kRelevanceQueryBytes - text.size())) +
        "\n";
  }
  TextQuery query = BuildTextQuery(text);
  if (query.phrases.size() > kRelevanceQueryPhrases) query.phrases.resize(kRelevanceQueryPhrases);
  PC_ASSIGN_OR_RETURN(auto hits, txn.SearchText(memory.artifact_id, query, false,
                                                static_cast<int>(kMaxPromptEntries)));
  std::vector<ManifestItem> out;
  for (auto& h : hits) out.push_back(std::move(h.item));
  if (out.empty()) {  // nothing in common with the window: the first entries, for context
    all.resize(kMaxPromptEntries);
    return all;
  }
  return out;
}

// What a flush came to, for powercontext_flush_total. A model that failed, timed out or answered
// nonsense is a Provider* code; the embedder's failures never fail a flush (vectors stay missing).
ops::FlushResult FlushResultOf(const Result<FlushOutcome>& out) {
  if (out.ok()) return out->processed ? ops::FlushResult::kProcessed : ops::FlushResult::kIdle;
  switch (out.status().code()) {
    case Code::kCapabilityUnavailable:
      return ops::FlushResult::kUnavailable;
    case Code::kProviderError:
    case Code::kProviderUnavailable:
      return ops::FlushResult::kModelFailed;
    default:
      return ops::FlushResult::kError;
  }
}

std::string Ids(char prefix, const std::vector<size_t>& indexes) {
  std::string out;
  for (size_t i : indexes)
    out += (out.empty() ? "" : ", ") + std::string(1, prefix) + std::to_string(i + 1);
  return out;
}

// The answer's triples with their evidence as source refs, and each one's JSON (for a rejection).
void WindowTriples(const std::vector<Triple>& answered, const std::vector<Source>& usable,
                   std::vector<GraphTriple>& triples, std::vector<std::string>& json) {
  for (const Triple& t : answered) {
    GraphTriple g{t.subject, t.relation, t.object, {}};
    for (size_t i : t.evidence) g.evidence.push_back(SourceRef(usable[i]));
    triples.push_back(std::move(g));
    json.push_back(t.json);
  }
}

// Each triple goes with the operations kept from its sources (docs/graph.md): `triples_of[i]`
// are change i's, `edges` their graph edges; a triple with none is rejected into `late`.
void AttachTriples(const std::vector<GraphTriple>& triples,
                   const std::vector<std::string>& triple_json,
                   const std::vector<OneChange>& changes,
                   std::vector<std::vector<GraphTriple>>& triples_of, std::vector<GraphEdge>& edges,
                   std::vector<Rejection>& late) {
  for (size_t t = 0; t < triples.size(); ++t) {
    bool attached = false;
    for (size_t i = 0; i < changes.size(); ++i) {
      const std::vector<std::string>& refs = changes[i].version.source_refs;
      if (std::none_of(triples[t].evidence.begin(), triples[t].evidence.end(),
                       [&](const std::string& r) {
                         return std::find(refs.begin(), refs.end(), r) != refs.end();
                       }))
        continue;
      triples_of[i].push_back(triples[t]);
      edges.push_back(MakeGraphEdge(triples[t], changes[i].version));
      attached = true;
    }
    if (!attached)
      late.push_back(
          {triple_json[t], "triple: no operation kept from its sources to attach it to"});
  }
}

// A flush under extraction_review = review proposes each operation (docs/review.md): one pending
// memory candidate, with the window's sources as its evidence and the memory the model was shown
// (`head`, when it has a revision) as its target.
ArtifactCandidate MemoryCandidate(const OneChange& ch, const std::vector<GraphTriple>& triples,
                                  const std::string& scope_id, const MemoryRef& head,
                                  const std::string& actor) {
  ArtifactCandidate c;
  c.scope_id = scope_id;
  c.candidate_id = NewId(kCandidatePrefix);
  c.family = kMemoryCandidateFamily;
  MemoryProposal m{ch.op == ChangeOp::kRevise ? "revise" : "add",
                   ch.version.kind,
                   ch.version.text,
                   ch.op == ChangeOp::kRevise ? ch.version.entry_id : "",
                   ch.from_version_id.value_or(""),
                   ch.version.source_refs,
                   triples};
  for (const std::string& ref : ch.version.source_refs)
    if (auto parts = ParseSourceRef(ref))
      c.current.evidence.sources.push_back({kContentSourceName, parts->source_id});
  c.current.version = 1;
  c.current.memory = m;
  if (head.revision > 0) c.current.target = head;
  c.current.reason = ch.version.reason;
  c.current.actor = actor;
  c.current.created_at_ms = c.created_at_ms = c.updated_at_ms = NowMillis();
  return c;
}

}  // namespace

struct FlushService::ScopeGuard::Entry {
  std::mutex mu;
  int users = 0;  // under the service's locks_mu_
};

FlushService::ScopeGuard::ScopeGuard(FlushService& service, const std::string& scope_id)
    : service_(service), scope_id_(scope_id) {
  {
    std::lock_guard<std::mutex> lock(service_.locks_mu_);
    auto& slot = service_.locks_[scope_id_];
    if (!slot) slot = std::make_shared<Entry>();
    entry_ = slot;
    ++entry_->users;
  }
  entry_->mu.lock();
}

FlushService::ScopeGuard::~ScopeGuard() {
  entry_->mu.unlock();
  std::lock_guard<std::mutex> lock(service_.locks_mu_);
  if (--entry_->users == 0) service_.locks_.erase(scope_id_);
}

size_t FlushService::locked_scopes() {
  std::lock_guard<std::mutex> lock(locks_mu_);
  return locks_.size();
}

Result<bool> FlushService::HasPending(const std::string& scope_id) {
  bool pending = false;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();
    const std::string& id = memory->scope_id;
    PC_ASSIGN_OR_RETURN(int64_t cursor,
                        txn.GetCursor(id, memory->artifact_id, kExtractionConsumer));
    PC_ASSIGN_OR_RETURN(int64_t high, txn.SourceHighWatermark(id));
    pending = high > cursor;
    return Status::Ok();
  }));
  return pending;
}

Result<FlushOutcome> FlushService::Flush(const std::string& scope_id) {
  Result<FlushOutcome> out = FlushWindow(scope_id);
  ops::metrics().CountFlush(FlushResultOf(out));
  return out;
}

Result<FlushOutcome> FlushService::FlushWindow(const std::string& scope_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  // Serialized by the scope's server id, so a flush naming the key and one naming the id take
  // turns instead of asking the model for the same window twice. A scope nobody wrote to has no
  // id (its flush is idle): its name serves until the window's read finds the scope made since,
  // and then the flush takes the id's turn and reads again.
  std::string lock_id = scope_id;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, scope_id));
    if (scope) lock_id = scope->scope_id;
    return Status::Ok();
  }));
  for (;;) {
    ScopeGuard serialized(*this, lock_id);
    Window w;
    PC_RETURN_IF_ERROR(ReadWindow(scope_id, w));
    if (!w.memory.scope_id.empty() && w.memory.scope_id != lock_id) {
      lock_id = w.memory.scope_id;
      continue;
    }
    return FlushLocked(scope_id, w);
  }
}

Status FlushService::ReadWindow(const std::string& scope_id, Window& w) {
  return store_.Read([&](ReadTxn& txn) -> Status {
    if (!extractor_)
      return Status(
          Code::kCapabilityUnavailable,
          "flush needs an extraction provider and none is configured: set extract_provider "
          "to openai (with extract_base_url and extract_model) or to command (with "
          "extract_command); sources are kept meanwhile");
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();  // a scope nobody wrote to: idle at 0
    w.memory = std::move(*memory);
    const std::string& id = w.memory.scope_id;
    PC_ASSIGN_OR_RETURN(w.cursor, txn.GetCursor(id, w.memory.artifact_id, kExtractionConsumer));
    PC_ASSIGN_OR_RETURN(w.high_watermark, txn.SourceHighWatermark(id));
    w.end = std::min(w.cursor + options_.source_window_limit, w.high_watermark);
    if (w.end <= w.cursor) return Status::Ok();
    PC_ASSIGN_OR_RETURN(auto window,
                        txn.ListSources(id, w.cursor, static_cast<int>(w.end - w.cursor)));
    for (Source& s : window)
      if (s.purpose != kPurposeArchive) w.usable.push_back(std::move(s));
    if (w.usable.empty()) return Status::Ok();
    PC_ASSIGN_OR_RETURN(w.shown, EntriesToShow(txn, w.memory, w.usable));
    return Status::Ok();
  });
}

Result<FlushOutcome> FlushService::FlushLocked(const std::string& scope_id, Window& w) {
  if (w.end <= w.cursor) {  // idle: nothing past the cursor
    FlushOutcome idle;
    idle.previous_cursor = idle.current_cursor = w.cursor;
    idle.high_watermark = w.high_watermark;
    if (w.memory.head_revision > 0)
      idle.memory = MemoryRef{w.memory.family, w.memory.artifact_id, w.memory.head_revision};
    return idle;
  }
  ParsedAnswer answer;
  double model_ms = 0;
  ModelUsage extraction_usage, indexing_usage;
  if (!w.usable.empty()) {  // a window of archive sources only just moves the cursor
    auto started = std::chrono::steady_clock::now();
    auto raw = extractor_->Extract(BuildExtractionRequest(w.usable, w.shown), extraction_usage);
    model_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                   .count();
    if (!raw.ok())
      return Status(raw.status().code(),
                    "extraction failed, nothing was committed and the cursor "
                    "stays at " +
                        std::to_string(w.cursor) + ": " + raw.status().message());
    auto parsed = ParseAnswer(*raw, w.usable.size(), w.shown.size(), options_.max_entry_bytes);
    if (!parsed.ok())
      return Status(parsed.status().code(),
                    "extraction failed, nothing was committed and the "
                    "cursor stays at " +
                        std::to_string(w.cursor) + ": " + parsed.status().message());
    answer = std::move(parsed).value();
  }
  PC_ASSIGN_OR_RETURN(FlushOutcome out, Commit(scope_id, w, std::move(answer), indexing_usage));
  out.model_ms = model_ms;
  RecordStatistics(
      store_, scope_id,
      {{UsagePurpose::kMemoryExtraction, UsageOperation::kGeneration, extraction_usage},
       {UsagePurpose::kMemoryIndexing, UsageOperation::kEmbedding, indexing_usage}});
  return out;
}

// A validated operation, ready to commit: its kind, content hash and vector, computed before the
// transaction (a slow embedder never holds it).
struct FlushService::Prepared {
  Candidate candidate;
  std::string kind, hash;
  std::optional<std::vector<float>> vector;
};

std::vector<FlushService::Prepared> FlushService::Prepare(const Window& w,
                                                          std::vector<Candidate> valid,
                                                          std::vector<Rejection>& rejected,
                                                          std::string& profile, ModelUsage& usage) {
  std::vector<Prepared> prepared;
  for (Candidate& c : valid) {
    std::string kind = !c.kind.empty() ? c.kind : w.shown[c.target].version.kind;
    auto hash = ContentHash(kind, c.text);
    if (!hash.ok()) {
      rejected.push_back({c.json, hash.status().message()});
      continue;
    }
    prepared.push_back({std::move(c), std::move(kind), std::move(*hash), std::nullopt});
  }
  if (embedder_ && !prepared.empty()) {
    std::vector<std::string> texts;
    for (const Prepared& p : prepared) texts.push_back(p.candidate.text);
    auto vectors =
        embedder_->Embed(texts, usage);  // on failure the vectors are recorded as missing
    if (vectors.ok() && vectors->size() == prepared.size())
      for (size_t i = 0; i < prepared.size(); ++i) prepared[i].vector = std::move((*vectors)[i]);
    if (embedder_->profile().dimension > 0) profile = embedder_->profile().Key();
  }
  return prepared;
}

// One operation against the memory as it is now (inside the commit's transaction): the change to
// make, or nothing (with its reason in `late`) when it would change nothing or its entry moved.
Result<std::optional<OneChange>> FlushService::CheckAgainstHead(
    WriteTxn& txn, const Window& w, const Artifact& memory, const WritePolicy& policy,
    const MemoryRef& head, const Prepared& p, const std::string& profile,
    std::vector<Rejection>& late) {
  const Candidate& c = p.candidate;
  auto reject = [&](std::string reason) -> std::optional<OneChange> {
    late.push_back({c.json, std::move(reason)});
    return std::nullopt;
  };
  PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> dup,
                      txn.FindActiveByHash(head.artifact_id, p.hash));
  OneChange change{c.op, {}, std::nullopt, profile, p.vector};
  EntryVersion& v = change.version;
  if (c.op == ChangeOp::kRevise) {
    const EntryVersion& shown = w.shown[c.target].version;
    PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> now,
                        txn.FindManifestItem(head.artifact_id, head.revision, shown.entry_id));
    if (!now || !now->active || now->version.entry_version_id != shown.entry_version_id)
      return reject("E" + std::to_string(c.target + 1) + " changed since it was shown");
    if (dup)
      return reject(dup->version.entry_id == shown.entry_id
                        ? "no change: same text as E" + std::to_string(c.target + 1)
                        : "no change: same text as active entry " + dup->version.entry_id);
    v.entry_id = shown.entry_id;
    v.version = shown.version + 1;
    v.previous_version_id = shown.entry_version_id;
    change.from_version_id = shown.entry_version_id;
  } else {
    if (dup) return reject("no change: same text as active entry " + dup->version.entry_id);
    // The reconcile gate (write_gates.h): reject refuses this operation, warn notes it.
    Result<std::vector<NearDuplicate>> near =
        Reconcile(txn, policy.reconcile, memory, c.text, p.vector, profile, "");
    if (!near.ok() && near.status().code() == Code::kNearDuplicate) {
      std::string of;
      for (const Detail& d : near.status().details())
        if (d.key == "near_duplicate_of") of = std::get<std::string>(d.value);
      return reject("near-duplicate of active entry " + of + ": revise it instead");
    }
    PC_RETURN_IF_ERROR(near.status().ok() ? Status::Ok() : near.status());
    v.entry_id = NewId(kEntryPrefix);
    v.version = 1;
  }
  v.entry_version_id = NewId(kEntryVersionPrefix);
  v.kind = p.kind;
  v.text = c.text;
  v.content_hash = p.hash;
  for (size_t s : c.evidence) v.source_refs.push_back(SourceRef(w.usable[s]));
  v.reason = "extracted from " + Ids('S', c.evidence);
  v.valid_until_ms = DefaultValidUntil(
      policy, v.kind, c.op == ChangeOp::kRevise ? &w.shown[c.target].version : nullptr,
      NowMillis());
  return std::optional<OneChange>(std::move(change));
}

Result<std::vector<OneChange>> FlushService::KeepAtHead(
    WriteTxn& txn, const Window& w, const Artifact& memory, const WritePolicy& policy,
    const MemoryRef& head, const std::vector<Prepared>& prepared, const std::string& profile,
    std::vector<Rejection>& late) {
  std::vector<OneChange> changes;
  std::set<std::string> batch_hashes;
  for (const Prepared& p : prepared) {
    if (batch_hashes.count(p.hash)) {
      late.push_back(
          {p.candidate.json, "no change: same text as an earlier operation of this answer"});
      continue;
    }
    PC_ASSIGN_OR_RETURN(std::optional<OneChange> change,
                        CheckAgainstHead(txn, w, memory, policy, head, p, profile, late));
    if (!change) continue;
    batch_hashes.insert(p.hash);
    changes.push_back(std::move(*change));
  }
  return changes;
}

// The window's changes and the cursor's move, in one transaction (DESIGN invariant 8). The
// callback may run more than once (store.h): it builds everything from `prepared`, consumes
// nothing, and resets what it fills in.
Result<FlushOutcome> FlushService::Commit(const std::string& scope_id, Window& w,
                                          ParsedAnswer answer, ModelUsage& usage) {
  FlushOutcome out;
  out.previous_cursor = w.cursor;
  out.high_watermark = w.high_watermark;
  out.rejected = std::move(answer.rejected);
  std::string profile;
  const std::vector<Prepared> prepared =
      Prepare(w, std::move(answer.valid), out.rejected, profile, usage);
  std::vector<std::string> lineage;
  for (const Source& s : w.usable) lineage.push_back(SourceRef(s));
  std::vector<GraphTriple> triples;
  std::vector<std::string> triple_json;
  WindowTriples(answer.triples, w.usable, triples, triple_json);

  std::vector<Rejection>
      late;  // rejections found against the store, reset on a retried transaction
  const Actor actor = RequestActor();  // a group commit may run the write elsewhere
  PC_RETURN_IF_ERROR(store_.Write(actor, [&](WriteTxn& txn) -> Status {
    late.clear();
    out.changes.clear();
    out.candidates.clear();  // every result this callback fills in, reset (store.h)
    out.memory.reset();
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(int64_t cursor,
                        txn.GetCursor(memory.scope_id, memory.artifact_id, kExtractionConsumer));
    if (cursor != w.cursor) {  // another process flushed this window meanwhile: nothing to do here
      out.previous_cursor = out.current_cursor = cursor;
      out.processed = false;
      return Status::Ok();
    }
    const MemoryRef head{memory.family, memory.artifact_id, memory.head_revision};
    PC_ASSIGN_OR_RETURN(WritePolicy policy, ScopePolicy(txn, memory.scope_id, options_.policy));
    PC_ASSIGN_OR_RETURN(std::vector<OneChange> changes,
                        KeepAtHead(txn, w, memory, policy, head, prepared, profile, late));
    out.memory.reset();
    if (head.revision > 0) out.memory = head;
    out.candidates.clear();
    std::vector<std::vector<GraphTriple>> triples_of(changes.size());
    std::vector<GraphEdge> edges;
    AttachTriples(triples, triple_json, changes, triples_of, edges, late);
    if (policy.extraction_review == ExtractionReview::kReview) {
      // Proposed, not committed (docs/review.md): one pending memory candidate per operation, with
      // the window's sources as its evidence; the cursor moves with them below.
      for (size_t i = 0; i < changes.size(); ++i) {
        const ArtifactCandidate c = MemoryCandidate(changes[i], triples_of[i], memory.scope_id,
                                                    head, "extraction:" + extractor_->name());
        PC_RETURN_IF_ERROR(txn.SaveCandidate(c, true));
        out.candidates.push_back(c.candidate_id);
      }
      changes.clear();
    }
    if (!changes.empty()) {
      const std::string reason =
          "flush of sources " + std::to_string(w.cursor + 1) + ".." + std::to_string(w.end);
      PC_ASSIGN_OR_RETURN(MemoryRef ref,
                          CommitChanges(txn, memory, "extraction:" + extractor_->name(), reason,
                                        lineage, changes, edges));
      out.memory = ref;
      for (OneChange& ch : changes)
        out.changes.push_back(
            {Change{ch.op, ch.version.entry_id, ch.from_version_id, ch.version.entry_version_id},
             Citation{ref, ch.version.entry_id, ch.version.entry_version_id},
             std::move(ch.version)});
    }
    PC_RETURN_IF_ERROR(
        txn.SetCursor(memory.scope_id, memory.artifact_id, kExtractionConsumer, w.end));
    out.processed = true;
    out.current_cursor = w.end;
    out.processed_source_count = static_cast<int64_t>(w.usable.size());
    // The record of this flush, in its own transaction (service/flush/flush_record.h).
    FlushRecord record{NowMillis(), actor.name, out, 0};
    for (const Rejection& r : late) record.outcome.rejected.push_back(r);
    return txn.PutLastFlush(memory.scope_id, record.at_ms, EncodeFlushRecord(record));
  }));
  for (Rejection& r : late) out.rejected.push_back(std::move(r));
  return out;
}

Result<std::optional<FlushRecord>> FlushService::Last(const std::string& scope_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  std::optional<FlushRecord> last;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    last.reset();
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();
    PC_ASSIGN_OR_RETURN(std::optional<std::string> text, txn.FindLastFlush(memory->scope_id));
    if (!text) return Status::Ok();
    PC_ASSIGN_OR_RETURN(FlushRecord record, DecodeFlushRecord(*text));
    for (FlushChange& c : record.outcome.changes) {  // versions are immutable: read them back
      PC_ASSIGN_OR_RETURN(std::optional<EntryVersion> v,
                          txn.FindEntryVersion(c.change.to_version_id));
      if (!v)
        return Internal("the last flush names a version the store does not have: " +
                        c.change.to_version_id);
      c.version = std::move(*v);
    }
    last = std::move(record);
    return Status::Ok();
  }));
  return last;
}

}  // namespace pc
