// The JSON codec of the handoff's spec shapes (RFC 0048; powercontext.openapi.yaml): citations,
// statements, HandoffContent / HandoffDraft, PreparedHandoff and HandoffResolution, both ways.
// Decoders refuse unknown fields at every level; each error names the field (422).
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/json_codec.h"
#include "service/handoff/handoff_service.h"

namespace pc {

// An InvalidArgument naming `field`.
Status JsonFieldError(const std::string& field, const std::string& message);
// `j` must be an object with only `allowed` fields and every `required` one (null allowed).
Status JsonShape(const Json& j, const std::string& at, std::initializer_list<const char*> allowed,
                 std::initializer_list<const char*> required);
// j[name], which must be a string.
Result<std::string> JsonString(const Json& j, const char* name, const std::string& at);

// A JSON array read item by item with `one` (errors name the item: at[3]).
template <class T>
Result<std::vector<T>> ItemsFrom(const Json& j, const std::string& at, const char* what,
                                 Result<T> (*one)(const Json&, const std::string&)) {
  if (!j.is_array()) return JsonFieldError(at, at + " must be an array of " + what);
  std::vector<T> out;
  for (size_t i = 0; i < j.size(); ++i) {
    PC_ASSIGN_OR_RETURN(T item, one(j[i], at + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(item));
  }
  return out;
}
// j.disposition: continuable, blocked or complete.
Result<HandoffDisposition> DispositionFrom(const Json& j, const std::string& at);

Result<MemoryRef> RefFromJson(const Json& j, const std::string& at);  // ArtifactReference
Result<HandoffCitation> CitationFrom(const Json& j, const std::string& at);
Result<std::vector<HandoffCitation>> CitationsFrom(const Json& j, const std::string& at);
// A HandoffDraft, or with `schema` a HandoffContent.
Result<HandoffContent> ContentFrom(const Json& j, const std::string& at, bool schema);
Result<PreparedHandoff> PreparedFrom(const Json& j, const std::string& at);

Json CitationJson(const HandoffCitation& c);
Json StatementJson(const HandoffStatement& st);
// A HandoffDraft, or with `schema` a HandoffContent.
Json ContentJson(const HandoffContent& c, bool schema);
Json PreparedJson(const PreparedHandoff& p);
Json ResolutionJson(const HandoffResolution& res);

}  // namespace pc
