#include "service/handoff/handoff_content.h"

#include <algorithm>

#include "common/utf8.h"
#include "model/citation.h"
#include "model/text_check.h"

namespace pc {
namespace {

// Bytes a text of kMaxHandoffTextChars characters may take (4 per character at most).
constexpr size_t kMaxHandoffTextBytes = 4 * kMaxHandoffTextChars;

constexpr size_t kMaxRefChars = 128;  // ArtifactReference ids and family

size_t CountChars(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsRefPart(const std::string& s) {
  return !s.empty() && s.size() <= kMaxRefChars &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

Status CheckStatement(const HandoffStatement& st, const std::string& field) {
  PC_RETURN_IF_ERROR(CheckHandoffText(field + ".text", st.text));
  if (st.citations.empty() || st.citations.size() > kMaxHandoffCitations)
    return FieldError(
        field + ".citations",
        field + ".citations must hold 1 to " + std::to_string(kMaxHandoffCitations) + " citations");
  for (size_t i = 0; i < st.citations.size(); ++i)
    PC_RETURN_IF_ERROR(
        CheckHandoffCitation(st.citations[i], field + ".citations[" + std::to_string(i) + "]"));
  return Status::Ok();
}

std::string Cites(const std::vector<HandoffCitation>& cs) {
  std::string out;
  for (const HandoffCitation& c : cs) out += (out.empty() ? " [" : ", ") + HandoffCitationText(c);
  return out.empty() ? out : out + "]";
}

}  // namespace

Status CheckHandoffCitation(const HandoffCitation& c, const std::string& field) {
  switch (c.kind) {
    case HandoffCitationKind::kSource:
      // 256 characters, as every source id (not bytes: 200 "é" is a valid id).
      if (c.source_name.empty() || c.source_id.empty() ||
          CountCodePoints(c.source_id).value_or(257) > 256)
        return FieldError(field, field + ".source_ref needs a name and a source_id");
      return Status::Ok();
    case HandoffCitationKind::kArtifact:
      return CheckHandoffRef(c.artifact, field + ".artifact_ref");
    case HandoffCitationKind::kMemory: {
      Status s = ValidateCitation(Citation{c.artifact, c.entry_id, c.entry_version_id});
      if (!s.ok()) return FieldError(field, field + ".memory_citation: " + s.message());
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status CheckHandoffText(const std::string& field, const std::string& text) {
  PC_RETURN_IF_ERROR(CheckText(field, text, kMaxHandoffTextBytes));
  if (CountChars(text) > kMaxHandoffTextChars)
    return FieldError(
        field, field + " is longer than " + std::to_string(kMaxHandoffTextChars) + " characters");
  return Status::Ok();
}

Status CheckHandoffRef(const MemoryRef& r, const std::string& field) {
  if (!IsRefPart(r.family) || !IsRefPart(r.artifact_id))
    return FieldError(
        field, field + " needs a family and an artifact_id of 1–128 printable ASCII characters");
  if (r.revision < 1) return FieldError(field, field + ".revision must be 1 or more");
  return Status::Ok();
}

Status CheckHandoffEvidence(const std::vector<HandoffCitation>& evidence, size_t min) {
  if (evidence.size() < min || evidence.size() > kMaxHandoffEvidence)
    return FieldError("evidence", "evidence must hold " + std::to_string(min) + " to " +
                                      std::to_string(kMaxHandoffEvidence) + " citations");
  for (size_t i = 0; i < evidence.size(); ++i)
    PC_RETURN_IF_ERROR(CheckHandoffCitation(evidence[i], "evidence[" + std::to_string(i) + "]"));
  return Status::Ok();
}

Status CheckHandoffMaxBytes(int64_t max_bytes) {
  if (max_bytes < kMinHandoffBytes || max_bytes > kMaxHandoffBytes)
    return FieldError("max_bytes", "max_bytes must be " + std::to_string(kMinHandoffBytes) +
                                       " to " + std::to_string(kMaxHandoffBytes));
  return Status::Ok();
}

std::string HandoffCitationText(const HandoffCitation& c) {
  switch (c.kind) {
    case HandoffCitationKind::kSource:
      return "source:" + c.source_name + "/" + c.source_id;
    case HandoffCitationKind::kArtifact:
      return FormatMemoryRef(c.artifact);
    case HandoffCitationKind::kMemory:
      return FormatCitation(Citation{c.artifact, c.entry_id, c.entry_version_id});
  }
  return "";
}

std::string HandoffContentText(const HandoffContent& c) {
  std::string out = "Objective: " + c.objective +
                    "\nDisposition: " + HandoffDispositionName(c.disposition) + "\nState:";
  for (const HandoffStatement& st : c.state) out += "\n- " + st.text + Cites(st.citations);
  out += "\nNext action: " +
         (c.next_action ? c.next_action->text + Cites(c.next_action->citations) : "none");
  if (!c.omissions.empty()) {
    out += "\nOmissions:";
    for (const HandoffOmission& o : c.omissions)
      out += "\n- " + o.text + (o.citation ? Cites({*o.citation}) : std::string());
  }
  return out;
}

std::string HandoffText(const Handoff& h) { return HandoffContentText(h.content); }

Status CheckHandoffContent(const HandoffContent& c, const std::string& at) {
  PC_RETURN_IF_ERROR(CheckHandoffText(at + "objective", c.objective));
  if (c.state.empty() || c.state.size() > kMaxHandoffStatements)
    return FieldError(at + "state", at + "state must hold 1 to " +
                                        std::to_string(kMaxHandoffStatements) + " statements");
  for (size_t i = 0; i < c.state.size(); ++i)
    PC_RETURN_IF_ERROR(CheckStatement(c.state[i], at + "state[" + std::to_string(i) + "]"));
  if (c.next_action) PC_RETURN_IF_ERROR(CheckStatement(*c.next_action, at + "next_action"));
  if (c.omissions.size() > kMaxHandoffOmissions)
    return FieldError(at + "omissions",
                      at + "omissions holds more than " + std::to_string(kMaxHandoffOmissions));
  for (size_t i = 0; i < c.omissions.size(); ++i) {
    const std::string f = at + "omissions[" + std::to_string(i) + "]";
    PC_RETURN_IF_ERROR(CheckHandoffText(f + ".text", c.omissions[i].text));
    if (c.omissions[i].citation)
      PC_RETURN_IF_ERROR(CheckHandoffCitation(*c.omissions[i].citation, f + ".citation"));
  }
  return Status::Ok();
}

HandoffCitation SourceHandoffCitation(const std::string& source_id) {
  HandoffCitation c;
  c.kind = HandoffCitationKind::kSource;
  c.source_name = kContentSourceName;
  c.source_id = source_id;
  return c;
}

HandoffCitation MemoryHandoffCitation(const Citation& m) {
  HandoffCitation c;
  c.kind = HandoffCitationKind::kMemory;
  c.artifact = m.memory;
  c.entry_id = m.entry_id;
  c.entry_version_id = m.entry_version_id;
  return c;
}

}  // namespace pc
