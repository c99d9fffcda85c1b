#include "service/handoff/handoff_service.h"

#include <algorithm>
#include <set>

#include "common/clock.h"
#include "common/utf8.h"
#include "model/citation.h"
#include "service/core/actor.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/handoff/handoff_content.h"
#include "service/handoff/handoff_draft.h"

namespace pc {
namespace {

constexpr size_t kActivationWindowSources = 8;  // the boundary and the sources just before it
constexpr size_t kArtifactPromptEntries = 20;   // a memory revision shown as evidence
constexpr size_t kArtifactPromptEntryBytes = 300;

Status NoExtractor(const char* what) {
  return Status(
      Code::kCapabilityUnavailable,
      std::string(what) +
          " needs an extraction provider and none is configured: set "
          "extract_provider to openai (with extract_base_url and extract_model) or to command "
          "(with extract_command)");
}

// What a scope's evidence is checked against: its memory and its handoff, as they are in `txn`.
struct Heads {
  Artifact memory;
  std::optional<Artifact> handoff;
};

Result<Heads> LoadHeads(ReadTxn& txn, Artifact memory) {
  Heads h{std::move(memory), std::nullopt};
  PC_ASSIGN_OR_RETURN(h.handoff, txn.FindDefaultArtifact(h.memory.scope_id, kHandoffFamily));
  return h;
}

std::optional<MemoryRef> HeadRef(const Heads& h) {
  if (!h.handoff || h.handoff->head_revision == 0) return std::nullopt;
  return MemoryRef{kHandoffFamily, h.handoff->artifact_id, h.handoff->head_revision};
}

// Whether an artifact revision exists in the scope.
bool ArtifactExists(const Heads& h, const MemoryRef& r) {
  const Artifact* a = r.family == kMemoryFamily                 ? &h.memory
                      : r.family == kHandoffFamily && h.handoff ? &*h.handoff
                                                                : nullptr;
  return a && a->artifact_id == r.artifact_id && r.revision >= 1 && r.revision <= a->head_revision;
}

Result<std::optional<Source>> FindCitedSource(ReadTxn& txn, const Heads& h,
                                              const HandoffCitation& c) {
  if (c.source_name != kContentSourceName) return std::optional<Source>();
  return txn.FindSourceByPublicId(h.memory.scope_id, c.source_id);
}

// Whether the citation resolves in the scope: the source exists, the artifact revision exists,
// the entry version is in the cited memory revision; with `now`, a memory citation must also be
// the active version of its entry at the current memory head.
Result<bool> Resolves(ReadTxn& txn, const Heads& h, const HandoffCitation& c, bool now) {
  switch (c.kind) {
    case HandoffCitationKind::kSource: {
      PC_ASSIGN_OR_RETURN(std::optional<Source> s, FindCitedSource(txn, h, c));
      return s.has_value();
    }
    case HandoffCitationKind::kArtifact:
      return ArtifactExists(h, c.artifact);
    case HandoffCitationKind::kMemory: {
      if (c.artifact.family != kMemoryFamily || !ArtifactExists(h, c.artifact)) return false;
      const int64_t at = now ? h.memory.head_revision : c.artifact.revision;
      PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> item,
                          txn.FindManifestItem(h.memory.artifact_id, at, c.entry_id));
      return item && item->version.entry_version_id == c.entry_version_id && (!now || item->active);
    }
  }
  return false;
}

Status MustResolve(ReadTxn& txn, const Heads& h, const HandoffCitation& c,
                   const std::string& field) {
  PC_ASSIGN_OR_RETURN(bool ok, Resolves(txn, h, c, false));
  if (!ok)
    return NotFound(field + " (" + HandoffCitationText(c) + ") does not resolve in this scope")
        .WithDetail("field", field);
  return Status::Ok();
}

Status ResolveContent(ReadTxn& txn, const Heads& h, const HandoffContent& c,
                      const std::string& at) {
  for (size_t i = 0; i < c.state.size(); ++i)
    for (size_t k = 0; k < c.state[i].citations.size(); ++k)
      PC_RETURN_IF_ERROR(MustResolve(
          txn, h, c.state[i].citations[k],
          at + "state[" + std::to_string(i) + "].citations[" + std::to_string(k) + "]"));
  if (c.next_action)
    for (size_t k = 0; k < c.next_action->citations.size(); ++k)
      PC_RETURN_IF_ERROR(MustResolve(txn, h, c.next_action->citations[k],
                                     at + "next_action.citations[" + std::to_string(k) + "]"));
  for (size_t i = 0; i < c.omissions.size(); ++i)
    if (c.omissions[i].citation)
      PC_RETURN_IF_ERROR(MustResolve(txn, h, *c.omissions[i].citation,
                                     at + "omissions[" + std::to_string(i) + "].citation"));
  return Status::Ok();
}

// The evidence as the model is shown it (404 when a citation does not resolve).
Result<ShownEvidence> Show(ReadTxn& txn, const Heads& h, const HandoffCitation& c,
                           const std::string& field) {
  PC_RETURN_IF_ERROR(MustResolve(txn, h, c, field));
  ShownEvidence e{c, "", ""};
  switch (c.kind) {
    case HandoffCitationKind::kSource: {
      PC_ASSIGN_OR_RETURN(std::optional<Source> s, FindCitedSource(txn, h, c));
      e.kind = "source (" + s->kind + ")";
      e.text = CutUtf8(s->content, kEvidencePromptBytes);
      break;
    }
    case HandoffCitationKind::kMemory: {
      PC_ASSIGN_OR_RETURN(std::optional<EntryVersion> v, txn.FindEntryVersion(c.entry_version_id));
      e.kind = "memory entry (" + (v ? v->kind : std::string("?")) + ")";
      e.text = v ? CutUtf8(v->text, kEvidencePromptBytes) : std::string();
      break;
    }
    case HandoffCitationKind::kArtifact:
      if (c.artifact.family == kHandoffFamily) {
        PC_ASSIGN_OR_RETURN(std::optional<Handoff> old,
                            txn.FindHandoff(c.artifact.artifact_id, c.artifact.revision));
        e.kind = "earlier handoff";
        e.text = old ? CutUtf8(HandoffText(*old), kEvidencePromptBytes) : std::string();
      } else {
        PC_ASSIGN_OR_RETURN(auto items,
                            txn.ListManifest(c.artifact.artifact_id, c.artifact.revision, false, "",
                                             static_cast<int>(kArtifactPromptEntries)));
        e.kind = "memory revision " + std::to_string(c.artifact.revision);
        for (const ManifestItem& m : items)
          e.text += "- (" + m.version.kind + ") " +
                    CutUtf8(m.version.text, kArtifactPromptEntryBytes) + "\n";
        e.text = CutUtf8(e.text, kEvidencePromptBytes);
      }
      break;
  }
  return e;
}

// The distinct sources and artifact revisions the content cites: the revision's lineage.
void Lineage(const HandoffContent& c, std::vector<HandoffCitation>& sources,
             std::vector<MemoryRef>& artifacts) {
  auto add = [&](const HandoffCitation& x) {
    if (x.kind == HandoffCitationKind::kSource) {
      if (std::find(sources.begin(), sources.end(), x) == sources.end()) sources.push_back(x);
    } else if (std::find(artifacts.begin(), artifacts.end(), x.artifact) == artifacts.end()) {
      artifacts.push_back(x.artifact);
    }
  };
  for (const HandoffStatement& st : c.state)
    for (const HandoffCitation& x : st.citations) add(x);
  if (c.next_action)
    for (const HandoffCitation& x : c.next_action->citations) add(x);
  for (const HandoffOmission& o : c.omissions)
    if (o.citation) add(*o.citation);
}

// The prepared handoff must come from the scope the request names (RFC 0048: a handoff of
// another scope is not the current scope's).
Status CheckSameScope(ReadTxn& txn, const std::string& named, const Artifact& memory,
                      const std::string& field) {
  if (named == memory.scope_id) return Status::Ok();
  PC_ASSIGN_OR_RETURN(std::optional<Scope> other, FindScopeNamed(txn, named));
  if (other && other->scope_id == memory.scope_id) return Status::Ok();
  return FieldError(field, "the prepared handoff belongs to scope \"" + CutUtf8(named, 80) +
                               "\", not to this one; continue or commit it there");
}

}  // namespace

const char* HandoffSelectionName(HandoffSelection s) {
  return s == HandoffSelection::kPrepared ? "prepared"
         : s == HandoffSelection::kExact  ? "exact"
                                          : "latest";
}

Result<std::optional<Handoff>> LatestHandoff(ReadTxn& txn, const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindDefaultArtifact(scope_id, kHandoffFamily));
  if (!a || a->head_revision == 0) return std::optional<Handoff>();
  return txn.FindHandoff(a->artifact_id, a->head_revision);
}

namespace {

// The model's draft from the evidence shown; ProviderError / ProviderUnavailable as flush reports
// them. What the provider reported is added to `usage` (recorded by the caller once it succeeded).
Result<HandoffContent> Generate(Extractor& extractor, const std::string& objective,
                                const std::vector<ShownEvidence>& shown, int64_t max_bytes,
                                ModelUsage& usage) {
  auto raw = extractor.Extract(BuildHandoffRequest(objective, shown, max_bytes), usage);
  if (!raw.ok())
    return Status(raw.status().code(), "handoff generation failed: " + raw.status().message());
  PC_ASSIGN_OR_RETURN(HandoffContent draft, ParseHandoffAnswer(*raw, objective, shown));
  return FitHandoff(std::move(draft), max_bytes);
}

Status CheckObjectiveFits(const std::string& objective, int64_t max_bytes) {
  HandoffContent minimal;
  minimal.objective = objective;
  if (static_cast<int64_t>(HandoffContentText(minimal).size()) > max_bytes)
    return FieldError("max_bytes", "max_bytes " + std::to_string(max_bytes) +
                                       " leaves no room for a state statement after the objective");
  return Status::Ok();
}

// What an activation shows the model: the window since the last boundary, newest first (the
// boundary and the sources before it), then the request's own evidence, at most
// kMaxHandoffEvidence; what is not shown becomes one omission.
Status ShowWindow(ReadTxn& txn, const Heads& h, const std::vector<HandoffCitation>& evidence,
                  int64_t previous, int64_t boundary, std::vector<ShownEvidence>& shown,
                  std::optional<HandoffOmission>& not_shown) {
  const int64_t from =
      std::max(previous, boundary - static_cast<int64_t>(kActivationWindowSources));
  PC_ASSIGN_OR_RETURN(std::vector<Source> window,
                      txn.ListSources(h.memory.scope_id, from, static_cast<int>(boundary - from)));
  std::vector<HandoffCitation> all;
  for (auto it = window.rbegin(); it != window.rend(); ++it) {
    all.push_back(SourceHandoffCitation(it->idempotency_key.value_or(it->source_id)));
  }
  for (const HandoffCitation& c : evidence)
    if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  for (size_t i = 0; i < all.size(); ++i) {
    if (shown.size() == kMaxHandoffEvidence) {
      not_shown = HandoffOmission{
          std::to_string(all.size() - i) + " more evidence items were not shown to the generator",
          all[i]};
      break;
    }
    PC_ASSIGN_OR_RETURN(ShownEvidence e, Show(txn, h, all[i], "evidence"));
    shown.push_back(std::move(e));
  }
  if (from > previous) {
    HandoffCitation oldest;
    oldest.kind = HandoffCitationKind::kSource;
    oldest.source_name = kContentSourceName;
    PC_ASSIGN_OR_RETURN(std::vector<Source> older, txn.ListSources(h.memory.scope_id, from - 1, 1));
    if (!older.empty()) oldest.source_id = older[0].idempotency_key.value_or(older[0].source_id);
    not_shown = HandoffOmission{
        std::to_string(from - previous) +
            " earlier sources since the last handoff boundary were not shown to the generator",
        older.empty() ? std::nullopt : std::optional<HandoffCitation>(oldest)};
  }
  return Status::Ok();
}

}  // namespace

Result<HandoffContent> HandoffService::Prepare(const PrepareHandoffRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckHandoffText("objective", req.objective));
  PC_RETURN_IF_ERROR(CheckHandoffEvidence(req.evidence, 1));
  PC_RETURN_IF_ERROR(CheckHandoffMaxBytes(req.max_bytes));
  PC_RETURN_IF_ERROR(CheckObjectiveFits(req.objective, req.max_bytes));
  if (!extractor_) return NoExtractor("prepare_handoff");
  std::vector<ShownEvidence> shown;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    shown.clear();
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, req.scope_id));
    PC_ASSIGN_OR_RETURN(Heads h, LoadHeads(txn, std::move(memory)));
    for (size_t i = 0; i < req.evidence.size(); ++i) {
      if (std::find_if(shown.begin(), shown.end(), [&](const ShownEvidence& e) {
            return e.citation == req.evidence[i];
          }) != shown.end())
        continue;
      PC_ASSIGN_OR_RETURN(ShownEvidence e,
                          Show(txn, h, req.evidence[i], "evidence[" + std::to_string(i) + "]"));
      shown.push_back(std::move(e));
    }
    return Status::Ok();
  }));
  ModelUsage usage;
  PC_ASSIGN_OR_RETURN(HandoffContent draft,
                      Generate(*extractor_, req.objective, shown, req.max_bytes, usage));
  RecordUsage(store_, req.scope_id, UsagePurpose::kHandoffGeneration, UsageOperation::kGeneration,
              usage);
  return draft;
}

Result<HandoffActivation> HandoffService::Activate(const ActivateHandoffRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  if (req.boundary_name.empty() || req.boundary_source_id.empty())
    return FieldError("boundary_source", "boundary_source needs a name and a source_id");
  PC_RETURN_IF_ERROR(CheckHandoffText("objective", req.objective));
  PC_RETURN_IF_ERROR(CheckHandoffEvidence(req.evidence, 0));
  PC_RETURN_IF_ERROR(CheckHandoffMaxBytes(req.max_bytes));
  PC_RETURN_IF_ERROR(CheckObjectiveFits(req.objective, req.max_bytes));
  if (!extractor_) return NoExtractor("activate_handoff");
  HandoffActivation out;
  int64_t boundary = 0;
  std::vector<ShownEvidence> shown;
  std::optional<HandoffOmission> not_shown;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    shown.clear();
    not_shown.reset();
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, req.scope_id));
    PC_ASSIGN_OR_RETURN(Heads h, LoadHeads(txn, std::move(memory)));
    HandoffCitation b;
    b.kind = HandoffCitationKind::kSource;
    b.source_name = req.boundary_name;
    b.source_id = req.boundary_source_id;
    PC_ASSIGN_OR_RETURN(std::optional<Source> source, FindCitedSource(txn, h, b));
    if (!source)
      return NotFound("no source \"" + CutUtf8(req.boundary_source_id, 80) + "\" in this scope")
          .WithDetail("field", "boundary_source");
    boundary = source->position;
    PC_ASSIGN_OR_RETURN(out.previous_position,
                        txn.GetCursor(h.memory.scope_id, h.memory.artifact_id, kHandoffConsumer));
    out.current_position = out.previous_position;
    if (boundary <= out.previous_position) return Status::Ok();  // consumed already: ignored
    return ShowWindow(txn, h, req.evidence, out.previous_position, boundary, shown, not_shown);
  }));
  if (boundary <= out.previous_position) return out;
  ModelUsage usage;
  PC_ASSIGN_OR_RETURN(HandoffContent draft,
                      Generate(*extractor_, req.objective, shown, req.max_bytes, usage));
  if (not_shown && draft.omissions.size() < kMaxHandoffOmissions) {
    draft.omissions.push_back(*not_shown);
    PC_ASSIGN_OR_RETURN(draft, FitHandoff(std::move(draft), req.max_bytes));
  }
  // Consume the boundary, unless another activation did meanwhile (then this one is ignored).
  bool consumed = false;
  int64_t cursor_now = 0;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    consumed = false;
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, req.scope_id));
    PC_ASSIGN_OR_RETURN(cursor_now,
                        txn.GetCursor(memory.scope_id, memory.artifact_id, kHandoffConsumer));
    if (cursor_now >= boundary) return Status::Ok();
    consumed = true;
    return txn.SetCursor(memory.scope_id, memory.artifact_id, kHandoffConsumer, boundary);
  }));
  RecordUsage(store_, req.scope_id, UsagePurpose::kHandoffGeneration, UsageOperation::kGeneration,
              usage);
  if (!consumed) {
    out.previous_position = out.current_position = cursor_now;
    return out;
  }
  out.generated = true;
  out.current_position = boundary;
  out.draft = std::move(draft);
  return out;
}

Result<PreparedHandoff> HandoffService::Finalize(const std::string& scope_id,
                                                 const HandoffContent& draft) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckHandoffContent(draft, "draft."));
  PreparedHandoff out{scope_id, std::nullopt, draft};
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(Heads h, LoadHeads(txn, std::move(memory)));
    PC_RETURN_IF_ERROR(ResolveContent(txn, h, draft, "draft."));
    out.base = HeadRef(h);
    return Status::Ok();
  }));
  return out;
}

Result<CommittedHandoff> HandoffService::Commit(const std::string& scope_id,
                                                const PreparedHandoff& prepared,
                                                const std::string& actor) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Parse(scope_id));
  PC_RETURN_IF_ERROR(CheckScopeId(prepared.scope_id, "handoff.scope_id"));
  PC_RETURN_IF_ERROR(CheckHandoffContent(prepared.content, "handoff.content."));
  if (prepared.base) PC_RETURN_IF_ERROR(CheckHandoffRef(*prepared.base, "handoff.base"));
  CommittedHandoff out;
  Lineage(prepared.content, out.sources, out.artifacts);
  std::vector<std::string> lineage;
  for (const HandoffCitation& s : out.sources) lineage.push_back(HandoffCitationText(s));
  for (const MemoryRef& a : out.artifacts) lineage.push_back(FormatMemoryRef(a));
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemoryForWrite(txn, scope));
    PC_RETURN_IF_ERROR(CheckSameScope(txn, prepared.scope_id, memory, "handoff.scope_id"));
    PC_ASSIGN_OR_RETURN(Heads h, LoadHeads(txn, std::move(memory)));
    const std::optional<MemoryRef> head = HeadRef(h);
    if (head) {
      PC_ASSIGN_OR_RETURN(std::optional<Handoff> current,
                          txn.FindHandoff(head->artifact_id, head->revision));
      // Content equal to the head is no new revision: a commit on the head, or the retry of the
      // commit that made it (its base is the revision before).
      const bool retry = prepared.base ? prepared.base->artifact_id == head->artifact_id &&
                                             prepared.base->family == head->family &&
                                             prepared.base->revision + 1 == head->revision
                                       : head->revision == 1;
      if (current && current->content == prepared.content && (retry || prepared.base == head)) {
        out.handoff = *current;
        return Status::Ok();
      }
    }
    if (prepared.base != head)
      return Conflict(
                 "the prepared handoff was based on " +
                 (prepared.base ? FormatMemoryRef(*prepared.base) : std::string("no handoff")) +
                 " but the handoff is at " +
                 (head ? FormatMemoryRef(*head) : std::string("no revision")) +
                 "; continue from the current handoff and prepare a complete replacement")
          .WithDetail("current_revision", head ? head->revision : int64_t{0});
    PC_RETURN_IF_ERROR(ResolveContent(txn, h, prepared.content, "handoff.content."));
    if (!h.handoff) {
      PC_ASSIGN_OR_RETURN(Artifact created, txn.CreateArtifact(h.memory.scope_id, kHandoffFamily));
      h.handoff = created;
    }
    out.handoff =
        Handoff{MemoryRef{kHandoffFamily, h.handoff->artifact_id, h.handoff->head_revision + 1},
                prepared.content, actor, NowMillis()};
    return txn.CommitHandoff(out.handoff, "handoff commit", lineage);
  }));
  return out;
}

Status CheckContinueRequest(const ContinueHandoffRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  const bool is_prepared = req.selection == HandoffSelection::kPrepared;
  const bool is_exact = req.selection == HandoffSelection::kExact;
  if (is_prepared != req.prepared.has_value())
    return FieldError("prepared", is_prepared ? "selection prepared needs prepared"
                                              : "prepared is for selection prepared only");
  if (is_exact != req.revision.has_value())
    return FieldError("revision", is_exact ? "selection exact needs revision"
                                           : "revision is for selection exact only");
  if (req.prepared) {
    PC_RETURN_IF_ERROR(CheckScopeId(req.prepared->scope_id, "prepared.scope_id"));
    PC_RETURN_IF_ERROR(CheckHandoffContent(req.prepared->content, "prepared.content."));
    if (req.prepared->base)
      PC_RETURN_IF_ERROR(CheckHandoffRef(*req.prepared->base, "prepared.base"));
  }
  if (req.revision) PC_RETURN_IF_ERROR(CheckHandoffRef(*req.revision, "revision"));
  return Status::Ok();
}

Result<HandoffResolution> ResolveHandoff(ReadTxn& txn, const ContinueHandoffRequest& req) {
  const bool is_prepared = req.selection == HandoffSelection::kPrepared;
  const bool is_exact = req.selection == HandoffSelection::kExact;
  HandoffResolution out;
  out.scope_id = req.scope_id;
  out.selection = req.selection;
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, req.scope_id));
  if (!memory) {
    if (req.selection == HandoffSelection::kLatest) return out;  // no saved state
    return NotFound("no scope " + CutUtf8(req.scope_id, 80)).WithDetail("field", "scope_id");
  }
  PC_ASSIGN_OR_RETURN(Heads h, LoadHeads(txn, std::move(*memory)));
  out.current_revision = HeadRef(h);
  if (is_prepared) {
    PC_RETURN_IF_ERROR(CheckSameScope(txn, req.prepared->scope_id, h.memory, "prepared.scope_id"));
    out.content = req.prepared->content;
  } else {
    const MemoryRef want = is_exact ? *req.revision : out.current_revision.value_or(MemoryRef{});
    if (!is_exact && !out.current_revision) return out;  // latest, none yet
    if (want.family != kHandoffFamily || !ArtifactExists(h, want))
      return NotFound("no handoff revision " + FormatMemoryRef(want) + " in this scope")
          .WithDetail("field", "revision");
    PC_ASSIGN_OR_RETURN(std::optional<Handoff> found,
                        txn.FindHandoff(want.artifact_id, want.revision));
    if (!found)
      return NotFound("no handoff revision " + FormatMemoryRef(want))
          .WithDetail("field", "revision");
    out.selected_revision = want;
    out.content = found->content;
  }
  auto check = [&](const HandoffStatement& st, std::optional<int64_t> index) -> Status {
    HandoffEvidenceCheck c{index, {}};
    for (const HandoffCitation& x : st.citations) {
      PC_ASSIGN_OR_RETURN(bool ok, Resolves(txn, h, x, true));
      if (!ok) c.unavailable.push_back(x);
    }
    out.checks.push_back(std::move(c));
    return Status::Ok();
  };
  for (size_t i = 0; i < out.content->state.size(); ++i)
    PC_RETURN_IF_ERROR(check(out.content->state[i], static_cast<int64_t>(i)));
  if (out.content->next_action) PC_RETURN_IF_ERROR(check(*out.content->next_action, std::nullopt));
  return out;
}

Result<HandoffResolution> HandoffService::Continue(const ContinueHandoffRequest& req) {
  PC_RETURN_IF_ERROR(CheckContinueRequest(req));
  HandoffResolution out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, ResolveHandoff(txn, req));
    return Status::Ok();
  }));
  return out;
}

Status HandoffService::CheckEvidence(const std::string& scope_id,
                                     const std::vector<NamedCitation>& evidence) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  for (const NamedCitation& n : evidence)
    PC_RETURN_IF_ERROR(CheckHandoffCitation(n.citation, n.field));
  if (evidence.empty()) return Status::Ok();
  return store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory)
      return NotFound(evidence[0].field + " (" + HandoffCitationText(evidence[0].citation) +
                      ") does not resolve: the scope has nothing yet")
          .WithDetail("field", evidence[0].field);
    PC_ASSIGN_OR_RETURN(Heads h, LoadHeads(txn, std::move(*memory)));
    for (const NamedCitation& n : evidence)
      PC_RETURN_IF_ERROR(MustResolve(txn, h, n.citation, n.field));
    return Status::Ok();
  });
}

Result<Handoff> HandoffService::Get(const std::string& scope_id, std::optional<int64_t> revision) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  if (revision && *revision < 1) return FieldError("revision", "revision must be 1 or more");
  std::optional<Handoff> found;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a,
                        txn.FindDefaultArtifact(memory.scope_id, kHandoffFamily));
    if (!a || a->head_revision == 0) return NotFound("this scope has no handoff yet");
    PC_ASSIGN_OR_RETURN(found,
                        txn.FindHandoff(a->artifact_id, revision.value_or(a->head_revision)));
    if (!found)
      return NotFound("no handoff revision " + std::to_string(*revision) + "; the latest is " +
                      std::to_string(a->head_revision))
          .WithDetail("current_revision", a->head_revision);
    return Status::Ok();
  }));
  return *found;
}

Result<HandoffPage> HandoffService::History(const std::string& scope_id, const PageRequest& page) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckPage(page));
  int64_t before = 0;
  if (!page.cursor.empty()) {
    PC_ASSIGN_OR_RETURN(before, ParseIntCursor(page.cursor));
  }
  HandoffPage out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a,
                        txn.FindDefaultArtifact(memory.scope_id, kHandoffFamily));
    if (!a) return Status::Ok();
    PC_ASSIGN_OR_RETURN(out.items, txn.ListHandoffs(a->artifact_id, before, page.limit + 1));
    return Status::Ok();
  }));
  if (static_cast<int>(out.items.size()) > page.limit) {
    out.items.pop_back();
    out.next_cursor = std::to_string(out.items.back().ref.revision);
  }
  return out;
}

}  // namespace pc
