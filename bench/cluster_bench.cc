// remember/s from N HTTP clients against 1, 2 and 3 `powercontext serve` processes on one
// PostgreSQL database, and against one server on SQLite — every write durable (SQLite
// synchronous=FULL; PostgreSQL's synchronous_commit, which the bench prints and expects on).
//
//   build/bench/cluster_bench --store postgresql://… [--servers 1,2,3] [--clients 16]
//                             [--requests 3200] [--scopes 16] [--no-sqlite] [--server BIN]
//                             [--json FILE]
//
// Each configuration gets a fresh store (a new schema on that database, or a new data directory)
// and its own servers on free loopback ports. Client c sends to server c mod n, in scope
// c mod scopes, over one keep-alive, no-delay connection: a short warm-up, then requests/clients remembers of
// distinct texts each. Reported: remember/s over the whole burst, and per-request p50/p95/p99.
// Afterwards the scopes' heads must add up to every acknowledged remember (nothing lost), or the
// bench fails. All processes share this machine's cores with the database, so more servers are
// not more hardware here: the figure to read is what sharing one database costs.
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "free_port.h"
#include "pg_scratch.h"
#include "store/postgres/pg_conn.h"

namespace pc {
namespace {

using Json = nlohmann::json;

struct Server {
  pid_t pid = -1;
  int port = 0;
  std::string dir;
};

bool WaitReady(const Server& s) {
  httplib::Client client("127.0.0.1", s.port);
  client.set_connection_timeout(0, 100000);
  const auto t0 = std::chrono::steady_clock::now();
  while (MillisSince(t0) < 60000) {
    auto res = client.Get("/health/ready");
    if (res && res->status == 200) return true;
    int status = 0;
    if (waitpid(s.pid, &status, WNOHANG) == s.pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void Stop(std::vector<Server>& servers) {
  for (Server& s : servers) kill(s.pid, SIGTERM);
  for (Server& s : servers) {
    waitpid(s.pid, nullptr, 0);
    std::filesystem::remove_all(s.dir);
  }
}

// One configuration: `servers` processes on `store_url` ("" = SQLite in the first one's directory).
Json Measure(const std::string& binary, const std::string& store_url, int servers, int clients,
             int requests, int scopes) {
  std::vector<Server> procs;
  for (int i = 0; i < servers; ++i) {
    Server s;
    s.port = testing::FreePort();
    s.dir = ScratchDir("pccluster");
    std::vector<std::string> args = {binary, "serve", "--data", s.dir, "--listen",
                                     "127.0.0.1:" + std::to_string(s.port)};
    if (!store_url.empty()) args.insert(args.end(), {"--store", store_url});
    s.pid = SpawnQuiet(args);
    procs.push_back(s);
    if (!WaitReady(s)) {
      std::fprintf(stderr, "cluster_bench: server %d did not start\n", i);
      Stop(procs);
      std::exit(1);
    }
  }
  const int per_client = requests / clients;
  std::vector<std::vector<double>> latencies(static_cast<size_t>(clients));
  std::atomic<int> failed{0}, acknowledged{0};
  auto client_loop = [&](int c, int count, bool measured) {
    httplib::Client http("127.0.0.1", procs[static_cast<size_t>(c % servers)].port);
    http.set_tcp_nodelay(true);  // as the server: no Nagle delay between headers and body
    http.set_keep_alive(true);
    http.set_read_timeout(60, 0);
    const std::string scope = "bench:s" + std::to_string(c % scopes);
    for (int i = 0; i < count; ++i) {
      Json body{{"scope_id", scope}, {"kind", "fact"},
                {"text", std::string(measured ? "m" : "w") + " client " + std::to_string(c) +
                             " remembers fact " + std::to_string(i) + " about the orders importer."}};
      const auto t0 = std::chrono::steady_clock::now();
      auto res = http.Post("/v1/memory/remember", body.dump(), "application/json");
      const double ms = MillisSince(t0);
      if (!res || res->status != 200) {
        if (failed++ < 5)
          std::fprintf(stderr, "remember failed: %s\n",
                       res ? (std::to_string(res->status) + " " + res->body).c_str() : "no answer");
        continue;
      }
      ++acknowledged;
      if (measured) latencies[static_cast<size_t>(c)].push_back(ms);
    }
  };
  auto burst = [&](int count, bool measured) {
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) threads.emplace_back(client_loop, c, count, measured);
    for (std::thread& t : threads) t.join();
  };
  burst(5, false);  // warm-up: connections, pools, each scope created
  const auto t0 = std::chrono::steady_clock::now();
  burst(per_client, true);
  const double seconds = MillisSince(t0) / 1000;

  // Nothing lost: each remember of a distinct text is one revision of its scope.
  int64_t revisions = 0;
  httplib::Client check("127.0.0.1", procs.back().port);
  for (int s = 0; s < scopes && s < clients; ++s) {
    auto res = check.Get("/v1/memory/revisions?limit=1&scope_id=bench:s" + std::to_string(s));
    if (!res || res->status != 200) {
      std::fprintf(stderr, "cluster_bench: reading scope %d failed: %s\n", s, res ? res->body.c_str() : "");
      Stop(procs);  // never leave the servers running
      std::exit(1);
    }
    revisions += Json::parse(res->body)["head"]["revision"].get<int64_t>();
  }
  Stop(procs);
  if (failed > 0 || revisions != acknowledged) {
    std::fprintf(stderr, "cluster_bench: %d failed; %lld revisions for %d acknowledged remembers\n",
                 failed.load(), static_cast<long long>(revisions), acknowledged.load());
    std::exit(1);
  }
  std::vector<double> all;
  for (auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  Json out{{"store", store_url.empty() ? "sqlite" : "postgresql"},
           {"servers", servers},
           {"clients", clients},
           {"remembers", all.size()},
           {"remember_per_s", static_cast<double>(all.size()) / seconds},
           {"p50_ms", Percentile(all, 0.50)},
           {"p95_ms", Percentile(all, 0.95)},
           {"p99_ms", Percentile(all, 0.99)}};
  std::printf("| %s | %d | %d | %.0f | %.1f | %.1f | %.1f |\n", out["store"].get<std::string>().c_str(),
              servers, clients, out["remember_per_s"].get<double>(), out["p50_ms"].get<double>(),
              out["p95_ms"].get<double>(), out["p99_ms"].get<double>());
  std::fflush(stdout);
  return out;
}

std::string Setting(const std::string& url, const std::string& name) {
  auto conn = pg::Conn::Open(url);
  if (!conn.ok()) return "?";
  auto rows = (*conn)->Query("SELECT current_setting($1)", {name});
  return rows.ok() && rows->size() == 1 ? rows->Text(0, 0) : "?";
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  std::string store, binary, json_path;
  std::vector<int> server_counts = {1, 2, 3};
  int clients = 16, requests = 3200, scopes = 16;
  bool sqlite = true;
  {  // powercontext next to the bench directory, as scripts/build lays them out
    std::filesystem::path self = std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() / "powercontext";
    if (std::filesystem::exists(self)) binary = self.string();
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--store" && i + 1 < argc) {
      store = argv[++i];
    } else if (a == "--servers" && i + 1 < argc) {
      server_counts.clear();
      std::stringstream in(argv[++i]);
      std::string part;
      while (std::getline(in, part, ',')) server_counts.push_back(std::stoi(part));
    } else if (a == "--clients" && i + 1 < argc) {
      clients = std::stoi(argv[++i]);
    } else if (a == "--requests" && i + 1 < argc) {
      requests = std::stoi(argv[++i]);
    } else if (a == "--scopes" && i + 1 < argc) {
      scopes = std::stoi(argv[++i]);
    } else if (a == "--no-sqlite") {
      sqlite = false;
    } else if (a == "--server" && i + 1 < argc) {
      binary = argv[++i];
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: cluster_bench --store postgresql://… [--servers 1,2,3] [--clients 16] "
                           "[--requests 3200] [--scopes 16] [--no-sqlite] [--server BIN] [--json FILE]\n");
      return 2;
    }
  }
  if (binary.empty() || clients < 1 || scopes < 1 || requests < clients) {
    std::fprintf(stderr, "cluster_bench: needs the powercontext binary (--server) and requests >= clients >= 1\n");
    return 2;
  }
  nlohmann::json results = nlohmann::json::array();
  std::printf("| store | servers | clients | remember/s | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|---|---|---|\n");
  if (sqlite) results.push_back(pc::Measure(binary, "", 1, clients, requests, scopes));
  if (!store.empty()) {
    const std::string sync = pc::Setting(store, "synchronous_commit"), fsync = pc::Setting(store, "fsync");
    if (sync != "on" || fsync != "on")
      std::fprintf(stderr, "cluster_bench: warning: the database has synchronous_commit=%s fsync=%s\n",
                   sync.c_str(), fsync.c_str());
    for (int n : server_counts) {
      pc::PgScratchSchema schema(store);
      results.push_back(pc::Measure(binary, schema.url(), n, clients, requests, scopes));
      results.back()["synchronous_commit"] = sync;
    }
  }
  if (!json_path.empty()) std::ofstream(json_path) << results.dump(2) << "\n";
  return 0;
}
