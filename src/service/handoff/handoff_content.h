// A handoff's content (DESIGN §6, the spec's HandoffContent): its limits, the checks of its shape
// (each error names the field), and its plain-text form. Pure: no store, no model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"

namespace pc {

// The spec's limits (powercontext.openapi.yaml, HandoffContent and the requests).
inline constexpr size_t kMaxHandoffTextChars = 8192;  // objective, statements, omissions
inline constexpr size_t kMaxHandoffStatements = 64;
inline constexpr size_t kMaxHandoffCitations = 32;  // per statement
inline constexpr size_t kMaxHandoffOmissions = 64;
inline constexpr size_t kMaxHandoffEvidence = 32;  // per prepare / activate request
inline constexpr int64_t kMinHandoffBytes = 512;
inline constexpr int64_t kMaxHandoffBytes = 32768;
inline constexpr int64_t kDefaultHandoffBytes = 8000;

// The content's shape and the spec's limits; errors name the field under `at` ("draft.").
Status CheckHandoffContent(const HandoffContent& c, const std::string& at);
// The content as plain text (what max_bytes counts, and the prepared context's handoff item).
std::string HandoffContentText(const HandoffContent& c);
std::string HandoffText(const Handoff& h);
// A citation as one short string: memory/mem_…@R#ent_…@env_…, handoff/hnd_…@R, source:content/ID.
std::string HandoffCitationText(const HandoffCitation& c);

// A citation of the scope's content source the caller knows as `source_id`; of an entry version.
HandoffCitation SourceHandoffCitation(const std::string& source_id);
HandoffCitation MemoryHandoffCitation(const Citation& c);

// The checks the requests share; errors name `field`.
Status CheckHandoffText(const std::string& field, const std::string& text);  // a claim's text
Status CheckHandoffRef(const MemoryRef& r, const std::string& field);
// One citation's shape (a source_ref, an artifact_ref or a memory_citation).
Status CheckHandoffCitation(const HandoffCitation& c, const std::string& field);
// `evidence` holds min to kMaxHandoffEvidence well-formed citations.
Status CheckHandoffEvidence(const std::vector<HandoffCitation>& evidence, size_t min);
Status CheckHandoffMaxBytes(int64_t max_bytes);

}  // namespace pc
