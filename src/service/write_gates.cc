#include "service/write_gates.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "auth/request_context.h"
#include "common/clock.h"
#include "common/utf8.h"
#include "model/citation.h"
#include "search/near_duplicate.h"
#include "search/text_query.h"

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
    if (cjk ? cps.size() != 1
            : std::any_of(t.begin(), t.end(), [](unsigned char c) { return c < 0x80 && !std::isalnum(c); }))
      continue;
    terms.push_back(t);
  }
  std::stable_sort(terms.begin(), terms.end(), [](const std::string& x, const std::string& y) { return x.size() > y.size(); });
  if (terms.size() > kReconcilePhrases) terms.resize(kReconcilePhrases);
  return TextQuery{terms};
}

Result<std::vector<NearDuplicate>> FindNearDuplicates(ReadTxn& txn, const Artifact& memory, const std::string& text,
                                                      const std::optional<std::vector<float>>& vector,
                                                      const std::string& profile, const std::string& skip_entry) {
  std::vector<NearDuplicate> out;
  if (memory.head_revision == 0) return out;
  const std::vector<std::string> mine = SimilarityTerms(text);
  PC_ASSIGN_OR_RETURN(auto hits, txn.SharedTermCandidates(memory.artifact_id, ReconcileQuery(mine), kReconcilePerTerm,
                                                          kReconcileCandidates, kReconcileRecent));
  const MemoryRef head{memory.family, memory.artifact_id, memory.head_revision};
  std::map<std::string, double> cosine;  // entry_id → cosine
  if (vector && !profile.empty()) {
    std::vector<std::string> ids;
    for (const auto& h : hits) ids.push_back(h.version.entry_id);
    PC_RETURN_IF_ERROR(txn.VisitVectorRows(profile, ids,
                                           [&](const std::string& entry_id, const std::string&, bool, const float* v,
                                               size_t n) {
                                             if (v) cosine[entry_id] = Cosine(*vector, v, n);
                                           }));
  }
  for (const ManifestItem& h : hits) {
    const EntryVersion& v = h.version;
    if (!h.active || v.entry_id == skip_entry) continue;
    NearDuplicate d{Citation{head, v.entry_id, v.entry_version_id}, v.text,
                    TermSimilarity(mine, SimilarityTerms(v.text)), std::nullopt};
    if (auto it = cosine.find(v.entry_id); it != cosine.end()) d.cosine = it->second;
    if (d.similarity >= kNearDuplicateThreshold || (d.cosine && *d.cosine >= kNearDuplicateCosine)) out.push_back(d);
  }
  std::stable_sort(out.begin(), out.end(), [](const NearDuplicate& a, const NearDuplicate& b) {
    return std::max(a.similarity, a.cosine.value_or(0)) > std::max(b.similarity, b.cosine.value_or(0));
  });
  if (out.size() > kMaxNearDuplicates) out.resize(kMaxNearDuplicates);
  return out;
}

Result<std::vector<NearDuplicate>> Reconcile(WriteTxn& txn, ReconcilePolicy policy, const Artifact& memory,
                                             const std::string& text, const std::optional<std::vector<float>>& vector,
                                             const std::string& profile, const std::string& skip_entry) {
  if (policy == ReconcilePolicy::kOff) return std::vector<NearDuplicate>();
  PC_ASSIGN_OR_RETURN(auto found, FindNearDuplicates(txn, memory, text, vector, profile, skip_entry));
  if (found.empty()) return found;
  if (policy == ReconcilePolicy::kReject) {
    const NearDuplicate& d = found[0];
    char sim[16];
    std::snprintf(sim, sizeof sim, "%.2f", d.similarity);
    return Status(Code::kNearDuplicate, "an active entry already says nearly the same (similarity " +
                                            std::string(sim) + "): revise " + FormatCitation(d.citation) +
                                            " instead, or write something it does not say")
        .WithDetail("near_duplicate_of", FormatCitation(d.citation))
        .WithDetail("similarity", std::string(sim));
  }
  for (const NearDuplicate& d : found) txn.audit_trail().gates.push_back("reconcile:warn:" + d.citation.entry_id);
  return found;
}

void RecordRefusal(Store& store, const std::string& scope_id, const Status& refusal) {
  const RequestContext& rc = CurrentRequest();
  nlohmann::json targets{{"code", CodeName(refusal.code())}};
  for (const Detail& d : refusal.details()) {
    if (d.key == "scope_id") continue;
    std::visit([&](const auto& v) { targets[d.key] = v; }, d.value);
  }
  AuditRecord row{0, NowMillis(), rc.principal->name, rc.operation.empty() ? "internal" : rc.operation, scope_id,
                  targets.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "refused", rc.request_id};
  Status s = store.Write([&](WriteTxn& txn) { return txn.AppendAudit(row); });
  if (!s.ok()) std::cerr << "powercontext: warning: a refused write's audit row was not written: " << s.message() << "\n";
}

bool IsGateRefusal(const Status& s) { return s.code() == Code::kNearDuplicate || s.code() == Code::kEvidenceRequired; }

}  // namespace pc

namespace pc {

Status CheckEvidence(const std::vector<std::string>& evidence) {
  if (evidence.size() > kMaxEvidence)
    return InvalidArgument("at most " + std::to_string(kMaxEvidence) + " evidence items").WithDetail("field", "evidence");
  for (size_t i = 0; i < evidence.size(); ++i) {
    const std::string at = "evidence[" + std::to_string(i) + "]";
    const std::string& e = evidence[i];
    if (e.empty() || e.size() > kMaxEvidenceBytes)
      return InvalidArgument(at + " must be 1 to " + std::to_string(kMaxEvidenceBytes) + " bytes").WithDetail("field", at);
    for (unsigned char c : e)
      if (c < 0x20 || c == 0x7F || c == ' ')
        return InvalidArgument(at + " must not contain spaces or control characters").WithDetail("field", at);
    if (!IsValidUtf8(e)) return InvalidArgument(at + " is not valid UTF-8").WithDetail("field", at);
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
      if (c->memory.artifact_id == memory.artifact_id && c->memory.revision <= memory.head_revision) {
        PC_ASSIGN_OR_RETURN(auto line, txn.FindManifestItem(memory.artifact_id, c->memory.revision, c->entry_id));
        found = line && line->version.entry_version_id == c->entry_version_id;
      }
      if (!found) return InvalidArgument(at + ": the scope's memory has no citation " + e).WithDetail("field", at);
      stored = FormatCitation(*c);
    } else {
      std::string id = e;
      if (auto parts = ParseSourceRef(e)) id = parts->source_id;
      PC_ASSIGN_OR_RETURN(std::optional<Source> s, txn.FindSourceByPublicId(memory.scope_id, id));
      if (!s)
        return InvalidArgument(at + " is not an http(s) URL, a source of the scope or a memory citation: " + e)
            .WithDetail("field", at);
      stored = SourceRef(*s);
    }
    if (std::find(out.begin(), out.end(), stored) == out.end()) out.push_back(stored);
  }
  return out;
}

}  // namespace pc
