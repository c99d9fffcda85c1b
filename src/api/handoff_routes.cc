// The handoff routes (DESIGN §6, RFC 0048, docs/handoff.md): the spec's five operations, exactly
// their schemas both ways (unknown fields are refused at every level), and our two read routes.
// Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "auth/request_context.h"
#include "common/clock.h"
#include "common/json_parse.h"
#include "model/citation.h"

namespace pc {
namespace {

constexpr const char* kContentSchema = "powercontext.handoff.v1";
constexpr const char* kPreparedSchema = "powercontext.prepared-handoff.v1";

Status Bad(const std::string& field, const std::string& message) {
  return InvalidArgument(message).WithDetail("field", field);
}

// `j` must be an object with only `allowed` fields and every `required` one (null allowed).
Status Shape(const Json& j, const std::string& at, std::initializer_list<const char*> allowed,
             std::initializer_list<const char*> required) {
  if (!j.is_object()) return Bad(at, at + " must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return Bad(at + "." + key, "unknown field \"" + at + "." + key + "\"");
  }
  for (const char* r : required)
    if (!j.contains(r)) return Bad(at + "." + r, at + "." + r + " is required");
  return Status::Ok();
}

Result<std::string> Str(const Json& j, const char* name, const std::string& at) {
  const Json& v = j.at(name);
  if (!v.is_string()) return Bad(at + "." + name, at + "." + name + " must be a string");
  return v.get<std::string>();
}

Result<MemoryRef> RefFromJson(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(
      Shape(j, at, {"family", "artifact_id", "revision"}, {"family", "artifact_id", "revision"}));
  MemoryRef r;
  PC_ASSIGN_OR_RETURN(r.family, Str(j, "family", at));
  PC_ASSIGN_OR_RETURN(r.artifact_id, Str(j, "artifact_id", at));
  const Json& rev = j.at("revision");
  if (!rev.is_number_integer() || (rev.is_number_unsigned() && rev.get<uint64_t>() > INT64_MAX))
    return Bad(at + ".revision", at + ".revision must be an integer");
  r.revision = rev.get<int64_t>();
  return r;
}

Result<HandoffCitation> CitationFrom(const Json& j, const std::string& at) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    return Bad(at, at + " must be a citation object with a kind: source, artifact or memory");
  const std::string kind = j["kind"].get<std::string>();
  HandoffCitation c;
  if (kind == "source") {
    PC_RETURN_IF_ERROR(Shape(j, at, {"kind", "source_ref"}, {"source_ref"}));
    const std::string sat = at + ".source_ref";
    PC_RETURN_IF_ERROR(Shape(j["source_ref"], sat, {"name", "source_id"}, {"name", "source_id"}));
    c.kind = HandoffCitationKind::kSource;
    PC_ASSIGN_OR_RETURN(c.source_name, Str(j["source_ref"], "name", sat));
    PC_ASSIGN_OR_RETURN(c.source_id, Str(j["source_ref"], "source_id", sat));
  } else if (kind == "artifact") {
    PC_RETURN_IF_ERROR(Shape(j, at, {"kind", "artifact_ref"}, {"artifact_ref"}));
    c.kind = HandoffCitationKind::kArtifact;
    PC_ASSIGN_OR_RETURN(c.artifact, RefFromJson(j["artifact_ref"], at + ".artifact_ref"));
  } else if (kind == "memory") {
    PC_RETURN_IF_ERROR(Shape(j, at, {"kind", "memory_citation"}, {"memory_citation"}));
    const std::string mat = at + ".memory_citation";
    if (!j["memory_citation"].is_object())
      return Bad(mat, mat + " must be a MemoryCitation object");
    Result<Citation> m = CitationFromJson(j["memory_citation"]);
    if (!m.ok()) return Bad(mat, mat + ": " + m.status().message());
    c.kind = HandoffCitationKind::kMemory;
    c.artifact = m->memory;
    c.entry_id = m->entry_id;
    c.entry_version_id = m->entry_version_id;
  } else {
    return Bad(at + ".kind", at + ".kind must be source, artifact or memory");
  }
  return c;
}

Result<std::vector<HandoffCitation>> CitationsFrom(const Json& j, const std::string& at) {
  if (!j.is_array()) return Bad(at, at + " must be an array of citations");
  std::vector<HandoffCitation> out;
  for (size_t i = 0; i < j.size(); ++i) {
    PC_ASSIGN_OR_RETURN(HandoffCitation c, CitationFrom(j[i], at + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(c));
  }
  return out;
}

Result<HandoffStatement> StatementFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(Shape(j, at, {"text", "citations"}, {"text", "citations"}));
  HandoffStatement st;
  PC_ASSIGN_OR_RETURN(st.text, Str(j, "text", at));
  PC_ASSIGN_OR_RETURN(st.citations, CitationsFrom(j["citations"], at + ".citations"));
  return st;
}

// A HandoffDraft, or with `schema` a HandoffContent.
Result<HandoffContent> ContentFrom(const Json& j, const std::string& at, bool schema) {
  if (schema) {
    PC_RETURN_IF_ERROR(
        Shape(j, at, {"schema", "objective", "state", "disposition", "next_action", "omissions"},
              {"schema", "objective", "state", "disposition", "next_action", "omissions"}));
    if (j["schema"] != kContentSchema)
      return Bad(at + ".schema", at + ".schema must be \"" + std::string(kContentSchema) +
                                     "\"; this server reads no other handoff version");
  } else {
    PC_RETURN_IF_ERROR(Shape(j, at,
                             {"objective", "state", "disposition", "next_action", "omissions"},
                             {"objective", "state", "disposition", "next_action", "omissions"}));
  }
  HandoffContent c;
  PC_ASSIGN_OR_RETURN(c.objective, Str(j, "objective", at));
  if (!j["state"].is_array())
    return Bad(at + ".state", at + ".state must be an array of statements");
  for (size_t i = 0; i < j["state"].size(); ++i) {
    PC_ASSIGN_OR_RETURN(HandoffStatement st,
                        StatementFrom(j["state"][i], at + ".state[" + std::to_string(i) + "]"));
    c.state.push_back(std::move(st));
  }
  PC_ASSIGN_OR_RETURN(std::string d, Str(j, "disposition", at));
  std::optional<HandoffDisposition> disposition = ParseHandoffDisposition(d);
  if (!disposition)
    return Bad(at + ".disposition", at + ".disposition must be continuable, blocked or complete");
  c.disposition = *disposition;
  if (!j["next_action"].is_null()) {
    PC_ASSIGN_OR_RETURN(HandoffStatement st, StatementFrom(j["next_action"], at + ".next_action"));
    c.next_action = std::move(st);
  }
  if (!j["omissions"].is_array()) return Bad(at + ".omissions", at + ".omissions must be an array");
  for (size_t i = 0; i < j["omissions"].size(); ++i) {
    const Json& o = j["omissions"][i];
    const std::string oat = at + ".omissions[" + std::to_string(i) + "]";
    PC_RETURN_IF_ERROR(Shape(o, oat, {"text", "citation"}, {"text", "citation"}));
    HandoffOmission om;
    PC_ASSIGN_OR_RETURN(om.text, Str(o, "text", oat));
    if (!o["citation"].is_null()) {
      PC_ASSIGN_OR_RETURN(HandoffCitation cit, CitationFrom(o["citation"], oat + ".citation"));
      om.citation = std::move(cit);
    }
    c.omissions.push_back(std::move(om));
  }
  return c;
}

Result<PreparedHandoff> PreparedFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(Shape(j, at, {"schema", "scope_id", "base", "content"},
                           {"schema", "scope_id", "base", "content"}));
  if (j["schema"] != kPreparedSchema)
    return Bad(at + ".schema", at + ".schema must be \"" + std::string(kPreparedSchema) +
                                   "\"; this server reads no other prepared handoff version");
  PreparedHandoff p;
  PC_ASSIGN_OR_RETURN(p.scope_id, Str(j, "scope_id", at));
  if (!j["base"].is_null()) {
    PC_ASSIGN_OR_RETURN(MemoryRef base, RefFromJson(j["base"], at + ".base"));
    p.base = std::move(base);
  }
  PC_ASSIGN_OR_RETURN(p.content, ContentFrom(j["content"], at + ".content", true));
  return p;
}

Json CitationJson(const HandoffCitation& c) {
  switch (c.kind) {
    case HandoffCitationKind::kSource:
      return Json{{"kind", "source"},
                  {"source_ref", {{"name", c.source_name}, {"source_id", c.source_id}}}};
    case HandoffCitationKind::kArtifact:
      return Json{{"kind", "artifact"}, {"artifact_ref", ToJson(c.artifact)}};
    case HandoffCitationKind::kMemory:
      break;
  }
  return Json{{"kind", "memory"},
              {"memory_citation", ToJson(Citation{c.artifact, c.entry_id, c.entry_version_id})}};
}

Json StatementJson(const HandoffStatement& st) {
  Json cites = Json::array();
  for (const HandoffCitation& c : st.citations) cites.push_back(CitationJson(c));
  return Json{{"text", st.text}, {"citations", cites}};
}

// A HandoffDraft, or with `schema` a HandoffContent.
Json ContentJson(const HandoffContent& c, bool schema) {
  Json state = Json::array();
  for (const HandoffStatement& st : c.state) state.push_back(StatementJson(st));
  Json omissions = Json::array();
  for (const HandoffOmission& o : c.omissions)
    omissions.push_back(
        Json{{"text", o.text}, {"citation", o.citation ? CitationJson(*o.citation) : Json()}});
  Json j{{"objective", c.objective},
         {"state", state},
         {"disposition", HandoffDispositionName(c.disposition)},
         {"next_action", c.next_action ? StatementJson(*c.next_action) : Json()},
         {"omissions", omissions}};
  if (schema) j["schema"] = kContentSchema;
  return j;
}

Json PreparedJson(const PreparedHandoff& p) {
  return Json{{"schema", kPreparedSchema},
              {"scope_id", p.scope_id},
              {"base", p.base ? ToJson(*p.base) : Json()},
              {"content", ContentJson(p.content, true)}};
}

// Ours (GET /v1/handoff and its history): a committed revision.
Json HandoffJson(const Handoff& h) {
  return Json{{"reference", ToJson(h.ref)},
              {"ref", FormatMemoryRef(h.ref)},
              {"content", ContentJson(h.content, true)},
              {"text", HandoffText(h)},
              {"actor", h.actor},
              {"created_at", FormatTimestamp(h.created_at_ms)}};
}

const char* SelectionName(HandoffSelection s) {
  return s == HandoffSelection::kPrepared ? "prepared"
         : s == HandoffSelection::kExact  ? "exact"
                                          : "latest";
}

Result<Json> Parsed(const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  return j;
}

Result<int64_t> MaxBytes(const Body& body) {
  PC_ASSIGN_OR_RETURN(std::optional<int64_t> v, body.OptInt("max_bytes"));
  return v.value_or(kDefaultHandoffBytes);
}

Result<ApiResponse> Prepare(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body,
                      ParseBody(req, {"scope_id", "objective", "evidence", "max_bytes"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  PrepareHandoffRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.objective, body.String("objective"));
  if (!j.contains("evidence")) return Bad("evidence", "evidence is required");
  PC_ASSIGN_OR_RETURN(r.evidence, CitationsFrom(j["evidence"], "evidence"));
  PC_ASSIGN_OR_RETURN(r.max_bytes, MaxBytes(body));
  PC_ASSIGN_OR_RETURN(HandoffContent draft, svc.Prepare(r));
  return ApiResponse{200, ContentJson(draft, false)};
}

Result<ApiResponse> Activate(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "boundary_source", "objective",
                                                 "evidence", "max_bytes"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  ActivateHandoffRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  if (!j.contains("boundary_source")) return Bad("boundary_source", "boundary_source is required");
  PC_RETURN_IF_ERROR(
      Shape(j["boundary_source"], "boundary_source", {"name", "source_id"}, {"name", "source_id"}));
  PC_ASSIGN_OR_RETURN(r.boundary_name, Str(j["boundary_source"], "name", "boundary_source"));
  PC_ASSIGN_OR_RETURN(r.boundary_source_id,
                      Str(j["boundary_source"], "source_id", "boundary_source"));
  PC_ASSIGN_OR_RETURN(r.objective, body.String("objective"));
  if (j.contains("evidence")) {
    PC_ASSIGN_OR_RETURN(r.evidence, CitationsFrom(j["evidence"], "evidence"));
  }
  PC_ASSIGN_OR_RETURN(r.max_bytes, MaxBytes(body));
  PC_ASSIGN_OR_RETURN(HandoffActivation a, svc.Activate(r));
  return ApiResponse{200, Json{{"status", a.generated ? "generated" : "ignored"},
                               {"boundary_source",
                                {{"name", r.boundary_name}, {"source_id", r.boundary_source_id}}},
                               {"previous_position", a.previous_position},
                               {"current_position", a.current_position},
                               {"draft", a.draft ? ContentJson(*a.draft, false) : Json()}}};
}

Result<ApiResponse> Finalize(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "draft"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  if (!j.contains("draft")) return Bad("draft", "draft is required");
  PC_ASSIGN_OR_RETURN(HandoffContent draft, ContentFrom(j["draft"], "draft", false));
  PC_ASSIGN_OR_RETURN(PreparedHandoff p, svc.Finalize(scope_id, draft));
  return ApiResponse{200, PreparedJson(p)};
}

Result<ApiResponse> Commit(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "handoff"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  if (!j.contains("handoff")) return Bad("handoff", "handoff is required");
  PC_ASSIGN_OR_RETURN(PreparedHandoff p, PreparedFrom(j["handoff"], "handoff"));
  const Principal& who = CurrentPrincipal();  // the token's name with auth on
  PC_ASSIGN_OR_RETURN(CommittedHandoff c,
                      svc.Commit(scope_id, p, who.authenticated ? who.name : "api"));
  Json sources = Json::array(), artifacts = Json::array();
  for (const HandoffCitation& s : c.sources)
    sources.push_back({{"name", s.source_name}, {"source_id", s.source_id}});
  for (const MemoryRef& a : c.artifacts) artifacts.push_back(ToJson(a));
  return ApiResponse{200, Json{{"reference", ToJson(c.handoff.ref)},
                               {"content", ContentJson(c.handoff.content, true)},
                               {"source_refs", sources},
                               {"artifact_refs", artifacts}}};
}

Result<ApiResponse> Continue(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "selection", "prepared", "revision"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  ContinueHandoffRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(std::string selection, body.String("selection"));
  if (selection == "prepared")
    r.selection = HandoffSelection::kPrepared;
  else if (selection == "exact")
    r.selection = HandoffSelection::kExact;
  else if (selection == "latest")
    r.selection = HandoffSelection::kLatest;
  else
    return Bad("selection", "selection must be prepared, exact or latest");
  if (j.contains("prepared") && !j["prepared"].is_null()) {
    PC_ASSIGN_OR_RETURN(PreparedHandoff p, PreparedFrom(j["prepared"], "prepared"));
    r.prepared = std::move(p);
  }
  if (j.contains("revision") && !j["revision"].is_null()) {
    PC_ASSIGN_OR_RETURN(MemoryRef rev, RefFromJson(j["revision"], "revision"));
    r.revision = std::move(rev);
  }
  PC_ASSIGN_OR_RETURN(HandoffResolution res, svc.Continue(r));
  Json checks = Json::array();
  for (const HandoffEvidenceCheck& c : res.checks) {
    Json unavailable = Json::array();
    for (const HandoffCitation& x : c.unavailable) unavailable.push_back(CitationJson(x));
    checks.push_back(Json{{"claim", c.state_index ? "state" : "next_action"},
                          {"state_index", c.state_index ? Json(*c.state_index) : Json()},
                          {"status", c.unavailable.empty() ? "available" : "unavailable"},
                          {"unavailable_evidence", unavailable}});
  }
  return ApiResponse{
      200,
      Json{{"trust", "untrusted_history"},
           {"status", res.content ? "resolved" : "empty"},
           {"scope_id", res.scope_id},
           {"content", res.content ? ContentJson(*res.content, true) : Json()},
           {"selection", SelectionName(res.selection)},
           {"selected_revision", res.selected_revision ? ToJson(*res.selected_revision) : Json()},
           {"current_revision", res.current_revision ? ToJson(*res.current_revision) : Json()},
           {"evidence_checks", checks}}};
}

Result<ApiResponse> ReadHandoff(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "revision"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto revision, q.OptInt("revision"));
  PC_ASSIGN_OR_RETURN(Handoff h, svc.Get(scope_id, revision));
  return ApiResponse{200, HandoffJson(h)};
}

Result<ApiResponse> HandoffHistory(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "limit", "cursor"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(PageRequest page, q.Page());
  PC_ASSIGN_OR_RETURN(HandoffPage out, svc.History(scope_id, page));
  Json items = Json::array();
  for (const Handoff& h : out.items) items.push_back(HandoffJson(h));
  return ApiResponse{200, Json{{"handoffs", items}, {"next_cursor", NextCursor(out.next_cursor)}}};
}

}  // namespace

void AddHandoffRoutes(Router& router, Services services) {
  HandoffService& h = services.handoff;
  router.Add("POST", "/v1/handoff/activate",
             {"activate_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Activate));
  router.Add("POST", "/v1/handoff/prepare",
             {"prepare_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Prepare));
  router.Add("POST", "/v1/handoff/finalize",
             {"finalize_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Finalize));
  router.Add("POST", "/v1/handoff/commit",
             {"commit_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Commit));
  router.Add("POST", "/v1/handoff/continue",
             {"continue_handoff", Permission::kRead, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Continue));
  router.Add("GET", "/v1/handoff", {"get_handoff", Permission::kRead, ScopeIn::kQuery},
             Bind(h, ReadHandoff));
  router.Add("GET", "/v1/handoff/history",
             {"list_handoff_history", Permission::kRead, ScopeIn::kQuery}, Bind(h, HandoffHistory));
}

}  // namespace pc
