// SIGKILL in the middle of a burst of writes: after a restart every acknowledged write is there,
// and no revision is half-committed.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

TEST(Crash, KillDuringBurstKeepsEveryAcknowledgedWrite) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  std::string scope;
  {
    httplib::Client c("127.0.0.1", server.port());
    auto res = c.Post("/v1/scopes", json{{"key", "crash"}}.dump(), "application/json");
    ASSERT_TRUE(res);
    scope = json::parse(res->body)["scope_id"];
  }

  struct Ack {
    std::string citation;
    std::string text;
  };
  std::mutex mu;
  std::vector<Ack> acked;
  std::atomic<bool> stop{false};
  constexpr int kWriters = 6;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      httplib::Client c("127.0.0.1", server.port());
      c.set_read_timeout(2, 0);
      for (int i = 0; !stop && i < 5000; ++i) {
        std::string text = "writer " + std::to_string(w) + " item " + std::to_string(i);
        auto res = c.Post("/v1/memory/remember",
                          json{{"scope_id", scope}, {"kind", "fact"}, {"text", text}}.dump(),
                          "application/json");
        if (!res) break;  // the server is gone
        if (res->status != 200) continue;
        std::lock_guard<std::mutex> lock(mu);
        acked.push_back({json::parse(res->body)["entry"]["citation"].dump(), text});
      }
    });
  // Let the burst run, then kill the server while requests are in flight.
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard<std::mutex> lock(mu);
    if (acked.size() >= 150) break;
  }
  server.Kill();
  stop = true;
  for (auto& t : writers) t.join();
  ASSERT_GT(acked.size(), 10u) << "the burst never got going";

  ASSERT_TRUE(server.Start());
  httplib::Client c("127.0.0.1", server.port());
  for (const Ack& a : acked) {
    auto res = c.Post("/v1/memory/entries/get",
                      json{{"scope_id", scope}, {"citation", json::parse(a.citation)}}.dump(),
                      "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << "acknowledged write lost: " << a.citation << " " << res->body;
    EXPECT_EQ(json::parse(res->body)["text"], a.text);
  }
  // Every revision 1..head is whole: exactly one add, and the head manifest holds one entry each.
  auto scope_res = c.Get("/v1/scopes/" + scope);
  int64_t head = json::parse(scope_res->body)["memory"]["revision"];
  EXPECT_GE(head, static_cast<int64_t>(acked.size()));
  int64_t seen = 0, expected_rev = head;
  std::string cursor;
  do {
    std::string path = "/v1/memory/revisions?scope_id=" + scope + "&limit=1000" +
                       (cursor.empty() ? "" : "&cursor=" + cursor);
    json page = json::parse(c.Get(path)->body);
    for (const json& r : page["revisions"]) {
      EXPECT_EQ(r["memory"]["revision"], expected_rev--);
      EXPECT_EQ(r["changes"].size(), 1u);
      ++seen;
    }
    cursor = page["next_cursor"].is_string() ? page["next_cursor"].get<std::string>() : "";
  } while (!cursor.empty());
  EXPECT_EQ(seen, head);
  int64_t entries = 0;
  cursor.clear();
  do {
    std::string path = "/v1/memory/entries?scope_id=" + scope + "&limit=1000" +
                       (cursor.empty() ? "" : "&cursor=" + cursor);
    json page = json::parse(c.Get(path)->body);
    entries += static_cast<int64_t>(page["entries"].size());
    cursor = page["next_cursor"].is_string() ? page["next_cursor"].get<std::string>() : "";
  } while (!cursor.empty());
  EXPECT_EQ(entries, head);

  // The audit log (issue 14): each committed write has exactly one audit row, written in its own
  // transaction, so SIGKILL cannot part them; every acknowledged write is among them. (A write
  // killed in flight may have committed unacknowledged: it has its row too, and its revision.)
  std::set<std::string> audited_entries;
  int64_t remember_rows = 0;
  cursor.clear();
  do {
    std::string path =
        "/v1/audit?scope_id=" + scope + "&limit=1000" + (cursor.empty() ? "" : "&cursor=" + cursor);
    auto res = c.Get(path);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    json page = json::parse(res->body);
    for (const json& e : page["events"]) {
      if (e["operation"] != "remember_memory") continue;
      EXPECT_EQ(e["result"], "ok");
      ++remember_rows;
      for (const json& id : e["targets"]["entries"]) audited_entries.insert(id.get<std::string>());
    }
    cursor = page["next_cursor"].is_string() ? page["next_cursor"].get<std::string>() : "";
  } while (!cursor.empty());
  EXPECT_EQ(remember_rows, head) << "audit rows and committed writes differ";
  for (const Ack& a : acked)
    EXPECT_TRUE(audited_entries.count(json::parse(a.citation)["entry_id"].get<std::string>()))
        << "acknowledged write without an audit row: " << a.citation;
}

}  // namespace
}  // namespace pc::testing
