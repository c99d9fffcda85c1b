// The source log and flush routes: the spec's POST /v1/sources/content and POST /v1/memory/flush;
// ours: POST /v1/sources (kind, purpose, metadata), POST /v1/sources/batch, GET /v1/sources.
// Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "common/clock.h"
#include "common/json_parse.h"
#include "common/utf8.h"

namespace pc {
namespace {

constexpr const char* kSourceFields[] = {"kind", "purpose", "content", "metadata",
                                         "idempotency_key"};

Result<SourceInput> ReadSource(const Body& body) {
  SourceInput in;
  PC_ASSIGN_OR_RETURN(in.kind, body.String("kind"));
  PC_ASSIGN_OR_RETURN(auto purpose, body.OptString("purpose"));
  if (purpose && purpose->empty())  // absent means memory; an empty string is a mistake
    return FieldError(body.Path("purpose"),
                      "purpose must be memory or archive (or left out), not empty");
  in.purpose = purpose.value_or("");
  PC_ASSIGN_OR_RETURN(in.content, body.String("content"));
  PC_ASSIGN_OR_RETURN(in.metadata_json, body.ObjectText("metadata"));
  PC_ASSIGN_OR_RETURN(in.idempotency_key, body.OptString("idempotency_key"));
  return in;
}

Json ToJson(const SourceOutcome& o) {
  Json j = ToJson(o.source);
  j["created"] = o.created;
  return j;
}

Result<ApiResponse> AddSource(SourceService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "kind", "purpose", "content",
                                                 "metadata", "idempotency_key"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(SourceInput in, ReadSource(body));
  PC_ASSIGN_OR_RETURN(auto out, svc.Add(scope_id, {in}));
  return ApiResponse{out[0].created ? 201 : 200, ToJson(out[0])};
}

Result<ApiResponse> AddSources(SourceService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "sources"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(std::vector<Body> items,
                      body.Objects("sources", {kSourceFields[0], kSourceFields[1], kSourceFields[2],
                                               kSourceFields[3], kSourceFields[4]}));
  std::vector<SourceInput> inputs;
  for (const Body& item : items) {
    PC_ASSIGN_OR_RETURN(SourceInput in, ReadSource(item));
    inputs.push_back(std::move(in));
  }
  PC_ASSIGN_OR_RETURN(auto out, svc.Add(scope_id, inputs));
  Json sources = Json::array();
  bool any_created = false;
  for (const SourceOutcome& o : out) {
    sources.push_back(ToJson(o));
    any_created = any_created || o.created;
  }
  return ApiResponse{any_created ? 201 : 200, Json{{"sources", sources}}};
}

Result<ApiResponse> ListSources(SourceService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "after", "limit"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto after, q.OptInt("after"));
  PC_ASSIGN_OR_RETURN(auto limit, q.OptInt("limit"));
  if (limit && (*limit < 1 || *limit > kMaxPageLimit))
    return FieldError("limit", "limit must be between 1 and " + std::to_string(kMaxPageLimit));
  PC_ASSIGN_OR_RETURN(
      SourcesPage page,
      svc.List(scope_id, after.value_or(0), static_cast<int>(limit.value_or(kDefaultPageLimit))));
  Json items = Json::array();
  for (const Source& s : page.items) items.push_back(ToJson(s));
  return ApiResponse{200, Json{{"sources", items},
                               {"high_watermark", page.high_watermark},
                               {"next_after", page.next_after ? Json(*page.next_after) : Json()}}};
}

// CaptureContentSourceRequest: the caller's source_id names the source for good (kept as its
// idempotency key): the same id and content again answers the first capture; other content is a
// 409 source_conflict.
constexpr size_t kMaxSourceIdChars = 256;
constexpr size_t kMaxContentChars = 200000;

Result<ApiResponse> CaptureContent(SourceService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "source_id", "content", "metadata"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  SourceInput in;
  in.kind = kContentSourceName;
  PC_ASSIGN_OR_RETURN(std::string source_id, body.String("source_id"));
  const std::optional<size_t> id_chars = CountCodePoints(source_id);
  if (source_id.empty() || !id_chars || *id_chars > kMaxSourceIdChars)
    return FieldError("source_id", "source_id must be 1 to 256 characters of UTF-8");
  PC_ASSIGN_OR_RETURN(in.content, body.String("content"));
  const std::optional<size_t> content_chars = CountCodePoints(in.content);
  if (in.content.empty() || !content_chars || *content_chars > kMaxContentChars)
    return FieldError("content", "content must be 1 to 200000 characters of UTF-8");
  PC_ASSIGN_OR_RETURN(in.metadata_json, body.ObjectText("metadata"));
  in.idempotency_key = std::move(source_id);
  PC_ASSIGN_OR_RETURN(auto out, svc.Add(scope_id, {in}));
  return ApiResponse{202, Json{{"status", "accepted"},
                               {"source", SourceRefJson(SourceRef(out[0].source))},
                               {"position", out[0].source.position}}};
}

// FlushMemoryResponse; with `explain` (ours), also the changes made and the candidates refused.
Json FlushJson(const FlushOutcome& out, bool explain) {
  Json j{{"status", out.processed ? "processed" : "idle"},
         {"previous_cursor", out.previous_cursor},
         {"current_cursor", out.current_cursor},
         {"high_watermark", out.high_watermark},
         {"processed_source_count", out.processed_source_count},
         {"memory", out.memory ? MemoryRefOrNull(*out.memory) : Json()}};
  if (!explain) return j;
  Json changes = Json::array();
  for (const FlushChange& c : out.changes) {
    Json j = ToJson(c.change);
    j["citation"] = ToJson(c.citation);
    j["entry"] = ToJson(c.version);
    changes.push_back(std::move(j));
  }
  Json rejected = Json::array();
  for (const Rejection& r : out.rejected) {
    Result<Json> candidate = ParseJson(r.candidate_json);
    rejected.push_back(
        {{"candidate", candidate.ok() ? std::move(candidate).value() : Json(r.candidate_json)},
         {"reason", r.reason}});
  }
  j["changes"] = changes;
  j["rejected"] = rejected;
  j["candidates"] = out.candidates;  // extraction_review = review: proposed, waiting in the inbox
  return j;
}

Result<ApiResponse> Flush(FlushService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "explain"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto explain, body.OptBool("explain"));
  PC_ASSIGN_OR_RETURN(FlushOutcome out, svc.Flush(scope_id));
  return ApiResponse{200, FlushJson(out, explain.value_or(false))};
}

// Ours (docs/extraction.md): the scope's last flush that processed a window, explained as the flush
// answered, with when and by whom; `last_flush` is null before the first.
Result<ApiResponse> LastFlush(FlushService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(std::optional<FlushRecord> last, svc.Last(scope_id));
  if (!last) return ApiResponse{200, Json{{"last_flush", nullptr}}};
  Json j = FlushJson(last->outcome, true);
  j["at"] = FormatTimestamp(last->at_ms);
  j["actor"] = last->actor;
  j["rejected_omitted"] = last->rejected_omitted;
  return ApiResponse{200, Json{{"last_flush", std::move(j)}}};
}

}  // namespace

void AddSourceRoutes(Router& router, Services services) {
  SourceService& sources = services.sources;
  router.Add("POST", "/v1/sources/content",
             {"capture_content_source", Permission::kWrite, ScopeIn::kBody, BodySize::kSource},
             Bind(sources, CaptureContent));
  router.Add("POST", "/v1/sources",
             {"add_source", Permission::kWrite, ScopeIn::kBody, BodySize::kSource},
             Bind(sources, AddSource));
  router.Add("POST", "/v1/sources/batch",
             {"add_sources", Permission::kWrite, ScopeIn::kBody, BodySize::kBatch},
             Bind(sources, AddSources));
  router.Add("GET", "/v1/sources", {"list_sources", Permission::kRead, ScopeIn::kQuery},
             Bind(sources, ListSources));
  router.Add("POST", "/v1/memory/flush", {"flush_memory", Permission::kWrite, ScopeIn::kBody},
             Bind(services.flush, Flush));
  router.Add("GET", "/v1/memory/flush/last", {"get_last_flush", Permission::kRead, ScopeIn::kQuery},
             Bind(services.flush, LastFlush));
}

}  // namespace pc
