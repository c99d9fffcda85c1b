#include "service/memory/write_gates.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/utf8.h"
#include "model/citation.h"
#include "search/near_duplicate.h"
#include "search/text_query.h"
#include "service/core/actor.h"
#include "service/core/validation.h"

namespace pc {
namespace {

double Cosine(const std::vector<float>& a, const float* b, size_t n) {
  if (a.size() != n || n == 0) return 0;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < n; ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0;
}

}  // namespace

// Each is exactly one term of the index: a phrase of several terms costs PostgreSQL a statement of
// its own (a paragraph of Chinese or paths made a remember 130 ms slower). The similarity itself
// compares bigrams and identifiers too.
TextQuery ReconcileQuery(const std::string& text) { return ReconcileQuery(SimilarityTerms(text)); }

TextQuery ReconcileQuery(const std::vector<std::string>& similarity_terms) {
  std::vector<std::string> terms;
  std::vector<int32_t> cps;
  for (const std::string& t : similarity_terms) {
    cps.clear();
    if (!DecodeUtf8(t, cps) || cps.empty()) continue;
    const bool cjk = cps[0] >= 0x2E80;
    if (cjk ? cps.size() != 1 : std::any_of(t.begin(), t.end(), [](unsigned char c) {
          return c < 0x80 && !std::isalnum(c);
        }))
      continue;
    terms.push_back(t);
  }
  std::stable_sort(terms.begin(), terms.end(),
                   [](const std::string& x, const std::string& y) { return x.size() > y.size(); });
  if (terms.size() > kReconcilePhrases) terms.resize(kReconcilePhrases);
  return TextQuery{terms};
}

namespace {

// The near-duplicates of `mine` among `items` (head entries of `memory`), unsorted and uncapped.
Status CompareWith(ReadTxn& txn, const MemoryRef& head, const std::vector<ManifestItem>& items,
                   const std::vector<std::string>& mine,
                   const std::optional<std::vector<float>>& vector, const std::string& profile,
                   const std::string& skip_entry, std::vector<NearDuplicate>& out) {
  std::map<std::string, double> cosine;  // entry_id → cosine
  if (vector && !profile.empty() && !items.empty()) {
    std::vector<std::string> ids;
    for (const auto& h : items) ids.push_back(h.version.entry_id);
    PC_RETURN_IF_ERROR(txn.VisitVectorRows(
        profile, ids,
        [&](const std::string& entry_id, const std::string&, bool, const float* v, size_t n) {
          if (v) cosine[entry_id] = Cosine(*vector, v, n);
        }));
  }
  const int64_t now = NowMillis();
  for (const ManifestItem& h : items) {
    const EntryVersion& v = h.version;
    // An expired entry has left the head (docs/expiry.md): no write is told to revise it.
    if (!h.active || v.entry_id == skip_entry || !ValidAt(v, now)) continue;
    NearDuplicate d{Citation{head, v.entry_id, v.entry_version_id}, v.text,
                    TermSimilarity(mine, *VersionSimilarityTerms(v.entry_version_id, v.text)),
                    std::nullopt};
    if (auto it = cosine.find(v.entry_id); it != cosine.end()) d.cosine = it->second;
    if (d.similarity >= kNearDuplicateThreshold || (d.cosine && *d.cosine >= kNearDuplicateCosine))
      out.push_back(d);
  }
  return Status::Ok();
}

// Every near-duplicate among the lookup's candidates at the memory's head, unsorted and uncapped.
Result<std::vector<NearDuplicate>> LookUp(ReadTxn& txn, const Artifact& memory,
                                          const std::vector<std::string>& mine,
                                          const std::optional<std::vector<float>>& vector,
                                          const std::string& profile,
                                          const std::string& skip_entry) {
  std::vector<NearDuplicate> out;
  if (memory.head_revision == 0) return out;
  PC_ASSIGN_OR_RETURN(auto hits, txn.SharedTermCandidates(memory.artifact_id, ReconcileQuery(mine),
                                                          kReconcilePerTerm, kReconcileCandidates,
                                                          kReconcileRecent));
  const MemoryRef head{memory.family, memory.artifact_id, memory.head_revision};
  PC_RETURN_IF_ERROR(CompareWith(txn, head, hits, mine, vector, profile, skip_entry, out));
  return out;
}

// `lookup`'s findings that none of `changed` touched, cited at `head`, and the active ones of
// `changed` that nearly say the write's text.
Status BringToHead(ReadTxn& txn, const MemoryRef& head, const std::vector<ManifestItem>& changed,
                   const ToReconcile& write, ReconcileLookup& lookup) {
  std::vector<NearDuplicate> out;
  for (NearDuplicate& d : lookup.near) {
    const bool stale = std::any_of(changed.begin(), changed.end(), [&](const ManifestItem& c) {
      return c.version.entry_id == d.citation.entry_id;
    });
    if (stale) continue;
    d.citation.memory = head;
    out.push_back(std::move(d));
  }
  PC_RETURN_IF_ERROR(CompareWith(txn, head, changed, SimilarityTerms(write.text), write.vector,
                                 write.profile, write.skip_entry, out));
  lookup.near = std::move(out);
  lookup.revision = head.revision;
  return Status::Ok();
}

// Most similar first (lexical or vector, whichever is higher), at most kMaxNearDuplicates.
std::vector<NearDuplicate> MostSimilar(std::vector<NearDuplicate> found) {
  std::stable_sort(found.begin(), found.end(), [](const NearDuplicate& a, const NearDuplicate& b) {
    return std::max(a.similarity, a.cosine.value_or(0)) >
           std::max(b.similarity, b.cosine.value_or(0));
  });
  if (found.size() > kMaxNearDuplicates) found.resize(kMaxNearDuplicates);
  return found;
}

}  // namespace

Result<std::vector<NearDuplicate>> FindNearDuplicates(
    ReadTxn& txn, const Artifact& memory, const std::string& text,
    const std::optional<std::vector<float>>& vector, const std::string& profile,
    const std::string& skip_entry) {
  PC_ASSIGN_OR_RETURN(auto found,
                      LookUp(txn, memory, SimilarityTerms(text), vector, profile, skip_entry));
  return MostSimilar(std::move(found));
}

std::vector<ReconcileLookup> LookUpBeforeWrite(Store& store, const ScopeRef& scope,
                                               const WritePolicy& defaults,
                                               const std::vector<ToReconcile>& writes) {
  std::vector<ReconcileLookup> out(writes.size());
  if (!store.ReadsBeforeWritesPay()) return out;  // each write looks up inside its transaction
  Status read = store.Read([&](ReadTxn& txn) -> Status {
    out.assign(writes.size(), ReconcileLookup{});
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope));
    if (!memory || memory->head_revision == 0) return Status::Ok();
    PC_ASSIGN_OR_RETURN(WritePolicy policy, ScopePolicy(txn, memory->scope_id, defaults));
    if (policy.reconcile == ReconcilePolicy::kOff) return Status::Ok();
    for (size_t i = 0; i < writes.size(); ++i) {
      const ToReconcile& w = writes[i];
      PC_ASSIGN_OR_RETURN(out[i].near, LookUp(txn, *memory, SimilarityTerms(w.text), w.vector,
                                              w.profile, w.skip_entry));
      out[i].artifact_id = memory->artifact_id;
      out[i].revision = memory->head_revision;
    }
    return Status::Ok();
  });
  if (!read.ok())
    out.assign(writes.size(), ReconcileLookup{});  // each write looks up inside instead
  return out;
}

Status CatchUpLookups(ReadTxn& txn, const Artifact& memory, const std::vector<ToReconcile>& writes,
                      std::vector<ReconcileLookup>& lookups) {
  const MemoryRef head{memory.family, memory.artifact_id, memory.head_revision};
  std::map<int64_t, std::optional<std::vector<ManifestItem>>> changed_since;  // none: too many
  for (size_t i = 0; i < lookups.size() && i < writes.size(); ++i) {
    ReconcileLookup& l = lookups[i];
    if (l.revision <= 0 || l.artifact_id != memory.artifact_id || l.revision > head.revision) {
      l = ReconcileLookup{};
      continue;
    }
    if (l.revision == head.revision) continue;
    auto [it, fresh] = changed_since.emplace(l.revision, std::nullopt);
    if (fresh && head.revision - l.revision <= kReconcileCatchUp) {
      PC_ASSIGN_OR_RETURN(auto changed,
                          txn.ChangedItems(memory.artifact_id, l.revision, head.revision));
      if (changed.size() <= static_cast<size_t>(kReconcileCatchUp)) it->second = std::move(changed);
    }
    if (!it->second) {
      l = ReconcileLookup{};
      continue;
    }
    PC_RETURN_IF_ERROR(BringToHead(txn, head, *it->second, writes[i], l));
  }
  return Status::Ok();
}

Result<std::vector<NearDuplicate>> Reconcile(WriteTxn& txn, ReconcilePolicy policy,
                                             const Artifact& memory, const std::string& text,
                                             const std::optional<std::vector<float>>& vector,
                                             const std::string& profile,
                                             const std::string& skip_entry,
                                             const ReconcileLookup* before) {
  if (policy == ReconcilePolicy::kOff) return std::vector<NearDuplicate>();
  std::vector<ReconcileLookup> lookup;
  if (before) {
    lookup.push_back(*before);
    PC_RETURN_IF_ERROR(CatchUpLookups(txn, memory, {{text, vector, profile, skip_entry}}, lookup));
  }
  std::vector<NearDuplicate> found;
  if (!lookup.empty() && lookup[0].revision == memory.head_revision && memory.head_revision > 0) {
    found = std::move(lookup[0].near);
  } else {
    PC_ASSIGN_OR_RETURN(found,
                        LookUp(txn, memory, SimilarityTerms(text), vector, profile, skip_entry));
  }
  found = MostSimilar(std::move(found));
  if (found.empty()) return found;
  if (policy == ReconcilePolicy::kReject) {
    const NearDuplicate& d = found[0];
    char sim[16];
    std::snprintf(sim, sizeof sim, "%.2f", d.similarity);
    return Status(Code::kNearDuplicate,
                  "an active entry already says nearly the same (similarity " + std::string(sim) +
                      "): revise " + FormatCitation(d.citation) +
                      " instead, or write something it does not say")
        .WithDetail("near_duplicate_of", FormatCitation(d.citation))
        .WithDetail("similarity", std::string(sim));
  }
  for (const NearDuplicate& d : found)
    txn.audit_trail().gates.push_back("reconcile:warn:" + d.citation.entry_id);
  return found;
}

void RecordRefusal(Store& store, const std::string& scope_id, const Status& refusal) {
  const Actor actor = RequestActor();
  nlohmann::json targets{{"code", CodeName(refusal.code())}};
  for (const Detail& d : refusal.details()) {
    if (d.key == "scope_id") continue;
    std::visit([&](const auto& v) { targets[d.key] = v; }, d.value);
  }
  AuditRecord row = AuditRowFor(actor, "refused");
  row.scope_id = scope_id;
  row.targets_json = targets.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Status s = store.Write(actor, [&](WriteTxn& txn) { return txn.AppendAudit(row); });
  if (!s.ok())
    std::cerr << "powercontext: warning: a refused write's audit row was not written: "
              << s.message() << "\n";
}

bool IsGateRefusal(const Status& s) {
  return s.code() == Code::kNearDuplicate || s.code() == Code::kEvidenceRequired;
}

}  // namespace pc

namespace pc {

Status CheckEvidence(const std::vector<std::string>& evidence) {
  if (evidence.size() > kMaxEvidence)
    return FieldError("evidence", "at most " + std::to_string(kMaxEvidence) + " evidence items");
  for (size_t i = 0; i < evidence.size(); ++i) {
    const std::string at = "evidence[" + std::to_string(i) + "]";
    const std::string& e = evidence[i];
    if (e.empty() || e.size() > kMaxEvidenceBytes)
      return FieldError(at, at + " must be 1 to " + std::to_string(kMaxEvidenceBytes) + " bytes");
    for (unsigned char c : e)
      if (c < 0x20 || c == 0x7F || c == ' ')
        return FieldError(at, at + " must not contain spaces or control characters");
    if (!IsValidUtf8(e)) return FieldError(at, at + " is not valid UTF-8");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> ResolveEvidence(ReadTxn& txn, const Artifact& memory,
                                                 const std::vector<std::string>& evidence) {
  std::vector<std::string> out;
  for (size_t i = 0; i < evidence.size(); ++i) {
    const std::string at = "evidence[" + std::to_string(i) + "]";
    const std::string& e = evidence[i];
    std::string stored;
    if (e.rfind("https://", 0) == 0 || e.rfind("http://", 0) == 0) {
      stored = kUrlEvidencePrefix + e;
    } else if (Result<Citation> c = ParseCitation(e); c.ok()) {
      bool found = false;
      if (c->memory.artifact_id == memory.artifact_id &&
          c->memory.revision <= memory.head_revision) {
        PC_ASSIGN_OR_RETURN(
            auto line, txn.FindManifestItem(memory.artifact_id, c->memory.revision, c->entry_id));
        found = line && line->version.entry_version_id == c->entry_version_id;
      }
      if (!found) return FieldError(at, at + ": the scope's memory has no citation " + e);
      stored = FormatCitation(*c);
    } else {
      std::string id = e;
      if (auto parts = ParseSourceRef(e)) id = parts->source_id;
      PC_ASSIGN_OR_RETURN(std::optional<Source> s, txn.FindSourceByPublicId(memory.scope_id, id));
      if (!s)
        return FieldError(
            at, at + " is not an http(s) URL, a source of the scope or a memory citation: " + e);
      stored = SourceRef(*s);
    }
    if (std::find(out.begin(), out.end(), stored) == out.end()) out.push_back(stored);
  }
  return out;
}

}  // namespace pc
