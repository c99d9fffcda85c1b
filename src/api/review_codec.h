// The JSON codec of the review inbox's spec shapes (RFC 0050, RFC 0051;
// powercontext.openapi.yaml): ArtifactReference, SourceReference lists, ExperienceProposal,
// SkillProposal, ArtifactCandidate, ExperienceArtifact and SkillArtifact, both ways. Decoders
// refuse unknown fields at every level; each error names the field (422). The review routes and
// the managed Skill routes share it.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "api/json_codec.h"
#include "model/review.h"

namespace pc {

// An InvalidArgument naming `field`.
Status ReviewFieldError(const std::string& field, const std::string& message);
// `j` must be an object with only `allowed` fields and every `required` one; `at` "" is the body.
Status BodyShape(const Json& j, const std::string& at, std::initializer_list<const char*> allowed,
                 std::initializer_list<const char*> required);
Result<std::string> BodyString(const Json& j, const char* name, const std::string& at);
// Absent or null: nullopt.
Result<std::optional<std::string>> BodyOptString(const Json& j, const char* name);
Result<int64_t> BodyInt(const Json& j, const char* name, const std::string& at);

Result<MemoryRef> ArtifactRefFrom(const Json& j, const std::string& at);
Result<ExperienceContent> ExperienceProposalFrom(const Json& j, const std::string& at);
Result<SkillContent> SkillProposalFrom(const Json& j, const std::string& at);
// source_refs, artifact_refs (both required) and target (optional, nullable) of a body.
Status EvidenceFrom(const Json& j, Evidence& e, std::optional<MemoryRef>& target);

Json ExperienceProposalJson(const ExperienceContent& c);
Json SkillProposalJson(const SkillContent& k);
Json SourcesJson(const Evidence& e);
Json ArtifactsJson(const Evidence& e);
Json OptJson(const std::optional<std::string>& s);
Json MemoryProposalJson(const MemoryProposal& m);
Json CandidateJson(const ArtifactCandidate& c);  // the spec's ArtifactCandidate
// The spec's GeneratedCandidateResponse: pending with the candidate, or no_op with null.
Json GeneratedJson(const std::optional<ArtifactCandidate>& c);
Json ExperienceJson(const Experience& e);  // the spec's ExperienceArtifact
Json SkillJson(const Skill& k);            // the spec's SkillArtifact

// Who a review write is by: the token's name, or "api" on an open server.
std::string ReviewActor();

}  // namespace pc
