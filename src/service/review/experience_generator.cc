#include "service/review/experience_generator.h"

#include <algorithm>

#include "extract/experience_prompt.h"
#include "extract/prompt.h"
#include "model/citation.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/review/review_service.h"

namespace pc {
namespace {

// A handoff revision as the model reads it: the objective, then each statement on its own line.
std::string HandoffText(const HandoffContent& h) {
  std::string out = "Objective: " + h.objective + "\n";
  for (const HandoffStatement& s : h.state) out += "- " + s.text + "\n";
  out += std::string("Disposition: ") + HandoffDispositionName(h.disposition) + "\n";
  if (h.next_action) out += "Next: " + h.next_action->text + "\n";
  for (const HandoffOmission& o : h.omissions) out += "Omitted: " + o.text + "\n";
  return out;
}

// What the model is shown of the evidence, read in one snapshot.
struct Shown {
  std::vector<Source> sources;
  std::vector<ManifestItem> entries;
  std::vector<ShownArtifact> artifacts;
  std::optional<size_t> replaces;
  bool entries_cut = false;  // the cited memories have more active entries than were shown
};

Status Missing(size_t i, const MemoryRef& r) {
  const std::string at = "artifact_refs[" + std::to_string(i) + "]";
  return FieldError(at, at + ": the scope has no artifact revision " + FormatMemoryRef(r));
}

Result<Shown> ReadEvidence(ReadTxn& txn, const GenerateExperienceRequest& req) {
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, req.scope_id));
  if (!scope)
    return FieldError("source_refs",
                      "the scope " + req.scope_id + " has no sources or artifacts to cite");
  Shown out;  // the check reads each cited source once, and hands them over
  PC_RETURN_IF_ERROR(
      ReviewService::CheckEvidenceIn(txn, scope->scope_id, req.evidence, req.target, &out.sources));
  for (size_t i = 0; i < req.evidence.artifacts.size(); ++i) {
    const MemoryRef& r = req.evidence.artifacts[i];
    if (r.family == kMemoryFamily) {
      // The memory as it was at that revision: its active entries, to the prompt's entry budget
      // (one more is read to know whether the model sees all of them).
      const size_t room = kMaxPromptEntries - std::min(out.entries.size(), kMaxPromptEntries);
      PC_ASSIGN_OR_RETURN(auto items, txn.ListManifest(r.artifact_id, r.revision, false, "",
                                                       static_cast<int>(room) + 1));
      if (items.size() > room) {
        out.entries_cut = true;
        items.resize(room);
      }
      for (ManifestItem& m : items) out.entries.push_back(std::move(m));
    } else if (r.family == kExperienceFamily) {
      PC_ASSIGN_OR_RETURN(std::optional<Experience> e,
                          txn.FindExperience(r.artifact_id, r.revision));
      if (!e) return Missing(i, r);
      if (req.target && *req.target == r) out.replaces = out.artifacts.size();
      out.artifacts.push_back({kExperienceFamily, ExperienceText(e->content)});
    } else if (r.family == kHandoffFamily) {
      PC_ASSIGN_OR_RETURN(std::optional<Handoff> h, txn.FindHandoff(r.artifact_id, r.revision));
      if (!h) return Missing(i, r);
      out.artifacts.push_back({kHandoffFamily, HandoffText(h->content)});
    } else {
      return Missing(i, r);
    }
  }
  return out;
}

}  // namespace

Result<GeneratedExperience> ExperienceGenerator::Generate(const GenerateExperienceRequest& req,
                                                          const std::string& actor) {
  PC_RETURN_IF_ERROR(
      ReviewService::CheckEvidenceRequest(req.scope_id, req.evidence, req.target, req.reason));
  if (!extractor_)
    return Status(Code::kCapabilityUnavailable,
                  "generating an Experience needs an extraction provider and none is configured "
                  "(set extract_provider)");
  Shown shown;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(shown, ReadEvidence(txn, req));
    return Status::Ok();
  }));

  // The model, outside any transaction.
  ModelUsage usage;
  auto raw =
      extractor_->Extract(BuildExperienceRequest(shown.sources, shown.entries, shown.artifacts,
                                                 shown.replaces, shown.entries_cut),
                          usage);
  if (!raw.ok())
    return Status(raw.status().code(), "generating the Experience failed, nothing was proposed: " +
                                           raw.status().message());
  // Its tokens count as memory extraction, as the daily review's (the same provider, reading
  // sources); recorded only once the request has succeeded, so a failed one leaves the store as it
  // was.
  auto succeeded = [&] {
    RecordUsage(store_, req.scope_id, UsagePurpose::kMemoryExtraction, UsageOperation::kGeneration,
                usage);
  };
  PC_ASSIGN_OR_RETURN(std::optional<ExperienceContent> content, ParseExperienceAnswer(*raw));
  if (!content) {
    succeeded();
    return GeneratedExperience{};
  }

  ProposeExperienceRequest propose{
      req.scope_id, *content, req.evidence, req.target,
      req.reason ? req.reason
                 : std::optional<std::string>("generated by " + extractor_->name() + " (" +
                                              kExperiencePromptVersion + ")")};
  // The request was checked above: a proposal that does not pass is the model's (too long, empty).
  if (Status ok = ReviewService::CheckProposeRequest(propose); !ok.ok())
    return Status(Code::kProviderError,
                  "the model's answer is not a usable Experience: " + ok.message());
  // Propose checks the evidence and the target again in its own transaction: the target may have
  // moved while the model was answering (artifact_conflict, nothing proposed).
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, review_.ProposeExperience(propose, actor));
  succeeded();
  return GeneratedExperience{std::move(c)};
}

}  // namespace pc
