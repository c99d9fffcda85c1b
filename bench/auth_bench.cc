// What authentication and the audit log cost per request (issue 14: within 10% of before).
//
//   build/bench/auth_bench [--requests 400] [--rounds 7] [--durability normal|full]
//
// Two real HttpServers in one process, each over its own fresh store, same settings otherwise:
//   before  auth off, writes without audit rows (what a server did before issue 14);
//   after   auth on: every request's bearer token looked up in the store (SHA-256, an index seek)
//           and checked against the route's permission and scope patterns (the token is limited
//           to project:bench-*), and every write's audit row appended in its transaction.
// One keep-alive client sends `requests` remembers, then `requests` searches, to each server in
// turn, `rounds` times (alternating, so drift on a shared machine hits both alike). Reported: the
// median over rounds of each round's p50, and the ratio after / before.
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/http_server.h"
#include "app/config.h"
#include "app/runtime.h"
#include "bench_util.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

struct Side {
  std::string dir;
  std::unique_ptr<Runtime> rt;
  std::unique_ptr<HttpServer> server;
  std::thread serving;
  std::string token;
};

bool Start(Side& s, bool secured, const std::string& durability) {
  s.dir = ScratchDir(secured ? "pcauth-after" : "pcauth-before");
  Config config;
  config.data_dir = s.dir;
  config.durability = durability;
  s.rt = std::move(BuildRuntime(config)).value();
  static_cast<sqlite::SqliteStore&>(*s.rt->store).set_audit_for_benchmark(secured);
  HttpOptions http;
  http.port = 0;
  http.auth = secured;
  http.access_log = AccessLog::kOff;  // the log is the same either way; keep the terminal quiet
  if (secured) {
    auto made = s.rt->tokens->Create({"bench-agent", "writer", {"project:bench-*"}, ""}, "bench");
    if (!made.ok()) return false;
    s.token = made->secret;
  }
  s.server = std::make_unique<HttpServer>(s.rt->services(), http);
  if (!s.server->Bind().ok()) return false;
  s.serving = std::thread([&s] { (void)s.server->Serve(); });
  return true;
}

void Stop(Side& s) {
  s.server->Stop();
  s.serving.join();
  s.server.reset();
  s.rt.reset();
  std::filesystem::remove_all(s.dir);
}

// p50 of `n` requests of one kind from one keep-alive client.
double Round(Side& s, const std::string& path, int n, int round, bool search) {
  httplib::Client c("127.0.0.1", s.server->port());
  c.set_tcp_nodelay(true);
  c.set_keep_alive(true);
  if (!s.token.empty()) c.set_bearer_token_auth(s.token);
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    nlohmann::json body =
        search ? nlohmann::json{{"scope_id", "project:bench-1"},
                                {"query", "entry decision " + std::to_string(i % 50)}}
               : nlohmann::json{{"scope_id", "project:bench-1"},
                                {"kind", "fact"},
                                {"text", "round " + std::to_string(round) + " entry decision " +
                                             std::to_string(i)}};
    auto t0 = std::chrono::steady_clock::now();
    auto res = c.Post(path, body.dump(), "application/json");
    ms.push_back(MillisSince(t0));
    if (!res || res->status != 200) {
      std::fprintf(stderr, "auth_bench: %s answered %d\n", path.c_str(), res ? res->status : 0);
      return -1;
    }
  }
  return Percentile(ms, 0.5);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Run(int requests, int rounds, const std::string& durability) {
  Side before, after;
  if (!Start(before, false, durability) || !Start(after, true, durability)) return 1;
  std::vector<double> rb, ra, sb, sa;
  for (int r = 0; r < rounds; ++r) {
    for (Side* s : {&before, &after}) {
      double rem = Round(*s, "/v1/memory/remember", requests, r, false);
      double sea = Round(*s, "/v1/memory/search", requests, r, true);
      if (rem < 0 || sea < 0) return 1;
      (s == &before ? rb : ra).push_back(rem);
      (s == &before ? sb : sa).push_back(sea);
    }
  }
  std::printf("durability %s, %d requests x %d rounds per side (median of round p50s)\n\n",
              durability.c_str(), requests, rounds);
  std::printf(
      "| operation | before (auth off, no audit) ms | after (token + scope check + audit) ms | "
      "after / before |\n");
  std::printf("|---|---|---|---|\n");
  std::printf("| remember | %.3f | %.3f | %.3f |\n", Median(rb), Median(ra),
              Median(ra) / Median(rb));
  std::printf("| search | %.3f | %.3f | %.3f |\n", Median(sb), Median(sa), Median(sa) / Median(sb));
  Stop(before);
  Stop(after);
  return 0;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  int requests = 400, rounds = 7;
  std::string durability = "normal";
  if (!pc::ParseFlags(
          argc, argv,
          {{"--requests", &requests}, {"--rounds", &rounds}, {"--durability", &durability}},
          "usage: auth_bench [--requests 400] [--rounds 7] [--durability normal|full]\n"))
    return 2;
  if ((durability != "full" && durability != "normal") || requests < 1 || rounds < 1) {
    std::fprintf(stderr,
                 "auth_bench: --durability full|normal, --requests and --rounds at least 1\n");
    return 2;
  }
  return pc::Run(requests, rounds, durability);
}
