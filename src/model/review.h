// Reviewed artifacts (RFC 0050, docs/review.md): a Candidate is a persisted, untrusted proposal
// of a `review` family (Experience first); only approval turns its current version into an
// artifact revision. Plain structs, as model/types.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/types.h"

namespace pc {

inline constexpr const char* kExperienceFamily = "experience";
inline constexpr const char* kSkillFamily = "skill";  // managed Skills (docs/skills.md)
// Memory candidates (ours): listed only when a request asks for family "memory".
inline constexpr const char* kMemoryCandidateFamily = "memory";

// The spec's ExperienceProposal: what happened, what was done, how it went, what to do next time.
struct ExperienceContent {
  std::string situation, action, outcome, lesson;

  bool operator==(const ExperienceContent&) const = default;
};

// The spec's SkillProposal: a managed Skill's instruction core (RFC 0051): a name people and
// agents know it by, when to use it, the instructions, and how to tell that a use succeeded.
struct SkillContent {
  std::string name, description, instructions;
  std::vector<std::string> validation;

  bool operator==(const SkillContent&) const = default;
};

// A memory candidate's proposal (our extension of RFC 0050: a flush in `extraction_review =
// review` proposes its validated operations instead of committing them): add an entry, or revise
// the exact entry version the model was shown.
struct MemoryProposal {
  std::string op = "add";  // add, revise, retire (the daily review's near-duplicate proposals)
  std::string kind, text;
  std::string target_entry_id, target_version_id;  // revise and retire
  std::vector<std::string> source_refs;            // "source/ID@POSITION" of the window
  std::vector<GraphTriple> triples;                // attached to the entry version on approval

  bool operator==(const MemoryProposal&) const = default;
};

// A SourceReference: the source's stable type name and the id its writer knows it by.
struct SourceEvidence {
  std::string name = kContentSourceName;
  std::string source_id;

  bool operator==(const SourceEvidence&) const = default;
};

// The exact evidence a proposal stands on.
struct Evidence {
  std::vector<SourceEvidence> sources;
  std::vector<MemoryRef> artifacts;

  bool operator==(const Evidence&) const = default;
};

enum class CandidateStatus { kPending, kApproved, kRejected };
const char* CandidateStatusName(CandidateStatus s);
std::optional<CandidateStatus> CandidateStatusFrom(const std::string& name);

// One immutable version of a candidate's proposal.
struct CandidateVersion {
  int64_t version = 0;
  ExperienceContent proposal;            // family experience
  std::optional<MemoryProposal> memory;  // family memory
  Evidence evidence;
  std::optional<MemoryRef> target;  // the exact head this proposal replaces
  std::optional<std::string> reason;
  std::string actor;
  int64_t created_at_ms = 0;
  std::optional<SkillContent> skill;  // family skill (last: the others are set in order)
};

// A candidate's head with its current version.
struct ArtifactCandidate {
  std::string scope_id;  // internal scope id
  std::string candidate_id;
  std::string family = kExperienceFamily;
  CandidateStatus status = CandidateStatus::kPending;
  CandidateVersion current;
  std::optional<MemoryRef> result;             // approved: the revision it became
  std::optional<std::string> decision_reason;  // rejected: why
  int64_t created_at_ms = 0, updated_at_ms = 0;
};

// One approved Experience revision (family "experience", one artifact per experience).
struct Experience {
  MemoryRef ref;
  ExperienceContent content;
  Evidence evidence;
  std::string actor;
  int64_t created_at_ms = 0;
};

// One approved managed Skill revision (family "skill", one artifact per Skill).
struct Skill {
  MemoryRef ref;
  SkillContent content;
  Evidence evidence;
  std::string actor;
  int64_t created_at_ms = 0;
};

// The deterministic text an Experience is searched and shown by.
std::string ExperienceText(const ExperienceContent& c);

// Candidates of one scope by family and status (statistics).
struct CandidateCount {
  std::string family;
  CandidateStatus status = CandidateStatus::kPending;
  int64_t count = 0;
};

}  // namespace pc
