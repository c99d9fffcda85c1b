// JSON at the HTTP edge: structs to JSON, and strict readers for request bodies and queries.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/memory/memory_service.h"
#include "wire/error_json.h"
#include "wire/json.h"

namespace pc {

// A page's next_cursor: the cursor, or null on the last page.
Json NextCursor(const std::optional<std::string>& cursor);
// The spec's shapes (powercontext.openapi.yaml): ArtifactReference, MemoryCitation, MemoryEntry,
// SourceReference. Our own routes use the same ones, so a citation reads alike everywhere.
Json ToJson(const MemoryRef& m);
Json MemoryRefOrNull(const MemoryRef& m);  // null for no memory or an empty one (revision 0)
Json ToJson(const Citation& c);
struct MemoryEntryView {
  const EntryVersion& version;
  const MemoryRef& at;  // the revision the citation names
  bool active;
};
Json ToJson(const MemoryEntryView& e);
// A source reference string (source/ID@POSITION) as {name, source_id}.
Json SourceRefJson(std::string_view ref);
Json ToJson(const EntryVersion& v);
// A version's validity (docs/expiry.md), `valid_from` and `valid_until`, set on `entry`: every
// EntryVersion answer carries them; a spec answer only under explain.
void AddValidity(Json& entry, const EntryVersion& v);
Json ToJson(const Change& c);
Json ToJson(const RevisionInfo& r);
Json ToJson(const Scope& s);
Json ToJson(const WriteOutcome& w);
Json ToJson(const ReadOutcome& r);
// A manifest line with its citation at `at`.
Json ToJson(const ManifestItem& m, const MemoryRef& at);
Json ToJson(const Source& s);

// A citation given as the spec's object {memory_ref:{family,artifact_id,revision}, entry_id,
// entry_version_id} (strict) or as its string form (memory/mem_…@R#ent_…@env_…, ours).
Result<Citation> CitationFromJson(const Json& j);

// A request body: must be a JSON object with only the allowed fields. Getters report a missing or
// wrong-typed field as InvalidArgument naming it; null counts as absent.
class Body {
 public:
  static Result<Body> Parse(const std::string& text, std::initializer_list<const char*> allowed);
  // The same, for a body already parsed (api/router.h ParseBody); takes the value over.
  static Result<Body> Parse(Result<Json> parsed, std::initializer_list<const char*> allowed);
  Body(Body&&) noexcept;
  ~Body();

  Result<std::string> String(const char* name) const;  // required
  Result<std::optional<std::string>> OptString(const char* name) const;
  Result<std::optional<int64_t>> OptInt(const char* name) const;
  Result<std::optional<bool>> OptBool(const char* name) const;
  Result<std::optional<double>> OptNumber(const char* name) const;
  Result<Citation> RequiredCitation(const char* name) const;
  // An array of strings (empty when absent).
  Result<std::vector<std::string>> Strings(const char* name) const;
  // A required array, as JSON (its items of any shape).
  Result<Json> Array(const char* name) const;
  // A JSON object field, returned as its compact text ("{}" when absent).
  Result<std::string> ObjectText(const char* name) const;
  // A required non-empty array of objects, each read as a Body with only `allowed` fields (errors
  // name the item: sources[2].kind).
  Result<std::vector<Body>> Objects(const char* name,
                                    std::initializer_list<const char*> allowed) const;
  // The field's path in the request, for errors ("sources[2].purpose").
  std::string Path(const char* name) const { return at_ + name; }

 private:
  Body();
  static Result<Body> FromJson(Json j, std::initializer_list<const char*> allowed,
                               const std::string& at);
  std::string at_;  // the path of this body inside the request ("" for the whole body)
  std::unique_ptr<Json> json_;
};

// Query parameters, with only the allowed names.
class Query {
 public:
  static Result<Query> From(const std::multimap<std::string, std::string>& params,
                            std::initializer_list<const char*> allowed);
  Result<std::string> String(const char* name) const;  // required
  std::optional<std::string> OptString(const char* name) const;
  Result<std::optional<int64_t>> OptInt(const char* name) const;
  Result<bool> Bool(const char* name, bool fallback) const;
  Result<PageRequest> Page() const;  // limit + cursor

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace pc
