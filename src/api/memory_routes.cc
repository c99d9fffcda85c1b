// The spec's memory operations (powercontext.openapi.yaml, tag memory): remember, search,
// entries/list|get|revise|retire, changes. Requests and responses are exactly the spec's; what we
// add (changed / duplicate_of, rerank, include_inactive on search, min_similarity, min_revision …)
// is answered only to a request that asks with a field a spec client never sends
// (docs/compatibility.md).
// Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "auth/request_context.h"
#include "common/clock.h"
#include "common/utf8.h"

namespace pc {
namespace {

constexpr const char* kDefaultActor = "api";
constexpr int kSpecSearchLimit = 50;     // SearchMemoryRequest.limit maximum
constexpr int kSpecDefaultLimit = 10;    // … and default
constexpr size_t kMaxQueryChars = 8192;  // SearchMemoryRequest.query maxLength

ApiResponse Ok(Json body) { return ApiResponse{200, std::move(body)}; }

Status CheckQuery(const std::string& query) {
  if (query.empty()) return FieldError("query", "query is required");
  const std::optional<size_t> chars = CountCodePoints(query);
  if (!chars) return FieldError("query", "query is not valid UTF-8");
  if (*chars > kMaxQueryChars) return FieldError("query", "query is longer than 8192 characters");
  return Status::Ok();
}

Result<std::string> ReadReason(const Body& body) {
  PC_ASSIGN_OR_RETURN(auto reason, body.OptString("reason"));
  std::optional<size_t> chars = reason ? CountCodePoints(*reason) : std::optional<size_t>(0);
  if (!chars || *chars > 512)
    return FieldError(body.Path("reason"),
                      body.Path("reason") + " must be at most 512 characters of UTF-8");
  return reason.value_or("");
}

// ours (docs/expiry.md): valid_until, a string; absent is "" (the kind's default).
Result<std::string> ReadValidUntil(const Body& body) {
  PC_ASSIGN_OR_RETURN(auto v, body.OptString("valid_until"));
  if (v && v->empty())
    return FieldError(body.Path("valid_until"),
                      body.Path("valid_until") +
                          " is a duration (14d), a UTC date or date-time, or never; leave it out "
                          "for the kind's default");
  return v.value_or("");
}

// What every memory write takes besides its target: the spec's reason (at most 512 characters),
// and ours: actor and explain. Sets `r`'s reason and actor; returns explain.
template <typename WriteRequest>
Result<bool> ReadWriteFields(const Body& body, WriteRequest& r) {
  PC_ASSIGN_OR_RETURN(r.reason, ReadReason(body));
  PC_ASSIGN_OR_RETURN(auto actor, body.OptString("actor"));
  // With auth on, a revision's actor is the token's name, never a string the client sent.
  const Principal& who = CurrentPrincipal();
  r.actor = who.authenticated ? who.name : actor.value_or(kDefaultActor);
  PC_ASSIGN_OR_RETURN(auto explain, body.OptBool("explain"));
  return explain.value_or(false);
}

// MemoryMutationResponse; with `explain`, also whether it changed, the change in the revision's
// terms (as GET /v1/memory/revisions lists it) and what it duplicates.
Json MutationJson(const WriteOutcome& w, bool explain) {
  Json j{{"memory", ToJson(w.memory)},
         {"entry", w.entry ? ToJson(MemoryEntryView{*w.entry, w.memory, w.active}) : Json()}};
  if (explain) {
    j["changed"] = w.changed;
    j["change"] = w.change ? ToJson(*w.change) : Json();
    j["duplicate_of"] = w.duplicate_of ? ToJson(*w.duplicate_of) : Json();
    if (w.entry) {
      j["hypothesis"] = IsHypothesis(w.entry->source_refs);
      AddValidity(j["entry"], *w.entry);
    }
    // The reconcile gate's warning: entries that already say nearly the same; revise one of them.
    Json near = Json::array();
    for (const NearDuplicate& d : w.near_duplicates)
      near.push_back(
          Json{{"citation", ToJson(d.citation)},
               {"text", d.text},
               {"similarity", d.similarity},
               {"cosine", d.cosine ? Json(*d.cosine) : Json()},
               {"suggestion", "revise this entry instead of keeping two that say the same"}});
    j["near_duplicates"] = near;
  }
  return j;
}

Result<ApiResponse> Remember(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(
      Body body, ParseBody(req, {"scope_id", "kind", "text", "reason", "expected_revision", "actor",
                                 "explain", "evidence", "valid_until"}));
  RememberRequest r;
  PC_ASSIGN_OR_RETURN(r.evidence, body.Strings("evidence"));
  PC_ASSIGN_OR_RETURN(r.valid_until, ReadValidUntil(body));
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  r.scope = req.ParsedScope();
  PC_ASSIGN_OR_RETURN(r.kind, body.String("kind"));
  PC_ASSIGN_OR_RETURN(r.text, body.String("text"));
  PC_ASSIGN_OR_RETURN(bool explain, ReadWriteFields(body, r));
  PC_ASSIGN_OR_RETURN(r.expected_revision, body.OptInt("expected_revision"));
  PC_ASSIGN_OR_RETURN(WriteOutcome out, svc.Remember(r));
  return Ok(MutationJson(out, explain));
}

// ours: entries for one scope written as one revision (docs/api.md); each entry's answer is
// remember's with explain, in the request's order.
Result<ApiResponse> RememberBatch(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(
      Body body, ParseBody(req, {"scope_id", "entries", "reason", "expected_revision", "actor"}));
  RememberBatchRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  r.scope = req.ParsedScope();
  PC_ASSIGN_OR_RETURN(
      std::vector<Body> items,
      body.Objects("entries", {"kind", "text", "reason", "evidence", "valid_until"}));
  for (const Body& item : items) {
    RememberRequest e;
    PC_ASSIGN_OR_RETURN(e.kind, item.String("kind"));
    PC_ASSIGN_OR_RETURN(e.text, item.String("text"));
    PC_ASSIGN_OR_RETURN(e.reason, ReadReason(item));
    PC_ASSIGN_OR_RETURN(e.evidence, item.Strings("evidence"));
    PC_ASSIGN_OR_RETURN(e.valid_until, ReadValidUntil(item));
    r.entries.push_back(std::move(e));
  }
  // A batch answers every entry with explain; the body has no such field.
  PC_RETURN_IF_ERROR(ReadWriteFields(body, r).status());
  PC_ASSIGN_OR_RETURN(r.expected_revision, body.OptInt("expected_revision"));
  PC_ASSIGN_OR_RETURN(BatchOutcome out, svc.RememberBatch(r));
  Json entries = Json::array();
  for (const WriteOutcome& e : out.entries) entries.push_back(MutationJson(e, true));
  return Ok(Json{
      {"memory", ToJson(out.memory)}, {"changed", out.changed}, {"entries", std::move(entries)}});
}

Result<ApiResponse> Revise(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "citation", "kind", "text", "reason",
                                                 "actor", "explain", "evidence", "valid_until"}));
  ReviseRequest r;
  PC_ASSIGN_OR_RETURN(r.evidence, body.Strings("evidence"));
  PC_ASSIGN_OR_RETURN(r.valid_until, ReadValidUntil(body));
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  r.scope = req.ParsedScope();
  PC_ASSIGN_OR_RETURN(r.citation, body.RequiredCitation("citation"));
  PC_ASSIGN_OR_RETURN(r.kind, body.OptString("kind"));  // required by the spec; ours keeps it
  PC_ASSIGN_OR_RETURN(r.text, body.String("text"));
  PC_ASSIGN_OR_RETURN(bool explain, ReadWriteFields(body, r));
  PC_ASSIGN_OR_RETURN(WriteOutcome out, svc.Revise(r));
  return Ok(MutationJson(out, explain));
}

Result<ApiResponse> Retire(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body,
                      ParseBody(req, {"scope_id", "citation", "reason", "actor", "explain"}));
  RetireRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  r.scope = req.ParsedScope();
  PC_ASSIGN_OR_RETURN(r.citation, body.RequiredCitation("citation"));
  PC_ASSIGN_OR_RETURN(bool explain, ReadWriteFields(body, r));
  PC_ASSIGN_OR_RETURN(WriteOutcome out, svc.Retire(r));
  return Ok(MutationJson(out, explain));
}

// MemoryEntry at the citation's revision; with `explain`, also whether it is still current.
Result<ApiResponse> GetEntry(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "citation", "explain"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(Citation c, body.RequiredCitation("citation"));
  PC_ASSIGN_OR_RETURN(auto explain, body.OptBool("explain"));
  PC_ASSIGN_OR_RETURN(ReadOutcome out, svc.Read(scope_id, c));
  Json j = ToJson(MemoryEntryView{out.version, out.citation.memory, out.active_at_revision});
  if (explain.value_or(false)) {
    j["head"] = ToJson(out.head);
    j["current"] = out.current;
    AddValidity(j, out.version);
  }
  return Ok(j);
}

// The head's entries (active ones; all with include_inactive). Our listings at any revision, with
// pages, are GET /v1/memory/entries.
Result<ApiResponse> ListEntries(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "include_inactive", "min_revision"}));
  ListEntriesRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.min_revision, body.OptInt("min_revision"));
  PC_ASSIGN_OR_RETURN(auto inactive, body.OptBool("include_inactive"));
  r.include_inactive = inactive.value_or(false);
  r.page.limit = kMaxPageLimit;
  Json entries = Json::array();
  MemoryRef memory;
  while (true) {  // every entry, a store page at a time, all from the first page's revision
    PC_ASSIGN_OR_RETURN(EntriesPage out, svc.ListEntries(r));
    memory = out.memory;
    for (const ManifestItem& m : out.items)
      entries.push_back(ToJson(MemoryEntryView{m.version, out.memory, m.active}));
    if (!out.next_cursor) break;
    if (entries.size() >= kMaxUnpagedEntries)
      return TooLarge(
                 "this memory holds more than " + std::to_string(kMaxUnpagedEntries) +
                 " entries, more than entries/list answers at once: page through them with GET "
                 "/v1/memory/entries?scope_id=…&limit=1000&cursor=…")
          .WithDetail("limit", static_cast<int64_t>(kMaxUnpagedEntries))
          .WithDetail("field", "scope_id");
    r.page.cursor = *out.next_cursor;
    r.revision = out.memory.revision;
    r.valid_at = out.valid_at;  // every page judged at the first one's moment
  }
  return Ok(Json{{"memory", MemoryRefOrNull(memory)}, {"entries", entries}});
}

Json ChangeJson(const Change& c, const std::string& reason) {
  const char* op = c.op == ChangeOp::kAdd      ? "add"
                   : c.op == ChangeOp::kRevise ? "revise"
                                               : "deactivate";
  return Json{{"op", op},
              {"entry_id", c.entry_id},
              {"from_entry_version_id",
               c.op == ChangeOp::kRevise && c.from_version_id ? Json(*c.from_version_id) : Json()},
              {"to_entry_version_id", c.op == ChangeOp::kRetire ? Json() : Json(c.to_version_id)},
              {"reason", reason.empty() ? Json() : Json(reason)}};
}

Result<ApiResponse> Changes(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "since_revision"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto since, body.OptInt("since_revision"));
  PC_ASSIGN_OR_RETURN(ChangesPage out, svc.ListChanges(scope_id, since.value_or(0)));
  Json revisions = Json::array();
  for (const RevisionInfo& r : out.revisions) {
    Json changes = Json::array();
    for (const Change& c : r.changes) changes.push_back(ChangeJson(c, r.reason));
    revisions.push_back(Json{{"memory_ref", ToJson(r.memory)}, {"changes", changes}});
  }
  return Ok(Json{{"memory", MemoryRefOrNull(out.head)}, {"revisions", revisions}});
}

Result<ApiResponse> Search(SearchService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(
      Body body,
      ParseBody(req, {"scope_id", "query", "mode", "limit", "include_inactive", "min_similarity",
                      "rerank", "explain", "min_revision", "graph_hops", "feedback"}));
  SearchRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  r.scope = req.ParsedScope();
  PC_ASSIGN_OR_RETURN(r.min_revision, body.OptInt("min_revision"));
  PC_ASSIGN_OR_RETURN(r.query, body.String("query"));
  PC_RETURN_IF_ERROR(CheckQuery(r.query));
  PC_ASSIGN_OR_RETURN(auto mode, body.OptString("mode"));
  if (mode) {
    PC_ASSIGN_OR_RETURN(r.mode, ParseSearchMode(*mode));
  }
  PC_ASSIGN_OR_RETURN(auto limit, body.OptInt("limit"));
  if (limit && (*limit < 1 || *limit > kSpecSearchLimit))
    return FieldError("limit", "limit must be between 1 and " + std::to_string(kSpecSearchLimit));
  r.limit = static_cast<int>(limit.value_or(kSpecDefaultLimit));
  PC_ASSIGN_OR_RETURN(auto inactive, body.OptBool("include_inactive"));
  r.include_inactive = inactive.value_or(false);
  PC_ASSIGN_OR_RETURN(r.min_similarity, body.OptNumber("min_similarity"));
  PC_ASSIGN_OR_RETURN(auto rerank, body.OptBool("rerank"));
  r.rerank = rerank.value_or(false);
  PC_ASSIGN_OR_RETURN(auto feedback, body.OptBool("feedback"));
  r.feedback = feedback.value_or(true);
  PC_ASSIGN_OR_RETURN(auto explain, body.OptBool("explain"));
  PC_ASSIGN_OR_RETURN(auto hops, body.OptInt("graph_hops"));
  if (hops && (*hops < 1 || *hops > kMaxGraphHops))
    return FieldError("graph_hops",
                      "graph_hops must be between 1 and " + std::to_string(kMaxGraphHops));
  r.graph_hops = static_cast<int>(hops.value_or(kDefaultGraphHops));
  PC_ASSIGN_OR_RETURN(SearchResult out, svc.Search(r));
  const bool found = !out.memory.artifact_id.empty();
  Json hits = Json::array();
  for (const SearchHit& h : out.hits) {
    Json j{{"citation",
            ToJson(Citation{out.memory, h.item.version.entry_id, h.item.version.entry_version_id})},
           {"text", h.item.version.text},
           {"score", h.score},
           {"matched_by", h.matched_by}};
    if (explain.value_or(false)) {
      j["kind"] = h.item.version.kind;
      j["state"] = h.item.active ? "active" : "inactive";
      j["rerank_score"] = h.rerank_score ? Json(*h.rerank_score) : Json();
      j["hypothesis"] = IsHypothesis(h.item.version.source_refs);
      AddValidity(j, h.item.version);
    }
    hits.push_back(std::move(j));
  }
  return Ok(Json{{"memory", MemoryRefOrNull(out.memory)},
                 {"mode", found ? Json(SearchModeName(out.mode_used)) : Json()},
                 {"hits", hits}});
}

}  // namespace

void AddMemoryRoutes(Router& router, Services services) {
  MemoryService& memory = services.memory;
  router.Add("POST", "/v1/memory/remember",
             {"remember_memory", Permission::kWrite, ScopeIn::kBody, BodySize::kEntry},
             Bind(memory, Remember));
  router.Add("POST", "/v1/memory/remember/batch",
             {"remember_memory_batch", Permission::kWrite, ScopeIn::kBody, BodySize::kBatch},
             Bind(memory, RememberBatch));
  router.Add("POST", "/v1/memory/entries/list",
             {"list_memory_entries", Permission::kRead, ScopeIn::kBody}, Bind(memory, ListEntries));
  router.Add("POST", "/v1/memory/entries/get",
             {"get_memory_entry", Permission::kRead, ScopeIn::kBody}, Bind(memory, GetEntry));
  router.Add("POST", "/v1/memory/entries/revise",
             {"revise_memory_entry", Permission::kWrite, ScopeIn::kBody, BodySize::kEntry},
             Bind(memory, Revise));
  router.Add("POST", "/v1/memory/entries/retire",
             {"retire_memory_entry", Permission::kWrite, ScopeIn::kBody}, Bind(memory, Retire));
  router.Add("POST", "/v1/memory/changes",
             {"list_memory_changes", Permission::kRead, ScopeIn::kBody}, Bind(memory, Changes));
  router.Add("POST", "/v1/memory/search", {"search_memory", Permission::kRead, ScopeIn::kBody},
             Bind(services.search, Search));
}

}  // namespace pc
