// One in-process PowerContext for the route and MCP fuzzers: a real SQLite store in a temp dir
// (tests/test_util.h's Fixture), every service (the hash embedder, so vector and hybrid search
// run; a stand-in extraction model, so flush runs), the /v1 route table, and a scope with
// entries, a source and a handoff. Made once per process: inputs accumulate in it.
//
// Before a body is dispatched, placeholders are replaced, so seeds reach past "no such scope":
//   $SCOPE     the scope's id (its key is "project:fuzz")
//   $CITE      the current citation (string form) of an active entry, made if none is left
//   "$CITEOBJ" the same citation as a JSON object
//   $OLDCITE   the citation of the scope's first entry at revision 1 (stale once anything changed)
//   $DRAFT     a handoff draft citing an active entry; $PREPARED the prepared handoff it finalizes
//   to
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "api/router.h"
#include "common/json_parse.h"
#include "fuzz_check.h"
#include "search/hash_embedder.h"
#include "service/context/context_service.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc::fuzz {

// Answers every flush with an add (and, when entries were shown, a revise of E1) made from the
// first source shown: fuzz bytes reach flush's validation and commit.
class EchoExtractor final : public Extractor {
 public:
  std::string name() const override { return "fuzz-echo"; }
  Result<std::string> Extract(const ExtractionRequest& request) override {
    Result<Json> input = ParseJson(request.input_json);
    if (!input.ok() || !input->is_object()) return Status(Code::kProviderError, "bad input");
    const Json& sources = (*input)["sources"];
    if (!sources.is_array() || sources.empty() || !sources[0].contains("content"))
      return std::string(R"({"operations": []})");
    std::string text =
        sources[0]["content"].is_string() ? sources[0]["content"].get<std::string>() : "x";
    Json ops =
        Json::array({{{"op", "add"}, {"kind", "fact"}, {"text", text}, {"evidence", {"S1"}}}});
    const Json& entries = (*input)["entries"];
    if (entries.is_array() && !entries.empty())
      ops.push_back({{"op", "revise"},
                     {"target", "E1"},
                     {"text", text + " (revised)"},
                     {"evidence", {"S1"}}});
    return "```json\n" +
           Json{{"operations", ops}}.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n```";
  }
};

inline std::unique_ptr<testing::Fixture> MakeFixture() {
  struct stat st;  // a tmpfs for the store when there is one: fsyncs cost nothing there
  if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) setenv("TMPDIR", "/dev/shm", 0);
  return std::make_unique<testing::Fixture>();
}

class World {
 public:
  static World& Get() {
    static World world;  // destroyed at exit, which removes its temp dir
    return world;
  }

  const Router& router() const { return router_; }
  const std::string& scope_id() const { return scope_id_; }

  ApiResponse Post(const std::string& path, const std::string& body) {
    ApiRequest req{"POST", path, {}, {}, body, {}};
    return router_.Dispatch(req);
  }

  // What a failed request must leave as it was (README: "A failed request changes nothing"): the
  // scope's memory head, its source log's high watermark, its latest handoff revision. Read from
  // the services, not the routes: this runs for every input.
  struct State {
    int64_t memory = 0, high_watermark = 0, handoff = 0;
    bool operator==(const State& o) const {
      return memory == o.memory && high_watermark == o.high_watermark && handoff == o.handoff;
    }
    std::string ToString() const {
      return "memory @" + std::to_string(memory) + ", sources @" + std::to_string(high_watermark) +
             ", handoff @" + std::to_string(handoff);
    }
  };
  State Snapshot() {
    State s;
    Result<Scope> scope = memory_.GetScope(scope_id_);
    FUZZ_CHECK(scope.ok(), scope.status().ToString());
    s.memory = scope->memory_head_revision;
    Result<SourcesPage> sources = sources_.List(scope_id_, 0, 1);
    FUZZ_CHECK(sources.ok(), sources.status().ToString());
    s.high_watermark = sources->high_watermark;
    Result<Handoff> handoff = handoff_.Get(scope_id_, std::nullopt);
    FUZZ_CHECK(handoff.ok(), handoff.status().ToString());
    s.handoff = handoff->ref.revision;
    return s;
  }

  std::string Substitute(std::string body) {
    if (body.find('$') == std::string::npos) return body;
    Replace(body, "$SCOPE", scope_id_);
    if (body.find("$CITE") != std::string::npos) {
      Json cite = CurrentCitation();
      Replace(body, "\"$CITEOBJ\"", cite.dump());
      Replace(body, "$CITE", CitationString(cite));
    }
    Replace(body, "$OLDCITE", old_citation_);
    if (body.find("$DRAFT") != std::string::npos || body.find("$PREPARED") != std::string::npos) {
      Json draft = Draft();
      Replace(body, "$DRAFT", draft.dump());
      if (body.find("$PREPARED") != std::string::npos) {
        ApiResponse prepared =
            Post("/v1/handoff/finalize", Json{{"scope_id", scope_id_}, {"draft", draft}}.dump());
        FUZZ_CHECK(prepared.status == 200, prepared.body.dump());
        Replace(body, "$PREPARED", prepared.body.dump());
      }
    }
    return body;
  }

 private:
  World()
      : f_(MakeFixture()),
        memory_(*f_->store, ServiceLimits{}, &embedder_),
        search_(*f_->store, &embedder_),
        sources_(*f_->store),
        flush_(*f_->store, &extractor_, &embedder_),
        handoff_(*f_->store, nullptr),
        context_(*f_->store, search_),
        stats_(*f_->store),
        tokens_(*f_->store),
        audit_(*f_->store),
        review_(*f_->store) {
    AddRoutes(router_, Services{memory_, search_, sources_, flush_, handoff_, context_, stats_,
                                tokens_, audit_, review_});
    ApiResponse scope = Post("/v1/scopes", R"({"key": "project:fuzz"})");
    FUZZ_CHECK(scope.status == 201, scope.body.dump());
    scope_id_ = scope.body["scope_id"].get<std::string>();
    ApiResponse first =
        Post("/v1/memory/remember", Substitute(R"({"scope_id": "$SCOPE", "kind": "decision",
        "text": "Orders are imported from the nightly CSV export, not from the live API."})"));
    FUZZ_CHECK(first.status == 200, first.body.dump());
    old_citation_ = CitationString(first.body["entry"]["citation"]);
    for (
        const char* body :
        {R"({"scope_id": "$SCOPE", "kind": "fact", "text": "订单导入器使用 PostgreSQL 15。"})",
         R"({"scope_id": "$SCOPE", "kind": "constraint", "text": "json_codec.cc must reject unknown fields."})"}) {
      ApiResponse r = Post("/v1/memory/remember", Substitute(body));
      FUZZ_CHECK(r.status == 200, r.body.dump());
    }
    ApiResponse source =
        Post("/v1/sources", Substitute(R"({"scope_id": "$SCOPE", "kind": "work_log",
        "content": "Ran the contract tests after the migration: 12 passed, 1 flaky."})"));
    FUZZ_CHECK(source.status == 201, source.body.dump());
    ApiResponse handoff =
        Post("/v1/handoff/commit", Substitute(R"({"scope_id": "$SCOPE", "handoff": $PREPARED})"));
    FUZZ_CHECK(handoff.status == 200, handoff.body.dump());
  }

  ApiResponse Get(const std::string& path, std::multimap<std::string, std::string> query) {
    ApiRequest req{"GET", path, {}, std::move(query), "", {}};
    return router_.Dispatch(req);
  }

  // {memory_ref, entry_id, entry_version_id} in its string form (memory/mem_…@R#ent_…@env_…).
  static std::string CitationString(const Json& c) {
    const Json& m = c["memory_ref"];
    return m["family"].get<std::string>() + "/" + m["artifact_id"].get<std::string>() + "@" +
           std::to_string(m["revision"].get<int64_t>()) + "#" + c["entry_id"].get<std::string>() +
           "@" + c["entry_version_id"].get<std::string>();
  }

  static void Replace(std::string& s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  }

  // A handoff draft (RFC 0048) whose one statement cites an active entry at the head.
  Json Draft() {
    Json cite{{"kind", "memory"}, {"memory_citation", CurrentCitation()}};
    return Json{{"objective", "Ship the orders importer."},
                {"state", Json::array({Json{{"text", "Schema migration merged."},
                                            {"citations", Json::array({cite})}}})},
                {"disposition", "continuable"},
                {"next_action",
                 Json{{"text", "Wire the CSV validator."}, {"citations", Json::array({cite})}}},
                {"omissions", Json::array()}};
  }

  // An active entry's citation at the head; remembers one when every entry has been retired.
  Json CurrentCitation() {
    for (int attempt = 0; attempt < 2; ++attempt) {
      ApiResponse list = Get("/v1/memory/entries", {{"scope_id", scope_id_}, {"limit", "1"}});
      FUZZ_CHECK(list.status == 200, list.body.dump());
      if (!list.body["entries"].empty()) return list.body["entries"][0]["citation"];
      Post("/v1/memory/remember",
           Substitute(R"({"scope_id": "$SCOPE", "kind": "fact", "text": "Made again."})"));
    }
    FUZZ_CHECK(false, "no active entry after remember");
    return Json();
  }

  std::unique_ptr<testing::Fixture> f_;
  HashEmbedder embedder_{64};
  EchoExtractor extractor_;
  MemoryService memory_;
  SearchService search_;
  SourceService sources_;
  FlushService flush_;
  HandoffService handoff_;
  ContextService context_;
  StatsService stats_;
  TokenService tokens_;
  AuditService audit_;
  ReviewService review_;
  Router router_;
  std::string scope_id_;
  std::string old_citation_;
};

}  // namespace pc::fuzz
