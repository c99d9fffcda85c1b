#include "api/json_codec.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/json_parse.h"
#include "model/citation.h"
#include "wire/error_map.h"

namespace pc {

Json NextCursor(const std::optional<std::string>& cursor) {
  return cursor ? Json(*cursor) : Json();
}

Json ToJson(const MemoryRef& m) {
  return Json{{"family", m.family}, {"artifact_id", m.artifact_id}, {"revision", m.revision}};
}

Json ToJson(const Citation& c) {
  return Json{{"memory_ref", ToJson(c.memory)},
              {"entry_id", c.entry_id},
              {"entry_version_id", c.entry_version_id}};
}

Json MemoryRefOrNull(const MemoryRef& m) {
  return m.artifact_id.empty() || m.revision < 1 ? Json() : ToJson(m);
}

Json SourceRefJson(std::string_view ref) {
  std::optional<SourceRefParts> parts = ParseSourceRef(ref);
  return Json{{"name", kContentSourceName},
              {"source_id", parts ? parts->source_id : std::string(ref)}};
}

Json ToJson(const MemoryEntryView& e) {
  // A version's evidence in the spec's terms: sources (and URLs, as sources of type "url") in
  // source_refs, memory citations as the exact artifact revisions they name (write_gates.h).
  Json sources = Json::array(), artifacts = Json::array();
  for (const std::string& ref : e.version.source_refs) {
    if (ref.rfind("url:", 0) == 0) {
      sources.push_back(Json{{"name", "url"}, {"source_id", ref.substr(4)}});
    } else if (Result<Citation> c = ParseCitation(ref); c.ok()) {
      Json a = ToJson(c->memory);
      if (std::find(artifacts.begin(), artifacts.end(), a) == artifacts.end())
        artifacts.push_back(std::move(a));
    } else {
      sources.push_back(SourceRefJson(ref));
    }
  }
  return Json{{"citation", ToJson(Citation{e.at, e.version.entry_id, e.version.entry_version_id})},
              {"version", e.version.version},
              {"kind", e.version.kind},
              {"text", e.version.text},
              {"state", e.active ? "active" : "inactive"},
              {"source_refs", sources},
              {"artifact_refs", artifacts}};
}

Json ToJson(const EntryVersion& v) {
  Json j{{"entry_id", v.entry_id},
         {"entry_version_id", v.entry_version_id},
         {"version", v.version},
         {"previous_version_id", v.previous_version_id ? Json(*v.previous_version_id) : Json()},
         {"kind", v.kind},
         {"text", v.text},
         {"content_hash", v.content_hash},
         {"source_refs", v.source_refs},
         {"hypothesis", v.source_refs.empty()},  // nothing it stands on is recorded (write_gates.h)
         {"created_by_revision", v.created_by_revision},
         {"reason", v.reason},
         {"created_at", FormatTimestamp(v.created_at_ms)}};
  AddValidity(j, v);
  return j;
}

void AddValidity(Json& entry, const EntryVersion& v) {
  entry["valid_from"] = FormatTimestamp(v.created_at_ms);
  entry["valid_until"] = v.valid_until_ms ? Json(FormatTimestamp(*v.valid_until_ms)) : Json();
}

Json ToJson(const Source& s) {
  return Json{{"source_id", s.source_id},
              {"scope_id", s.scope_id},
              {"position", s.position},
              {"source_ref", SourceRef(s)},
              {"kind", s.kind},
              {"purpose", s.purpose},
              {"content", s.content},
              {"metadata", ParseJson(s.metadata_json).value_or(Json::object())},
              {"idempotency_key", s.idempotency_key ? Json(*s.idempotency_key) : Json()},
              {"created_at", FormatTimestamp(s.created_at_ms)}};
}

Json ToJson(const Change& c) {
  Json j{{"op", ChangeOpName(c.op)}, {"entry_id", c.entry_id}};
  if (c.op == ChangeOp::kRevise) {
    j["from_version_id"] = c.from_version_id ? Json(*c.from_version_id) : Json();
    j["to_version_id"] = c.to_version_id;
  } else {
    j["entry_version_id"] = c.to_version_id;
  }
  return j;
}

Json ToJson(const RevisionInfo& r) {
  Json changes = Json::array();
  for (const Change& c : r.changes) changes.push_back(ToJson(c));
  return Json{{"memory", ToJson(r.memory)}, {"actor", r.actor},
              {"reason", r.reason},         {"created_at", FormatTimestamp(r.created_at_ms)},
              {"lineage", r.lineage},       {"changes", changes}};
}

Json ToJson(const Scope& s) {
  return Json{
      {"scope_id", s.scope_id},
      {"key", s.key},
      {"created_at", FormatTimestamp(s.created_at_ms)},
      {"memory", ToJson(MemoryRef{kMemoryFamily, s.memory_artifact_id, s.memory_head_revision})}};
}

Json ToJson(const WriteOutcome& w) {
  return Json{{"memory", ToJson(w.memory)},
              {"changed", w.changed},
              {"entry", w.entry ? ToJson(*w.entry) : Json()},
              {"active", w.entry ? Json(w.active) : Json()},
              {"citation", w.citation ? ToJson(*w.citation) : Json()},
              {"change", w.change ? ToJson(*w.change) : Json()},
              {"duplicate_of", w.duplicate_of ? ToJson(*w.duplicate_of) : Json()}};
}

Json ToJson(const ReadOutcome& r) {
  return Json{{"citation", ToJson(r.citation)},
              {"entry", ToJson(r.version)},
              {"active_at_revision", r.active_at_revision},
              {"head", ToJson(r.head)},
              {"current", r.current}};
}

Json ToJson(const ManifestItem& m, const MemoryRef& at) {
  Json j = ToJson(m.version);
  j["active"] = m.active;
  j["citation"] = ToJson(Citation{at, m.version.entry_id, m.version.entry_version_id});
  j["citation_ref"] = FormatCitation(Citation{at, m.version.entry_id, m.version.entry_version_id});
  return j;
}

namespace {

Result<Citation> CitationObject(const Json& j) {
  for (const auto& [key, value] : j.items())
    if (key != "memory_ref" && key != "entry_id" && key != "entry_version_id")
      return InvalidArgument("unknown citation field \"" + key + "\"");
  auto str = [&](const Json& o, const char* k) -> Result<std::string> {
    auto it = o.find(k);
    if (it == o.end() || !it->is_string())
      return InvalidArgument(std::string("citation.") + k + " must be a string");
    return it->get<std::string>();
  };
  auto mem = j.find("memory_ref");
  if (mem == j.end() || !mem->is_object())
    return InvalidArgument("citation.memory_ref must be an object {family, artifact_id, revision}");
  for (const auto& [key, value] : mem->items())
    if (key != "family" && key != "artifact_id" && key != "revision")
      return InvalidArgument("unknown citation.memory_ref field \"" + key + "\"");
  Citation c;
  PC_ASSIGN_OR_RETURN(c.memory.family, str(*mem, "family"));
  PC_ASSIGN_OR_RETURN(c.memory.artifact_id, str(*mem, "artifact_id"));
  auto rev = mem->find("revision");
  if (rev == mem->end() || !rev->is_number_integer())
    return InvalidArgument("citation.memory_ref.revision must be an integer");
  c.memory.revision = rev->get<int64_t>();
  PC_ASSIGN_OR_RETURN(c.entry_id, str(j, "entry_id"));
  PC_ASSIGN_OR_RETURN(c.entry_version_id, str(j, "entry_version_id"));
  PC_RETURN_IF_ERROR(ValidateCitation(c));
  return c;
}

}  // namespace

Result<Citation> CitationFromJson(const Json& j) {
  Result<Citation> c =
      j.is_string()   ? ParseCitation(j.get<std::string>())
      : j.is_object() ? CitationObject(j)
                      : Result<Citation>(InvalidArgument(
                            "citation must be a string (memory/mem_…@R#ent_…@env_…) or an object"));
  if (!c.ok()) return std::move(c).TakeStatus().WithDetail("field", "citation");
  return c;
}

Body::Body() = default;
Body::Body(Body&&) noexcept = default;
Body::~Body() = default;

Result<Body> Body::Parse(const std::string& text, std::initializer_list<const char*> allowed) {
  return Parse(ParseJson(text), allowed);
}

Result<Body> Body::Parse(Result<Json> parsed, std::initializer_list<const char*> allowed) {
  if (!parsed.ok())
    return Status(parsed.status().code(), "request body: " + parsed.status().message());
  if (!parsed->is_object()) return InvalidArgument("request body must be a JSON object");
  return FromJson(std::move(parsed).value(), allowed, "");
}

Result<Body> Body::FromJson(Json j, std::initializer_list<const char*> allowed,
                            const std::string& at) {
  if (!j.is_object()) {
    std::string field =
        at.empty() ? at : at.substr(0, at.size() - 1);  // "sources[2]." → "sources[2]"
    return FieldError(field, field + " must be a JSON object");
  }
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return FieldError(at + key, "unknown field \"" + at + key + "\"");
  }
  Body body;
  body.json_ = std::make_unique<Json>(std::move(j));
  body.at_ = at;
  return body;
}

namespace {

Status WrongType(const std::string& name, const char* type) {
  return FieldError(name, name + " must be " + type);
}

}  // namespace

Result<std::optional<std::string>> Body::OptString(const char* name) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return WrongType(at_ + name, "a string");
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::string> Body::String(const char* name) const {
  PC_ASSIGN_OR_RETURN(std::optional<std::string> v, OptString(name));
  if (!v) return FieldError(at_ + name, at_ + name + " is required");
  return *v;
}

Result<std::optional<int64_t>> Body::OptInt(const char* name) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number_integer()) return WrongType(at_ + name, "an integer");
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return WrongType(at_ + name, "an integer in range");
  return std::optional<int64_t>(it->get<int64_t>());
}

Result<std::optional<bool>> Body::OptBool(const char* name) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null()) return std::optional<bool>();
  if (!it->is_boolean()) return WrongType(at_ + name, "true or false");
  return std::optional<bool>(it->get<bool>());
}

Result<std::optional<double>> Body::OptNumber(const char* name) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null()) return std::optional<double>();
  if (!it->is_number()) return WrongType(at_ + name, "a number");
  return std::optional<double>(it->get<double>());
}

Result<Citation> Body::RequiredCitation(const char* name) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null())
    return FieldError(at_ + name, at_ + name + " is required");
  return CitationFromJson(*it);
}

Result<std::vector<std::string>> Body::Strings(const char* name) const {
  std::vector<std::string> out;
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null()) return out;
  if (!it->is_array()) return WrongType(at_ + name, "an array of strings");
  for (size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string())
      return WrongType(at_ + name + "[" + std::to_string(i) + "]", "a string");
    out.push_back((*it)[i].get<std::string>());
  }
  return out;
}

Result<Json> Body::Array(const char* name) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null())
    return FieldError(at_ + name, at_ + name + " is required");
  if (!it->is_array()) return WrongType(at_ + name, "an array");
  return *it;
}

Result<std::string> Body::ObjectText(const char* name) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null()) return std::string("{}");
  if (!it->is_object()) return WrongType(at_ + name, "a JSON object");
  return it->dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<std::vector<Body>> Body::Objects(const char* name,
                                        std::initializer_list<const char*> allowed) const {
  auto it = json_->find(name);
  if (it == json_->end() || it->is_null())
    return FieldError(at_ + name, at_ + name + " is required");
  if (!it->is_array() || it->empty()) return WrongType(at_ + name, "a non-empty array of objects");
  std::vector<Body> out;
  for (size_t i = 0; i < it->size(); ++i) {
    PC_ASSIGN_OR_RETURN(Body item,
                        FromJson((*it)[i], allowed, at_ + name + "[" + std::to_string(i) + "]."));
    out.push_back(std::move(item));
  }
  return out;
}

Result<Query> Query::From(const std::multimap<std::string, std::string>& params,
                          std::initializer_list<const char*> allowed) {
  Query q;
  for (const auto& [key, value] : params) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return FieldError(key, "unknown query parameter \"" + key + "\"");
    if (q.values_.count(key)) return FieldError(key, "query parameter \"" + key + "\" given twice");
    q.values_[key] = value;
  }
  return q;
}

std::optional<std::string> Query::OptString(const char* name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

Result<std::string> Query::String(const char* name) const {
  auto v = OptString(name);
  if (!v || v->empty()) return FieldError(name, std::string(name) + " is required");
  return *v;
}

Result<std::optional<int64_t>> Query::OptInt(const char* name) const {
  auto v = OptString(name);
  if (!v) return std::optional<int64_t>();
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || ptr != v->data() + v->size() || v->empty())
    return WrongType(name, "an integer");
  return std::optional<int64_t>(out);
}

Result<bool> Query::Bool(const char* name, bool fallback) const {
  auto v = OptString(name);
  if (!v) return fallback;
  if (*v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  return WrongType(name, "true or false");
}

Result<PageRequest> Query::Page() const {
  PageRequest page;
  PC_ASSIGN_OR_RETURN(std::optional<int64_t> limit, OptInt("limit"));
  if (limit) {
    if (*limit < 1 || *limit > kMaxPageLimit)
      return FieldError("limit", "limit must be between 1 and " + std::to_string(kMaxPageLimit));
    page.limit = static_cast<int>(*limit);
  }
  page.cursor = OptString("cursor").value_or("");
  return page;
}

}  // namespace pc
