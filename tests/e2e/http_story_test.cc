// End to end over HTTP against the real binary: FRESH phase (the whole write/revise/retire/
// conflict/history story and every kind of bad input), then RESTARTED on the same directory
// (every revision and citation reads back exactly).
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

struct StoryHttp {
  httplib::Client client;
  explicit StoryHttp(int port) : client("127.0.0.1", port) {}

  std::pair<int, json> Post(const std::string& path, const std::string& raw) {
    auto res = client.Post(path, raw, "application/json");
    EXPECT_TRUE(res) << "no answer from POST " << path;
    if (!res) return {0, json()};
    return {res->status, json::parse(res->body)};
  }
  std::pair<int, json> Post(const std::string& path, const json& body) {
    return Post(path, body.dump());
  }
  std::pair<int, json> Get(const std::string& path) {
    auto res = client.Get(path);
    EXPECT_TRUE(res) << "no answer from GET " << path;
    if (!res) return {0, json()};
    return {res->status, json::parse(res->body)};
  }
};

void ExpectError(const std::pair<int, json>& r, int status, const std::string& code) {
  EXPECT_EQ(r.first, status) << r.second.dump();
  ASSERT_TRUE(r.second.contains("error")) << r.second.dump();
  EXPECT_EQ(r.second["error"]["code"], code) << r.second.dump();
  EXPECT_TRUE(r.second["error"]["message"].is_string());
  EXPECT_TRUE(r.second["error"]["details"].is_object());
}

TEST(HttpStory, FreshThenRestarted) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  StoryHttp http(server.port());

  // ---- FRESH
  auto created = http.Post("/v1/scopes", json{{"key", "project:orders-importer"}});
  ASSERT_EQ(created.first, 201);
  std::string scope = created.second["scope_id"];
  auto again = http.Post("/v1/scopes", json{{"key", "project:orders-importer"}});
  EXPECT_EQ(again.first, 200);
  EXPECT_EQ(again.second["scope_id"], scope);
  EXPECT_FALSE(again.second["created"].get<bool>());

  auto remember = [&](const std::string& kind, const std::string& text) {
    return http.Post("/v1/memory/remember",
                     json{{"scope_id", scope}, {"kind", kind}, {"text", text}, {"explain", true}});
  };
  auto a = remember("decision", "Run contract tests after the schema migration.");
  ASSERT_EQ(a.first, 200) << a.second.dump();
  EXPECT_TRUE(a.second["changed"].get<bool>());
  EXPECT_EQ(a.second["memory"]["revision"], 1);
  EXPECT_EQ(a.second["entry"]["version"], 1);
  EXPECT_EQ(a.second["entry"]["state"], "active");
  EXPECT_EQ(a.second["memory"]["family"], "memory");
  EXPECT_EQ(a.second["entry"]["citation"]["memory_ref"], a.second["memory"]);
  auto b = remember("fact", "订单导入器使用 PostgreSQL 15。");
  ASSERT_EQ(b.first, 200);
  auto dup = remember("decision", "Run  contract tests after the schema migration. ");
  EXPECT_EQ(dup.first, 200);
  EXPECT_FALSE(dup.second["changed"].get<bool>());
  EXPECT_TRUE(dup.second["entry"].is_null());
  EXPECT_EQ(dup.second["memory"]["revision"], 2);
  EXPECT_EQ(dup.second["duplicate_of"]["entry_id"], a.second["entry"]["citation"]["entry_id"]);
  // Without explain the answer is the spec's MemoryMutationResponse: memory and entry only.
  auto plain = http.Post("/v1/memory/remember",
                         json{{"scope_id", scope},
                              {"kind", "decision"},
                              {"text", "Run contract tests after the schema migration."}});
  EXPECT_EQ(plain.first, 200);
  EXPECT_EQ(plain.second.size(), 2u) << plain.second.dump();
  EXPECT_TRUE(plain.second["entry"].is_null());

  // Stale citation (a at r1, head r2): 409 with the current revision, string or object form.
  auto stale = http.Post("/v1/memory/entries/revise",
                         json{{"scope_id", scope},
                              {"citation", CitationString(a.second["entry"]["citation"])},
                              {"text", "x"}});
  ExpectError(stale, 409, "revision_conflict");
  EXPECT_EQ(stale.second["error"]["details"]["current_revision"], 2);
  auto stale_obj =
      http.Post("/v1/memory/entries/retire",
                json{{"scope_id", scope}, {"citation", a.second["entry"]["citation"]}});
  ExpectError(stale_obj, 409, "revision_conflict");

  auto listed = http.Get("/v1/memory/entries?scope_id=" + scope);
  ASSERT_EQ(listed.first, 200);
  ASSERT_EQ(listed.second["entries"].size(), 2u);
  json a_now = listed.second["entries"][0]["citation"];
  auto revised = http.Post("/v1/memory/entries/revise",
                           json{{"scope_id", scope},
                                {"citation", a_now},
                                {"text", "Run contract tests before the schema migration."},
                                {"reason", "order matters"}});
  ASSERT_EQ(revised.first, 200) << revised.second.dump();
  EXPECT_EQ(revised.second["entry"]["version"], 2);
  EXPECT_EQ(revised.second["entry"]["citation"]["entry_id"],
            a.second["entry"]["citation"]["entry_id"]);
  json b_now = http.Get("/v1/memory/entries?scope_id=" + scope).second["entries"][1]["citation"];
  auto retired = http.Post("/v1/memory/entries/retire",
                           json{{"scope_id", scope}, {"citation", CitationString(b_now)}});
  ASSERT_EQ(retired.first, 200);
  EXPECT_EQ(retired.second["entry"]["state"], "inactive");
  auto retired_again =
      http.Post("/v1/memory/entries/retire",
                json{{"scope_id", scope}, {"citation", retired.second["entry"]["citation"]}});
  ExpectError(retired_again, 409, "revision_conflict");
  EXPECT_NE(retired_again.second["error"]["message"].get<std::string>().find("retired"),
            std::string::npos);

  // ---- bad input: each a JSON error with the right status, and nothing changes.
  const int head = 4;
  ExpectError(http.Post("/v1/memory/remember", std::string("{\"scope_id\":")), 422,
              "invalid_request");
  ExpectError(http.Post("/v1/memory/remember", std::string("[]")), 422, "invalid_request");
  ExpectError(http.Post("/v1/memory/remember", json{{"scope_id", scope}, {"kind", "fact"}}), 422,
              "invalid_request");
  ExpectError(
      http.Post("/v1/memory/remember", json{{"scope_id", scope}, {"kind", "fact"}, {"text", 5}}),
      422, "invalid_request");
  ExpectError(http.Post("/v1/memory/remember",
                        json{{"scope_id", scope}, {"kind", "fact"}, {"text", "x"}, {"txet", "y"}}),
              422, "invalid_request");
  ExpectError(http.Post("/v1/memory/remember",
                        "{\"scope_id\":\"" + scope + "\",\"kind\":\"fact\",\"text\":\"\xc3\x28\"}"),
              422, "invalid_request");
  ExpectError(remember("fact", "  \n\t "), 422, "invalid_request");
  ExpectError(remember("fact", std::string(16 * 1024 + 1, 'x')), 422, "too_large");
  ExpectError(remember("a\nkind", "x"), 422, "invalid_request");
  ExpectError(remember(std::string(129, 'k'), "x"), 422, "invalid_request");
  // scp_… names are the server's: a write to one it never issued creates nothing.
  ExpectError(http.Post("/v1/memory/remember", json{{"scope_id", "scp_01M8NBY5Z4E603HKW9W05XEGN8"},
                                                    {"kind", "fact"},
                                                    {"text", "x"}}),
              422, "invalid_request");
  ExpectError(http.Post("/v1/memory/remember",
                        json{{"scope_id", std::string(257, 's')}, {"kind", "fact"}, {"text", "x"}}),
              422, "invalid_request");
  ExpectError(http.Post("/v1/memory/remember",
                        json{{"scope_id", " \t\u3000"}, {"kind", "fact"}, {"text", "x"}}),
              422, "invalid_request");
  ExpectError(
      http.Post(
          "/v1/memory/remember",
          json{{"scope_id", scope}, {"kind", "fact"}, {"text", "x"}, {"expected_revision", 1}}),
      409, "revision_conflict");
  ExpectError(http.Post("/v1/memory/entries/revise",
                        json{{"scope_id", scope}, {"citation", "nonsense"}, {"text", "x"}}),
              422, "invalid_request");
  ExpectError(http.Get("/v1/memory/entries?scope_id=" + scope + "&limit=0"), 422,
              "invalid_request");
  ExpectError(http.Get("/v1/memory/entries?scope_id=" + scope + "&limit=1001"), 422,
              "invalid_request");
  ExpectError(http.Get("/v1/memory/entries"), 422, "invalid_request");
  ExpectError(http.Get("/v1/memory/entries?scope_id=" + scope + "&bogus=1"), 422,
              "invalid_request");
  ExpectError(http.Get("/v1/no/such/route"), 404, "not_found");
  auto wrong_method = http.client.Delete("/v1/memory/remember");
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 405);
  EXPECT_EQ(wrong_method->get_header_value("Allow"), "POST");
  EXPECT_EQ(json::parse(wrong_method->body)["error"]["code"], "method_not_allowed");
  ExpectError(http.Get("/v1/memory/remember"), 405, "method_not_allowed");
  auto huge = http.client.Post("/v1/memory/remember", std::string(9 * 1024 * 1024, 'x'),
                               "application/json");
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413);
  EXPECT_EQ(json::parse(huge->body)["error"]["code"], "too_large");
  EXPECT_EQ(http.Get("/v1/scopes/" + scope).second["memory"]["revision"], head);
  EXPECT_EQ(http.Get("/v1/scopes").second["scopes"].size(), 1u)
      << "a refused write created a scope";
  ExpectError(http.Get("/v1/memory/entries?scope_id=%FF"), 422, "invalid_request");

  // Pagination over revisions.
  auto page1 = http.Get("/v1/memory/revisions?scope_id=" + scope + "&limit=3");
  ASSERT_EQ(page1.first, 200);
  ASSERT_EQ(page1.second["revisions"].size(), 3u);
  EXPECT_EQ(page1.second["revisions"][0]["memory"]["revision"], 4);
  ASSERT_TRUE(page1.second["next_cursor"].is_string());
  auto page2 = http.Get("/v1/memory/revisions?scope_id=" + scope +
                        "&limit=3&cursor=" + page1.second["next_cursor"].get<std::string>());
  ASSERT_EQ(page2.second["revisions"].size(), 1u);
  EXPECT_TRUE(page2.second["next_cursor"].is_null());

  // Snapshot everything readable, to compare after the restart.
  std::vector<json> citations = {a.second["entry"]["citation"], b.second["entry"]["citation"],
                                 revised.second["entry"]["citation"],
                                 retired.second["entry"]["citation"]};
  std::vector<json> reads;
  for (const json& c : citations) {
    auto r =
        http.Post("/v1/memory/entries/get",
                  json{{"scope_id", scope}, {"citation", CitationString(c)}, {"explain", true}});
    ASSERT_EQ(r.first, 200) << r.second.dump();
    reads.push_back(r.second);
  }
  EXPECT_EQ(reads[0]["text"], "Run contract tests after the schema migration.");
  EXPECT_FALSE(reads[0]["current"].get<bool>());
  EXPECT_TRUE(reads[2]["current"].get<bool>());
  std::vector<json> manifests;
  for (int r = 1; r <= head; ++r)
    manifests.push_back(
        http.Get("/v1/memory/revisions/" + std::to_string(r) + "?scope_id=" + scope).second);
  json history = http.Get("/v1/memory/revisions?scope_id=" + scope).second;
  json versions = http.Get("/v1/memory/entries/" +
                           a.second["entry"]["citation"]["entry_id"].get<std::string>() +
                           "/versions?scope_id=" + scope)
                      .second;
  ASSERT_EQ(versions["versions"].size(), 2u);

  // ---- RESTARTED
  server.Stop();
  ASSERT_TRUE(server.Start());
  StoryHttp after(server.port());
  for (size_t i = 0; i < citations.size(); ++i) {
    auto r = after.Post("/v1/memory/entries/get",
                        json{{"scope_id", scope}, {"citation", citations[i]}, {"explain", true}});
    ASSERT_EQ(r.first, 200);
    EXPECT_EQ(r.second, reads[i]);
  }
  for (int r = 1; r <= head; ++r)
    EXPECT_EQ(after.Get("/v1/memory/revisions/" + std::to_string(r) + "?scope_id=" + scope).second,
              manifests[static_cast<size_t>(r - 1)]);
  EXPECT_EQ(after.Get("/v1/memory/revisions?scope_id=" + scope).second, history);
  EXPECT_EQ(after
                .Get("/v1/memory/entries/" +
                     a.second["entry"]["citation"]["entry_id"].get<std::string>() +
                     "/versions?scope_id=" + scope)
                .second,
            versions);
  // And the story goes on from the same head.
  auto next = after.Post("/v1/memory/remember", json{{"scope_id", scope},
                                                     {"kind", "fact"},
                                                     {"text", "after restart"},
                                                     {"expected_revision", head}});
  ASSERT_EQ(next.first, 200);
  EXPECT_EQ(next.second["memory"]["revision"], head + 1);
}

// A JSON body sent as form data (curl -d's default content type) is read like any other, past
// cpp-httplib's 8 KiB form limit; bodies of any method reach the route table (405, not 400).
TEST(HttpStory, BodiesOfAnyContentTypeAndMethod) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  StoryHttp http(server.port());
  std::string scope = http.Post("/v1/scopes", json{{"key", "k"}}).second["scope_id"];
  json big{{"scope_id", scope}, {"kind", "fact"}, {"text", std::string(9000, 'z')}};
  // What `curl -d` sends: refused before the body is read (415), with nothing written.
  auto form =
      http.client.Post("/v1/memory/remember", big.dump(), "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415) << form->body;
  auto res = http.client.Post("/v1/memory/remember", big.dump(), "application/json; charset=utf-8");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  auto put = http.client.Put("/v1/health", "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  auto with_query =
      http.client.Post("/v1/scopes?limit=2", json{{"key", "k"}}.dump(), "application/json");
  ASSERT_TRUE(with_query);
  EXPECT_EQ(with_query->status, 422);
  auto head = http.client.Head("/v1/health");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  auto multipart =
      http.client.Post("/v1/memory/remember", "--x--", "multipart/form-data; boundary=x");
  ASSERT_TRUE(multipart);
  EXPECT_EQ(multipart->status, 415);
  EXPECT_EQ(http.Get("/v1/scopes/" + scope).second["memory"]["revision"], 1);
}

// Search over HTTP with the offline hash embedder: every mode, capabilities, reindex, and the
// vector projection surviving a restart.
TEST(HttpStory, SearchModesAcrossARestart) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data", {"--embed-provider", "hash"});
  ASSERT_TRUE(server.Start());
  StoryHttp http(server.port());
  std::string scope = http.Post("/v1/scopes", json{{"key", "search"}}).second["scope_id"];
  for (const char* text :
       {"Run contract tests after the schema migration.", "订单导入器使用 PostgreSQL 15 数据库。",
        "Bart danced at the Christmas party."})
    ASSERT_EQ(http.Post("/v1/memory/remember",
                        json{{"scope_id", scope}, {"kind", "fact"}, {"text", text}})
                  .first,
              200);
  auto caps = http.Get("/v1/capabilities/search?scope_id=" + scope);
  ASSERT_EQ(caps.first, 200);
  EXPECT_TRUE(caps.second["modes"]["hybrid"]["available"].get<bool>());
  EXPECT_FALSE(caps.second["modes"]["rerank"]["available"].get<bool>());
  for (const char* mode : {"fts", "vector", "hybrid", "auto"}) {
    auto r = http.Post("/v1/memory/search",
                       json{{"scope_id", scope}, {"query", "数据库"}, {"mode", mode}});
    ASSERT_EQ(r.first, 200) << mode << " " << r.second.dump();
    ASSERT_FALSE(r.second["hits"].empty()) << mode;
    EXPECT_EQ(r.second["hits"][0]["text"], "订单导入器使用 PostgreSQL 15 数据库。") << mode;
    EXPECT_EQ(r.second["memory"]["revision"], 3);
    EXPECT_EQ(r.second["hits"][0]["citation"]["memory_ref"], r.second["memory"]);
    EXPECT_EQ(r.second["mode"], std::string(mode) == "auto" ? "hybrid" : mode);
    for (const json& h : r.second["hits"]) {
      EXPECT_GE(h["score"].get<double>(), 0.0) << mode;
      EXPECT_LE(h["score"].get<double>(), 1.0) << mode;
    }
  }
  EXPECT_EQ(
      http.Post("/v1/memory/search", json{{"scope_id", scope}, {"query", "x"}, {"mode", "auto"}})
          .second["mode"],
      "hybrid");
  ExpectError(http.Post("/v1/memory/search",
                        json{{"scope_id", scope}, {"query", "x"}, {"mode", "nearest"}}),
              422, "invalid_request");
  ExpectError(
      http.Post("/v1/memory/search", json{{"scope_id", scope}, {"query", "x"}, {"rerank", true}}),
      503, "capability_unavailable");
  auto reindex = http.Post("/v1/memory/reindex", json{{"scope_id", scope}});
  ASSERT_EQ(reindex.first, 200);
  EXPECT_EQ(reindex.second["missing"], 0);

  // RESTARTED without an embedder: fts still works, vector says why not, auto says fts.
  server.Stop();
  ServerProcess plain(dir.path() + "/data");
  ASSERT_TRUE(plain.Start());
  StoryHttp after(plain.port());
  ExpectError(after.Post("/v1/memory/search",
                         json{{"scope_id", scope}, {"query", "x"}, {"mode", "vector"}}),
              503, "capability_unavailable");
  auto fallback = after.Post("/v1/memory/search", json{{"scope_id", scope}, {"query", "contract"}});
  ASSERT_EQ(fallback.first, 200);
  EXPECT_EQ(fallback.second["mode"], "fts");
  plain.Stop();
  // RESTARTED with the embedder again: the stored vectors serve at once.
  ServerProcess again(dir.path() + "/data", {"--embed-provider", "hash"});
  ASSERT_TRUE(again.Start());
  StoryHttp third(again.port());
  auto v = third.Post("/v1/memory/search",
                      json{{"scope_id", scope}, {"query", "Christmas party"}, {"mode", "vector"}});
  ASSERT_EQ(v.first, 200) << v.second.dump();
  EXPECT_EQ(v.second["hits"][0]["text"], "Bart danced at the Christmas party.");
}

// The embedding endpoint down during a write: the write is kept, the vector is missing, and the
// server's background pass fills it once the endpoint is back (here: at the next start).
TEST(HttpStory, BackgroundBackfillAfterAnOutage) {
  FakeOpenAi fake(64);
  TempDir dir;
  std::vector<std::string> flags = {
      "--embed-provider", "openai", "--embed-base-url",  fake.base_url(),
      "--embed-model",    "fake",   "--embed-dimension", "64"};
  ServerProcess server(dir.path() + "/data", flags);
  ASSERT_TRUE(server.Start());
  StoryHttp http(server.port());
  std::string scope = http.Post("/v1/scopes", json{{"key", "outage"}}).second["scope_id"];
  fake.set_failing(true);
  auto written = http.Post(
      "/v1/memory/remember",
      json{{"scope_id", scope}, {"kind", "fact"}, {"text", "Deploys happen on Tuesdays."}});
  ASSERT_EQ(written.first, 200);
  EXPECT_FALSE(http.Get("/v1/capabilities/search?scope_id=" + scope)
                   .second["modes"]["vector"]["available"]
                   .get<bool>());
  server.Stop();
  fake.set_failing(false);
  ServerProcess again(dir.path() + "/data", flags);
  ASSERT_TRUE(again.Start());
  StoryHttp after(again.port());
  bool available = false;
  for (int i = 0; i < 400 && !available;
       ++i) {  // up to 20 s: a loaded machine (the suite in parallel, PostgreSQL)
    available = after.Get("/v1/capabilities/search?scope_id=" + scope)
                    .second["modes"]["vector"]["available"]
                    .get<bool>();
    if (!available) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(available) << "the background pass did not complete the vectors";
  auto v = after.Post("/v1/memory/search",
                      json{{"scope_id", scope}, {"query", "deploys tuesdays"}, {"mode", "vector"}});
  ASSERT_EQ(v.first, 200) << v.second.dump();
  EXPECT_EQ(v.second["hits"][0]["text"], "Deploys happen on Tuesdays.");
}

TEST(HttpStory, ManyConcurrentClientsLoseNothing) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  StoryHttp http(server.port());
  std::string scope = http.Post("/v1/scopes", json{{"key", "k"}}).second["scope_id"];
  constexpr int kClients = 16, kEach = 20;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", server.port());
      client.set_keep_alive(c % 2 == 0);  // half reuse a connection, half open one per request
      for (int i = 0; i < kEach; ++i) {
        json body{{"scope_id", scope},
                  {"kind", "fact"},
                  {"text", "client " + std::to_string(c) + " write " + std::to_string(i)}};
        auto res = client.Post("/v1/memory/remember", body.dump(), "application/json");
        if (res && res->status == 200)
          ++ok;
        else
          ADD_FAILURE() << (res ? std::to_string(res->status) + " " + res->body
                                : "transport error " + httplib::to_string(res.error()));
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kClients * kEach);
  auto scope_now = http.Get("/v1/scopes/" + scope);
  EXPECT_EQ(scope_now.second["memory"]["revision"], kClients * kEach);
  auto entries = http.Get("/v1/memory/entries?scope_id=" + scope + "&limit=1000");
  EXPECT_EQ(entries.second["entries"].size(), static_cast<size_t>(kClients * kEach));
}

// A caller-chosen scope id and our scp_ id are one namespace: the name and the id POST /v1/scopes
// issues for it reach the same memory; names compare byte for byte; first writes that race on a
// new name make one scope and lose nothing; reads of a name nobody wrote to create nothing.
TEST(HttpStory, CallerNamedScopes) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  StoryHttp http(server.port());
  auto remember = [&](const std::string& scope, const std::string& text) {
    return http.Post("/v1/memory/remember",
                     json{{"scope_id", scope}, {"kind", "fact"}, {"text", text}});
  };
  auto search = [&](const std::string& scope, const std::string& query) {
    return http.Post("/v1/memory/search", json{{"scope_id", scope}, {"query", query}});
  };
  // Reads of a name nobody wrote to: the spec's empty answers, and no scope made.
  auto none = search("project:orders", "anything");
  EXPECT_EQ(none.first, 200);
  EXPECT_TRUE(none.second["hits"].empty());
  EXPECT_TRUE(none.second["memory"].is_null());
  EXPECT_EQ(http.Post("/v1/memory/entries/list", json{{"scope_id", "project:orders"}})
                .second["entries"]
                .size(),
            0u);
  EXPECT_EQ(http.Post("/v1/memory/changes", json{{"scope_id", "project:orders"}})
                .second["revisions"]
                .size(),
            0u);
  EXPECT_TRUE(http.Get("/v1/scopes").second["scopes"].empty());

  ASSERT_EQ(remember("project:orders", "Orders come from the nightly CSV export.").first, 200);
  auto issued = http.Post("/v1/scopes", json{{"key", "project:orders"}});
  EXPECT_EQ(issued.first, 200);  // it exists already: the first write made it
  const std::string id = issued.second["scope_id"];
  EXPECT_EQ(id.rfind("scp_", 0), 0u);
  ASSERT_EQ(remember(id, "Amounts are integer cents.").first, 200);
  EXPECT_EQ(search("project:orders", "cents").second["hits"].size(), 1u);
  EXPECT_EQ(search(id, "CSV").second["hits"].size(), 1u);
  EXPECT_EQ(search(id, "CSV").second["memory"], search("project:orders", "CSV").second["memory"]);

  // Byte for byte: another case, a trailing space, another Unicode form are other scopes.
  for (const std::string other : {"Project:orders", "project:orders ", "ｐroject:orders"}) {
    EXPECT_TRUE(search(other, "CSV").second["hits"].empty()) << other;
    ASSERT_EQ(remember(other, "Mine alone.").first, 200) << other;
    EXPECT_EQ(search(other, "CSV").second["hits"].size(), 0u) << other;
  }
  EXPECT_EQ(search("project:orders", "alone").second["hits"].size(), 0u);
  EXPECT_EQ(http.Get("/v1/scopes").second["scopes"].size(), 4u);
  // The server's prefix is the server's: a scp_ name it never issued is refused, not created.
  auto forged = remember("scp_01M8NBY5Z4E603HKW9W05XEGN8", "x");
  EXPECT_EQ(forged.first, 422);
  EXPECT_EQ(http.Get("/v1/scopes").second["scopes"].size(), 4u);

  // Sixteen clients' first writes to one new name: one scope, every write kept.
  constexpr int kClients = 16;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int c = 0; c < kClients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", server.port());
      auto res = client.Post("/v1/memory/remember",
                             json{{"scope_id", "project:raced"},
                                  {"kind", "fact"},
                                  {"text", "first write " + std::to_string(c)}}
                                 .dump(),
                             "application/json");
      if (res && res->status == 200) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kClients);
  auto raced = http.Get("/v1/scopes?key=project:raced");
  ASSERT_EQ(raced.second["scopes"].size(), 1u);
  EXPECT_EQ(raced.second["scopes"][0]["memory"]["revision"], kClients);
}

}  // namespace
}  // namespace pc::testing
