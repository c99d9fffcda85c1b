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
// c mod scopes, over one keep-alive, no-delay connection: a short warm-up, then requests/clients
// remembers of distinct texts each. Reported: remember/s over the whole burst, and per-request
// p50/p95/p99. Afterwards the scopes' heads must add up to every acknowledged remember (nothing
// lost), or the bench fails. With a database on this machine, the CPU it spent during the burst
// (its postmaster and every backend, from /proc) and the servers' own are reported per remember.
// All processes share this machine's cores with the database, so more servers are not more hardware
// here: the figure to read is what sharing one database costs.
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "pg_scratch.h"
#include "spawn_server.h"
#include "store/postgres/pg_conn.h"

namespace pc {
namespace {

using Json = nlohmann::json;

struct Server {
  pid_t pid = -1;
  int port = 0;
  std::string dir;
};

void Stop(std::vector<Server>& servers) {
  for (Server& s : servers) kill(s.pid, SIGTERM);
  for (Server& s : servers) {
    waitpid(s.pid, nullptr, 0);
    std::filesystem::remove_all(s.dir);
  }
}

// CPU time (utime + stime, and the reaped children's: backends that exited) of process `pid`, in
// clock ticks; 0 if it is not on this machine.
int64_t CpuTicks(pid_t pid, bool children) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  const size_t close = line.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(line.substr(close + 2));
  std::vector<std::string> f;
  for (std::string x; fields >> x;) f.push_back(x);
  // Fields after the name, from 3 (state): utime 14, stime 15, cutime 16, cstime 17.
  if (f.size() < 15) return 0;
  int64_t ticks = std::stoll(f[11]) + std::stoll(f[12]);
  if (children) ticks += std::stoll(f[13]) + std::stoll(f[14]);
  return ticks;
}

// The database's CPU: its postmaster (with its reaped children) and every process it started.
int64_t DbCpuTicks(pid_t postmaster) {
  if (postmaster <= 0) return 0;
  int64_t ticks = CpuTicks(postmaster, true);
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(e.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("PPid:", 0) == 0) {
        if (std::stol(line.substr(5)) == postmaster) ticks += CpuTicks(std::stoi(name), false);
        break;
      }
  }
  return ticks;
}

// The postmaster of the database at `url` when it runs on this machine (the parent of a backend
// that is ours), else 0.
pid_t Postmaster(const std::string& url) {
  auto conn = pg::Conn::Open(url);
  if (!conn.ok()) return 0;
  auto rows = (*conn)->Query("SELECT pg_backend_pid()");
  if (!rows.ok() || rows->size() != 1) return 0;
  std::ifstream status("/proc/" + rows->Text(0, 0) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("PPid:", 0) == 0) return static_cast<pid_t>(std::stol(line.substr(5)));
  return 0;
}

// One configuration: `servers` processes on `store_url` ("" = SQLite in the first one's directory).
Json Measure(const std::string& binary, const std::string& store_url, int servers, int clients,
             int requests, int scopes) {
  std::vector<Server> procs;
  for (int i = 0; i < servers; ++i) {
    Server s;
    s.dir = ScratchDir("pccluster");
    std::vector<std::string> args = {binary, "serve", "--data", s.dir};
    if (!store_url.empty()) args.insert(args.end(), {"--store", store_url});
    s.pid = SpawnServer(args, s.port, 60000);
    if (s.pid <= 0) {
      std::fprintf(stderr, "cluster_bench: server %d did not start\n", i);
      std::filesystem::remove_all(s.dir);
      Stop(procs);
      std::exit(1);
    }
    procs.push_back(s);
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
      Json body{
          {"scope_id", scope},
          {"kind", "fact"},
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
  const pid_t postmaster = store_url.empty() ? 0 : Postmaster(store_url);
  auto servers_cpu = [&] {
    int64_t ticks = 0;
    for (const Server& s : procs) ticks += CpuTicks(s.pid, false);
    return ticks;
  };
  const int64_t db_before = DbCpuTicks(postmaster), servers_before = servers_cpu();
  const auto t0 = std::chrono::steady_clock::now();
  burst(per_client, true);
  const double seconds = MillisSince(t0) / 1000;
  const double tick_ms = 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  const double db_ms = static_cast<double>(DbCpuTicks(postmaster) - db_before) * tick_ms;
  const double servers_ms = static_cast<double>(servers_cpu() - servers_before) * tick_ms;

  // Nothing lost: each remember of a distinct text is one revision of its scope.
  int64_t revisions = 0;
  httplib::Client check("127.0.0.1", procs.back().port);
  for (int s = 0; s < scopes && s < clients; ++s) {
    auto res = check.Get("/v1/memory/revisions?limit=1&scope_id=bench:s" + std::to_string(s));
    if (!res || res->status != 200) {
      std::fprintf(stderr, "cluster_bench: reading scope %d failed: %s\n", s,
                   res ? res->body.c_str() : "");
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
           {"p99_ms", Percentile(all, 0.99)},
           {"server_cpu_ms_per_remember", servers_ms / static_cast<double>(all.size())}};
  if (postmaster > 0) out["db_cpu_ms_per_remember"] = db_ms / static_cast<double>(all.size());
  std::printf("| %s | %d | %d | %d | %.0f | %.1f | %.1f | %.1f | %s | %.2f |\n",
              out["store"].get<std::string>().c_str(), servers, clients, scopes,
              out["remember_per_s"].get<double>(), out["p50_ms"].get<double>(),
              out["p95_ms"].get<double>(), out["p99_ms"].get<double>(),
              postmaster > 0
                  ? std::to_string(db_ms / static_cast<double>(all.size())).substr(0, 4).c_str()
                  : "",
              out["server_cpu_ms_per_remember"].get<double>());
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
    std::filesystem::path self =
        std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() / "powercontext";
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
      std::fprintf(stderr,
                   "usage: cluster_bench --store postgresql://… [--servers 1,2,3] [--clients 16] "
                   "[--requests 3200] [--scopes 16] [--no-sqlite] [--server BIN] [--json FILE]\n");
      return 2;
    }
  }
  if (binary.empty() || clients < 1 || scopes < 1 || requests < clients) {
    std::fprintf(
        stderr,
        "cluster_bench: needs the powercontext binary (--server) and requests >= clients >= 1\n");
    return 2;
  }
  nlohmann::json results = nlohmann::json::array();
  std::printf(
      "| store | servers | clients | scopes | remember/s | p50 ms | p95 ms | p99 ms | db CPU "
      "ms/remember | "
      "servers' CPU ms/remember |\n|---|---|---|---|---|---|---|---|---|---|\n");
  if (sqlite) results.push_back(pc::Measure(binary, "", 1, clients, requests, scopes));
  if (!store.empty()) {
    const std::string sync = pc::Setting(store, "synchronous_commit"),
                      fsync = pc::Setting(store, "fsync");
    if (sync != "on" || fsync != "on")
      std::fprintf(stderr,
                   "cluster_bench: warning: the database has synchronous_commit=%s fsync=%s\n",
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
