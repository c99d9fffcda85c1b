// Several servers on one PostgreSQL (issue 15): three real `serve` processes on one database,
// 16 clients spread over them writing into overlapping scopes, one server killed with SIGKILL in
// the middle; then every acknowledged write is there, each scope's history is one line, exactly
// one of concurrent revisers of an entry wins, and flushes of one scope sent to different servers
// process its window once. Needs the test cluster (scripts/with-pg); skips without it (fails in
// CI).
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <tuple>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

class MultiServer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestingPostgres())
      GTEST_SKIP() << "runs once, in the main pass (it always uses PostgreSQL)";
    PC_REQUIRE_TEST_PG();
    schema_ = std::make_unique<TempPgSchema>();
    fake_ = std::make_unique<FakeOpenAi>();  // only now: a fake stopped as it starts may never stop
    for (int i = 0; i < 3; ++i) {
      std::vector<std::string> args = {"--store",
                                       schema_->url(),
                                       "--extract-provider",
                                       "openai",
                                       "--extract-base-url",
                                       fake_->base_url(),
                                       "--extract-model",
                                       "fake-chat",
                                       "--extract-timeout-seconds",
                                       "5"};
      servers_.push_back(
          std::make_unique<ServerProcess>(dir_.path() + "/server" + std::to_string(i), args));
      ASSERT_TRUE(servers_.back()->Start()) << Slurp(servers_.back()->log_path());
    }
  }

  // Every revision of the scope, newest first, read through `port`.
  std::vector<json> Revisions(int port, const std::string& scope) {
    JsonHttp http(port);
    std::vector<json> out;
    std::string cursor;
    while (true) {
      auto page = http.Get("/v1/memory/revisions?scope_id=" + scope + "&limit=100" +
                           (cursor.empty() ? "" : "&cursor=" + cursor));
      EXPECT_EQ(page.first, 200) << page.second.dump();
      if (page.first != 200) return out;
      for (const json& r : page.second["revisions"]) out.push_back(r);
      if (!page.second["next_cursor"].is_string()) return out;
      cursor = page.second["next_cursor"];
    }
  }

  TempDir dir_;
  std::unique_ptr<FakeOpenAi> fake_;
  std::unique_ptr<TempPgSchema> schema_;
  std::vector<std::unique_ptr<ServerProcess>> servers_;
};

struct Ack {
  std::string scope, op, entry_id,
      version_id;  // op as the revision log names it: add, revise, retire
};

TEST_F(MultiServer, ThreeServersLoseNothingAgreeOnHistoryAndSurviveAKill) {
  JsonHttp first(servers_[0]->port());
  std::vector<std::string> scopes;
  for (int s = 0; s < 4; ++s) {
    auto made = first.Post("/v1/scopes", json{{"key", "team:" + std::to_string(s)}});
    ASSERT_EQ(made.first, 201) << made.second.dump();
    scopes.push_back(made.second["scope_id"]);
  }

  // 16 clients, client c on server c % 3 and scope c % 4 (so each scope is written through
  // several servers): remember, then revise or retire what it remembered.
  constexpr int kClients = 16, kEach = 24;
  std::mutex mu;
  std::vector<Ack> acks;
  std::atomic<int> acknowledged{0}, lost_to_kill{0};
  std::atomic<bool> killed{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c)
    clients.emplace_back([&, c] {
      int server = c % 3;
      const std::string& scope = scopes[static_cast<size_t>(c % 4)];
      json last;  // the citation of this client's last write
      for (int i = 0; i < kEach; ++i) {
        if (killed && server == 2) server = c % 2;  // its server is gone: carry on elsewhere
        JsonHttp http(servers_[static_cast<size_t>(server)]->port());
        std::pair<int, json> res;
        std::string op = "add";
        if (last.is_object() && (i % 6 == 5 || i % 3 == 2)) {
          // Revise or retire this client's own entry. Other clients' writes to the scope move its
          // head, and a citation must name the head: on 409 the client cites the entry again at
          // the revision the error names (the version is still its own latest), as a real client
          // re-lists and retries.
          const bool retire = i % 6 == 5;
          op = retire ? "retire" : "revise";
          for (int attempt = 0; attempt < 100; ++attempt) {
            json body{{"scope_id", scope}, {"citation", last}};
            if (!retire)
              body["text"] = "client " + std::to_string(c) + " revised note " + std::to_string(i);
            res =
                http.Post(retire ? "/v1/memory/entries/retire" : "/v1/memory/entries/revise", body);
            if (res.first != 409) break;
            last["memory_ref"]["revision"] = res.second["error"]["details"]["current_revision"];
          }
        } else {
          res = http.Post("/v1/memory/remember", json{{"scope_id", scope},
                                                      {"kind", "fact"},
                                                      {"text", "client " + std::to_string(c) +
                                                                   " note " + std::to_string(i)}});
        }
        if (res.first == 0 && server == 2) {  // the server died under the request: unacknowledged
          ++lost_to_kill;
          last = json();
          continue;
        }
        ASSERT_EQ(res.first, 200) << "client " << c << " op " << i << ": " << res.second.dump();
        const json& citation = res.second["entry"]["citation"];
        last = res.second["entry"]["state"] == "inactive" ? json() : citation;
        ++acknowledged;
        std::lock_guard<std::mutex> lock(mu);
        acks.push_back({scope, op, citation["entry_id"].get<std::string>(),
                        citation["entry_version_id"].get<std::string>()});
      }
    });
  // Mid-burst, one server dies without a chance to finish anything.
  while (acknowledged < kClients * kEach / 3)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int status = servers_[2]->Kill();
  killed = true;
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the server had ended before the kill";
  for (auto& t : clients) t.join();
  EXPECT_EQ(acknowledged + lost_to_kill, kClients * kEach);

  // Every acknowledged write is in its scope's history exactly once, and each history is one line:
  // revisions head, head - 1, …, 1, none missing, none twice.
  std::map<std::string, std::multiset<std::tuple<std::string, std::string, std::string>>> committed;
  for (const std::string& scope : scopes) {
    auto revisions =
        Revisions(servers_[static_cast<size_t>(&scope - &scopes[0]) % 2]->port(), scope);
    ASSERT_FALSE(revisions.empty());
    int64_t expect = revisions.front()["memory"]["revision"];
    for (const json& r : revisions) {
      EXPECT_EQ(r["memory"]["revision"], expect) << scope << ": the history has a gap or a repeat";
      --expect;
      for (const json& ch : r["changes"])
        committed[scope].insert(
            {ch["op"].get<std::string>(), ch["entry_id"].get<std::string>(),
             ch[ch["op"] == "revise" ? "to_version_id" : "entry_version_id"].get<std::string>()});
    }
    EXPECT_EQ(expect, 0);
  }
  for (const Ack& a : acks)
    EXPECT_EQ(committed[a.scope].count({a.op, a.entry_id, a.version_id}), 1u)
        << "acknowledged " << a.op << " " << a.entry_id << "@" << a.version_id << " is not in "
        << a.scope << "'s history once";

  // Concurrent revisers of one entry, through both servers left: exactly one wins, the rest are
  // 409.
  JsonHttp other(servers_[1]->port());
  auto target = first.Post(
      "/v1/memory/remember",
      json{{"scope_id", scopes[0]}, {"kind", "decision"}, {"text", "Deploy on Tuesdays."}});
  ASSERT_EQ(target.first, 200);
  const json citation = target.second["entry"]["citation"];
  std::atomic<int> won{0}, conflicted{0};
  std::vector<std::thread> revisers;
  for (int r = 0; r < 12; ++r)
    revisers.emplace_back([&, r] {
      JsonHttp http(servers_[static_cast<size_t>(r % 2)]->port());
      auto res = http.Post("/v1/memory/entries/revise",
                           json{{"scope_id", scopes[0]},
                                {"citation", citation},
                                {"text", "Deploy on Tuesday " + std::to_string(r) + "."}});
      if (res.first == 200)
        ++won;
      else if (res.first == 409)
        ++conflicted;
      else
        ADD_FAILURE() << res.first << " " << res.second.dump();
    });
  for (auto& t : revisers) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(conflicted.load(), 11);

  // A search on one server sees a write acknowledged by the other at once; naming the write's
  // revision (read-your-writes) is answered from it, and a revision not yet committed is refused.
  auto wrote = other.Post("/v1/memory/remember",
                          json{{"scope_id", scopes[1]},
                               {"kind", "fact"},
                               {"text", "The settlement batch closes at 23:15 UTC."}});
  ASSERT_EQ(wrote.first, 200) << wrote.second.dump();
  const int64_t revision = wrote.second["memory"]["revision"].get<int64_t>();
  auto seen = first.Post(
      "/v1/memory/search",
      json{{"scope_id", scopes[1]}, {"query", "settlement batch"}, {"min_revision", revision}});
  ASSERT_EQ(seen.first, 200) << seen.second.dump();
  EXPECT_GE(seen.second["memory"]["revision"].get<int64_t>(), revision);
  ASSERT_FALSE(seen.second["hits"].empty());
  EXPECT_EQ(seen.second["hits"][0]["text"], "The settlement batch closes at 23:15 UTC.");
  auto ahead = first.Post("/v1/context/prepare", json{{"scope_id", scopes[1]},
                                                      {"query", "settlement batch"},
                                                      {"min_revision", revision + 1000}});
  EXPECT_EQ(ahead.first, 409) << ahead.second.dump();
  EXPECT_EQ(ahead.second["error"]["code"], "revision_not_visible");
  EXPECT_EQ(ahead.second["error"]["details"]["min_revision"], revision + 1000);
}

TEST_F(MultiServer, FlushesOfOneScopeOnTwoServersProcessTheWindowOnce) {
  JsonHttp a(servers_[0]->port()), b(servers_[1]->port());
  const std::string scope = a.Post("/v1/scopes", json{{"key", "team:flush"}}).second["scope_id"];
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(b.Post("/v1/sources", json{{"scope_id", scope},
                                         {"kind", "work_log"},
                                         {"content", "deploy step " + std::to_string(i) + " done"}})
                  .first,
              201);
  // Both servers ask the model (slowly, so the flushes overlap); only one may commit the window.
  fake_->ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Fact from A.", "evidence": ["S1"]}]})",
        200, 600},
       {R"({"operations": [{"op": "add", "kind": "fact", "text": "Fact from B.", "evidence": ["S2"]}]})",
        200, 600}});
  std::pair<int, json> ra, rb;
  std::thread ta([&] { ra = a.Post("/v1/memory/flush", json{{"scope_id", scope}}); });
  std::thread tb([&] { rb = b.Post("/v1/memory/flush", json{{"scope_id", scope}}); });
  ta.join();
  tb.join();
  const int processed = (ra.first == 200 && ra.second["status"] == "processed") +
                        (rb.first == 200 && rb.second["status"] == "processed");
  EXPECT_EQ(processed, 1) << ra.first << " " << ra.second.dump() << "\n"
                          << rb.first << " " << rb.second.dump();
  auto entries = a.Get("/v1/memory/entries?scope_id=" + scope);
  ASSERT_EQ(entries.first, 200);
  EXPECT_EQ(entries.second["entries"].size(), 1u)
      << "the window was committed twice: " << entries.second.dump();
  auto sources = b.Get("/v1/sources?scope_id=" + scope);
  EXPECT_EQ(sources.second["high_watermark"], 3);
  auto idle = b.Post("/v1/memory/flush", json{{"scope_id", scope}});
  EXPECT_EQ(idle.second["status"], "idle") << idle.second.dump();
}

}  // namespace
}  // namespace pc::testing
