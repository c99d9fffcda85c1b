// Every POST route's JSON request decoding, in process, over a real store (fuzz_world.h).
//
// Input: the first byte picks the route, (byte - 'a') mod 19 in the order of kRoutes ('a' is
// /v1/scopes, 'b' /v1/memory/remember, … 'l' /v1/handoff/commit, … 's'); the rest is the body,
// with the placeholders of fuzz_world.h ($SCOPE, $CITE, "$CITEOBJ", $OLDCITE, $DRAFT, $PREPARED)
// replaced.
//
// Checked: nothing throws or crashes; no answer is a 500 (Dispatch turns an exception into
// "internal"); every error has the {"error": {code, message, details}} shape and reads back as a
// Status (what MCP does with it); a failed request, or a write that changed nothing, leaves the
// scope's memory head, source log and handoff as they were.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_world.h"
#include "wire/error_json.h"

namespace {

// The route table's POST paths (src/api/routes.cc, source_routes.cc, context_routes.cc). A path
// that stops answering POST fails the first run (see Init).
constexpr const char* kRoutes[] = {
    "/v1/scopes",
    "/v1/memory/remember",
    "/v1/memory/entries/revise",
    "/v1/memory/entries/retire",
    "/v1/memory/entries/get",
    "/v1/memory/search",
    "/v1/memory/reindex",
    "/v1/sources",
    "/v1/sources/batch",
    "/v1/memory/flush",
    "/v1/context/prepare",
    "/v1/handoff/commit",
    "/v1/sources/content",
    "/v1/memory/entries/list",
    "/v1/memory/changes",
    "/v1/handoff/finalize",
    "/v1/handoff/continue",
    "/v1/handoff/prepare",
    "/v1/handoff/activate",
};
constexpr size_t kRouteCount = sizeof(kRoutes) / sizeof(kRoutes[0]);

pc::fuzz::World& Init() {
  static pc::fuzz::World& world = []() -> pc::fuzz::World& {
    pc::fuzz::World& w = pc::fuzz::World::Get();
    for (const char* path : kRoutes) {
      pc::ApiResponse r = w.Post(path, "{}");
      FUZZ_CHECK(r.status != 404 && r.status != 405, std::string("not a POST route: ") + path);
    }
    return w;
  }();
  return world;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  fuzz::World& world = Init();
  if (size == 0) return 0;
  const char* path = kRoutes[(data[0] + 256 * kRouteCount - 'a') % kRouteCount];
  std::string body =
      world.Substitute(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));

  const fuzz::World::State before = world.Snapshot();
  ApiResponse res = world.Post(path, body);
  const std::string where = std::string(path) + " " + fuzz::Printable(body) + "\n  answered " +
                            res.body.dump(-1, ' ', false, Json::error_handler_t::replace);
  FUZZ_CHECK(res.status != 500, "internal error: " + where);
  FUZZ_CHECK(res.status >= 200 && res.status < 600, where);
  if (res.status >= 400) {
    FUZZ_CHECK(res.body.is_object() && res.body.contains("error") && res.body["error"].is_object(),
               where);
    const Json& e = res.body["error"];
    FUZZ_CHECK(e.contains("code") && e["code"].is_string() && e.contains("message") &&
                   e["message"].is_string() && e.contains("details") && e["details"].is_object(),
               where);
    Status s = ErrorFromJson(res.status, res.body);
    FUZZ_CHECK(!s.ok(), where);
  } else {
    FUZZ_CHECK(res.body.is_object(), where);
  }
  // A write that changed nothing: explain's changed=false, or the spec's remember answer whose
  // entry is null (the text was there already).
  const bool unchanged_write =
      res.status == 200 && ((res.body.contains("changed") && res.body["changed"] == false) ||
                            (std::string(path) == "/v1/memory/remember" &&
                             res.body.contains("entry") && res.body["entry"].is_null()));
  if (res.status >= 400 || unchanged_write) {
    const fuzz::World::State after = world.Snapshot();
    FUZZ_CHECK(after == before,
               "changed " + before.ToString() + " → " + after.ToString() + ": " + where);
  }
  return 0;
}
