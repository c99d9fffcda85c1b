#include "app/serve.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "api/http_server.h"
#include "app/data_lock.h"
#include "app/periodic.h"
#include "app/runtime.h"
#include "auth/request_context.h"
#include "common/clock.h"
#include "mcp/transports.h"
#include "service/admin/audit_service.h"
#include "service/core/usage_log.h"
#include "service/memory/memory_service.h"
#include "service/search/search_service.h"
#include "store/postgres/pg_conn.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

constexpr std::chrono::seconds kBackfillInterval{30};
// The audit log's retention pass: at start-up, then this often (refused requests add at most
// 200 rows a second, so a pass has at most ~120,000 of them to delete, in batches of 1,000).
constexpr std::chrono::seconds kAuditRetentionInterval{600};
// The expiry pass (docs/expiry.md; every expiry_interval_seconds): how far before the last complete
// pass's end the next one starts (another server's clock may be behind ours by up to this).
constexpr int64_t kExpiryClockMargin = 10 * 60 * 1000;

// Every scope, page by page, until `stopping`: the walk each background pass makes.
void ForEachScope(MemoryService& memory, const std::atomic<bool>& stopping,
                  const std::function<void(const Scope&)>& visit) {
  std::string cursor;
  while (!stopping) {
    auto page = memory.ListScopes({kMaxPageLimit, cursor});
    if (!page.ok()) return;
    for (const Scope& scope : page->items) {
      if (stopping) return;
      visit(scope);
    }
    if (!page->next_cursor) return;
    cursor = *page->next_cursor;
  }
}

// One pass over every scope: reindex those whose vector projection is incomplete. The first pass
// (`warm`) also loads complete ones into memory, so no vector search waits for that.
void BackfillPass(MemoryService& memory, SearchService& search, Embedder& embedder,
                  const std::atomic<bool>& stopping, bool warm, bool reindex = true) {
  // An endpoint down since start-up has not told its dimension: ask it (in this background
  // thread, never before listening). While it cannot answer, or rests after a failure, there is
  // nothing to backfill with; the next pass tries again.
  if (embedder.profile().dimension == 0) (void)embedder.Embed({"dimension probe"});
  if (std::string why = embedder.Unavailable(); !why.empty()) {
    std::cerr << "powercontext: vectors are degraded: " << why << std::endl;
    return;
  }
  ForEachScope(memory, stopping, [&](const Scope& scope) {
    // Only the vector projection's state: not every mode's capabilities (the graph's is not
    // needed).
    auto complete_or = search.VectorsComplete(scope.scope_id);
    const bool complete = complete_or.ok() && *complete_or;
    if (complete && warm) {
      auto t0 = std::chrono::steady_clock::now();
      auto warmed = search.WarmVectors(scope.scope_id);
      auto ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (warmed.ok() && *warmed)
        std::cerr << "powercontext: vectors of " << scope.key << " loaded in "
                  << static_cast<int>(ms) << " ms" << std::endl;
    }
    if (complete || !reindex) return;
    auto done = search.Reindex(scope.scope_id, &stopping);
    if (done.ok() && done->embedded > 0)
      std::cerr << "powercontext: reindexed " << done->embedded << " entries of " << scope.key
                << std::endl;
    else if (!done.ok())
      std::cerr << "powercontext: reindex of " << scope.key << ": " << done.status().message()
                << std::endl;
  });
}

// One daily-review pass (review_schedule): once the local time is past the schedule, reviews
// today every scope with sources it has not reviewed yet; a day reviewed is not reviewed again.
// A scope whose review failed (the model, a conflict) is tried again an hour later, not every
// minute.
void DailyReviewPass(MemoryService& memory, DailyReviewService& daily, int at_minutes,
                     std::map<std::string, std::chrono::steady_clock::time_point>& retry_at,
                     const std::atomic<bool>& stopping) {
  const LocalNow now = ReadLocalNow();
  if (now.minutes < at_minutes) return;
  ForEachScope(memory, stopping, [&](const Scope& scope) {
    auto wait = retry_at.find(scope.scope_id);
    if (wait != retry_at.end() && std::chrono::steady_clock::now() < wait->second) return;
    auto due = daily.Due(scope.scope_id, now.date);
    if (!due.ok() || !*due) return;
    auto done = daily.Run(scope.scope_id, now.date, "review:schedule");
    if (!done.ok()) {
      retry_at[scope.scope_id] = std::chrono::steady_clock::now() + std::chrono::hours(1);
      std::cerr << "powercontext: daily review of " << scope.key << ": " << done.status().message()
                << " (trying again in an hour)" << std::endl;
      return;
    }
    retry_at.erase(scope.scope_id);
    for (const Rejection& r : done->rejected)
      std::cerr << "powercontext: daily review of " << scope.key << ": not usable: " << r.reason
                << std::endl;
  });
}

// One scheduled pass: flushes every scope whose source log is ahead of its cursor.
void FlushPass(MemoryService& memory, FlushService& flush, const std::atomic<bool>& stopping) {
  ForEachScope(memory, stopping, [&](const Scope& scope) {
    for (int windows = 0; !stopping && windows < 100; ++windows) {
      auto pending = flush.HasPending(scope.scope_id);
      if (!pending.ok() || !*pending) break;
      auto done = flush.Flush(scope.scope_id);
      if (!done.ok()) {
        std::cerr << "powercontext: scheduled flush of " << scope.key << ": "
                  << done.status().message() << std::endl;
        break;
      }
      if (!done->processed) break;
    }
  });
}

// The HTTP server's settings from the configuration.
HttpOptions HttpOptionsFrom(const Config& config) {
  HttpOptions http;
  http.host = config.listen_host;
  http.port = config.listen_port;
  http.connections.max_connections = static_cast<size_t>(config.http_threads);
  http.connections.max_per_address = http.connections.max_connections / 2;
  http.edge.listen_host = config.listen_host;
  http.edge.allowed_hosts = SplitList(config.allowed_hosts);
  http.edge.allowed_origins = SplitList(config.allowed_origins);
  http.auth = config.auth == "on";
  http.rate_limit_per_second = static_cast<double>(config.rate_limit);
  http.rate_limit_burst = static_cast<double>(config.rate_limit_burst);
  http.access_log = config.access_log == "json"  ? AccessLog::kJson
                    : config.access_log == "off" ? AccessLog::kOff
                                                 : AccessLog::kText;
  http.tls = !config.tls_cert.empty();
  http.tls_cert = config.tls_cert;
  http.tls_key = config.tls_key;
  http.body_limits = BodyLimits::For(config.max_entry_bytes, config.max_source_bytes);
  return http;
}

// localhost, ::1 or an IPv4 literal in 127.0.0.0/8; a name like 127.corp.example is not.
bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

// Auth may be off only while the listen address is loopback (DESIGN §11): anyone who can reach
// a network address would otherwise be the administrator. --allow-unauthenticated overrides it,
// loudly: a warning now and in /health/ready.
Status CheckExposure(const Config& config, HttpOptions& http) {
  if (config.auth == "on" || IsLoopbackHost(config.listen_host)) return Status::Ok();
  if (config.allow_unauthenticated != "true")
    return Status(
        Code::kPermissionDenied,
        "refusing to serve " + config.listen +
            " without authentication: anyone who can reach it "
            "could read and rewrite every memory. Turn auth on (--auth on, then `powercontext "
            "token create "
            "--data " +
            config.data_dir +
            " --name admin --role admin`), listen on 127.0.0.1, or pass "
            "--allow-unauthenticated if something in front of this server authenticates callers");
  http.security_warning =
      "off on a network address (" + config.listen + "): --allow-unauthenticated";
  std::cerr
      << "powercontext: WARNING: serving " << config.listen
      << " with authentication off (--allow-unauthenticated): every caller is an administrator"
      << std::endl;
  return Status::Ok();
}

// Each connection is a descriptor: lift the soft limit (often 1024) to the hard one, so
// http_threads connections and the database's files fit.
void RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// Blocks SIGINT and SIGTERM in every thread (call before any starts); one waits for them.
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

// MCP over streamable HTTP at /mcp: the same tools as `powercontext mcp`, calling this server's
// routes in process.
void AddMcpRoute(HttpServer& server, McpServer& mcp) {
  server.AddRawRoute(
      "/mcp",
      [&mcp](const std::string& method, const std::map<std::string, std::string>& headers,
             const std::string& body) { return HandleMcpHttp(mcp, method, headers, body); });
}

int Fail(const Status& s) {
  std::cerr << "powercontext: " << s.message() << "\n";
  return 1;
}

// Says how to make the first token when auth is on and none exists.
void WarnIfNoToken(const Config& config, Runtime& rt) {
  if (config.auth != "on" || !config.auth_token.empty()) return;
  {
    auto tokens = rt.tokens->List();
    bool any = tokens.ok() && std::any_of(tokens->begin(), tokens->end(),
                                          [](const ApiToken& t) { return !t.revoked_at_ms; });
    if (!any)
      std::cerr << "powercontext: auth is on and no token exists yet: create one with "
                   "`powercontext token create "
                << "--data " << config.data_dir << " --name admin --role admin`" << std::endl;
  }
}

// The server's background passes; each runs on its own thread until Stop().
struct BackgroundPasses {
  std::optional<Periodic> backfill, scheduler, audit_pruner, reviewer, expiry;
  AuditRetention retention;
  int64_t expired_after_ms = 0;  // the expiry pass's thread only: where its next pass starts
  std::map<std::string, std::chrono::steady_clock::time_point>
      review_retry_at;  // the reviewer's thread only

  void Stop() {
    if (backfill) backfill->Stop();
    if (scheduler) scheduler->Stop();
    if (reviewer) reviewer->Stop();
    if (audit_pruner) audit_pruner->Stop();
    if (expiry) expiry->Stop();
  }
};

// The passes' threads outlive this function: each captures what it uses by pointer or by value.
void StartPasses(const Config& config, Runtime& runtime, BackgroundPasses& passes) {
  Runtime* rt = &runtime;
  BackgroundPasses* bg = &passes;
  // Background backfill: at start-up and then every kBackfillInterval, complete the vector
  // projection of every scope that lacks vectors for the configured embedder (after an outage, or
  // a change of provider). Searches meanwhile say what is missing; auto uses fts. The first pass
  // also loads each scope's vectors and saved graph (data/ann), and logs how long that took.
  if (Embedder* embedder = rt->embedder.get())
    bg->backfill.emplace(kBackfillInterval, /*at_start=*/true,
                         [rt, embedder](bool first, const std::atomic<bool>& stopping) {
                           ScopedRequest as_system(SystemPrincipal(), "", "backfill");
                           // Warming loads this server's own indexes: every server does it. Filling
                           // missing vectors is one pass for all servers on one database.
                           const bool filled = rt->store->RunExclusive("backfill", [&] {
                             BackfillPass(*rt->memory, *rt->search, *embedder, stopping, first);
                           });
                           if (first && !filled)  // another server is filling: only load ours
                             BackfillPass(*rt->memory, *rt->search, *embedder, stopping, true,
                                          /*reindex=*/false);
                         });
  // Background extraction (memory_schedule_seconds, off by default): every interval, flush each
  // scope with pending sources, window after window, until it is caught up or a flush fails.
  if (config.memory_schedule_seconds > 0 && rt->flush->available())
    bg->scheduler.emplace(std::chrono::seconds(config.memory_schedule_seconds), /*at_start=*/false,
                          [rt](bool, const std::atomic<bool>& stopping) {
                            ScopedRequest as_system(SystemPrincipal(), "", "scheduled_flush");
                            // One server at a time asks the model (the cursor would refuse a second
                            // commit of a window anyway; this saves the second model call).
                            rt->store->RunExclusive("scheduled_flush", [&] {
                              FlushPass(*rt->memory, *rt->flush, stopping);
                            });
                          });

  // The audit log's retention (audit_retention_days, audit_denied_*) and the Handoff Report
  // Activity log's (activity_retention_days): one server at a time.
  bg->retention.days = config.audit_retention_days;
  bg->retention.denied_days = config.audit_denied_retention_days;
  bg->retention.denied_max_rows = config.audit_denied_max_rows;
  const int64_t activity_days = config.activity_retention_days;
  bg->audit_pruner.emplace(
      kAuditRetentionInterval, /*at_start=*/true,
      [rt, bg, activity_days](bool, const std::atomic<bool>& stopping) {
        ScopedRequest as_system(SystemPrincipal(), "", "audit_retention");
        rt->store->RunExclusive("audit_retention", [&] {
          auto pruned = rt->audit->Prune(bg->retention, NowMillis(), &stopping);
          if (!pruned.ok())
            std::cerr << "powercontext: warning: the audit retention pass stopped: "
                      << pruned.status().message() << std::endl;
          else if (*pruned > 0)
            std::cerr << "powercontext: audit retention deleted " << *pruned << " rows"
                      << std::endl;
        });
        ScopedRequest as_activity(SystemPrincipal(), "", "activity_retention");
        rt->store->RunExclusive("activity_retention", [&] {
          auto pruned = rt->report->activities.Prune(activity_days, NowMillis(), &stopping);
          if (!pruned.ok())
            std::cerr << "powercontext: warning: the activity retention pass stopped: "
                      << pruned.status().message() << std::endl;
          else if (*pruned > 0)
            std::cerr << "powercontext: activity retention deleted " << *pruned << " events"
                      << std::endl;
        });
      });

  // Expiry (docs/expiry.md): every expiry_interval_seconds (a minute), entries past their
  // valid_until are retired, one revision per memory; one server at a time. The first pass looks
  // at every version that ever had a valid_until (the index's range); the next ones from the last
  // complete pass, less a margin for servers whose clocks differ.
  bg->expiry.emplace(std::chrono::seconds(config.expiry_interval_seconds), /*at_start=*/true,
                     [rt, bg](bool, const std::atomic<bool>& stopping) {
                       ScopedRequest as_system(SystemPrincipal(), "", "expire_entries");
                       rt->store->RunExclusive("expire_entries", [&] {
                         auto pass = rt->memory->RetireExpired(bg->expired_after_ms, &stopping);
                         if (!pass.ok()) {
                           std::cerr << "powercontext: warning: the expiry pass stopped: "
                                     << pass.status().message() << std::endl;
                           return;
                         }
                         for (const std::string& f : pass->failures)
                           std::cerr << "powercontext: warning: expiry of " << f
                                     << " (tried again next pass)" << std::endl;
                         if (pass->retired > 0)
                           std::cerr << "powercontext: expiry retired " << pass->retired
                                     << " entries" << std::endl;
                         if (pass->complete)
                           bg->expired_after_ms =
                               std::max<int64_t>(0, pass->until_ms - kExpiryClockMargin);
                       });
                     });

  // The daily review (review_schedule, off by default): checked every minute; one server at a time.
  const std::optional<int> review_at =
      ParseReviewSchedule(config.review_schedule).value_or(std::nullopt);
  if (review_at && rt->daily->available())
    bg->reviewer.emplace(std::chrono::seconds(60), /*at_start=*/true,
                         [rt, bg, at = *review_at](bool, const std::atomic<bool>& stopping) {
                           ScopedRequest as_system(SystemPrincipal(), "", "daily_review");
                           rt->store->RunExclusive("daily_review", [&] {
                             DailyReviewPass(*rt->memory, *rt->daily, at, bg->review_retry_at,
                                             stopping);
                           });
                         });
  else if (review_at)
    std::cerr << "powercontext: review_schedule is set but no extraction provider is configured; "
                 "no daily review"
              << std::endl;
}

// The stop: SIGTERM or SIGINT stops accepting and lets what is in flight finish, for at most
// shutdown_grace_seconds (a request trickling its body, a model call, a background pass); then,
// or at a second signal, the process exits without them. That is safe: an unacknowledged write
// rolls back, as after a crash, and every acknowledged one is durable. `finished`: Serve()
// returned and the background passes stopped.
void WaitForStop(sigset_t& stop_signals, const std::atomic<bool>& finished, HttpServer& server,
                 const Config& config) {
  const auto grace = std::chrono::seconds(config.shutdown_grace_seconds);
  int sig = 0;
  sigwait(&stop_signals, &sig);
  if (finished) return;  // woken by this function's end, not by a signal
  std::cerr << "powercontext: stopping (signal " << sig << ")" << std::endl;
  server.Stop();
  const auto deadline = std::chrono::steady_clock::now() + grace;
  const timespec tick{0, 100 * 1000 * 1000};
  while (!finished) {
    if (sigtimedwait(&stop_signals, nullptr, &tick) > 0 && !finished) {
      std::cerr << "powercontext: second signal: exiting without the requests in flight"
                << std::endl;
      std::_Exit(1);
    }
    if (!finished && std::chrono::steady_clock::now() >= deadline) {
      std::cerr << "powercontext: requests still in flight after shutdown_grace_seconds ("
                << config.shutdown_grace_seconds << " s): exiting without them" << std::endl;
      std::_Exit(1);
    }
  }
}

}  // namespace

int RunServe(const Config& config) {
  // A client that hangs up mid-response must not kill the server: writes then fail with EPIPE.
  signal(SIGPIPE, SIG_IGN);
  sigset_t stop_signals = BlockStopSignals();

  auto lock = DataDirLock::Acquire(config.data_dir);
  if (!lock.ok()) return Fail(lock.status());
  RaiseOpenFileLimit();
  auto built = BuildRuntime(config);
  if (!built.ok()) return Fail(built.status());
  Runtime& rt = **built;

  HttpOptions http = HttpOptionsFrom(config);
  if (Status s = CheckExposure(config, http); !s.ok()) return Fail(s);
  HttpServer server(rt.services(), http);
  McpTools mcp_tools(InProcessRoutes(server.router()));
  McpServer mcp(mcp_tools);
  AddMcpRoute(server, mcp);
  if (Status s = server.Bind(); !s.ok()) return Fail(s);
  std::cerr << "powercontext " << POWERCONTEXT_VERSION << " serving "
            << (http.tls ? "https://" : "http://") << config.listen_host << ":" << server.port()
            << " (store " << pg::RedactUrl(config.store) << ", data " << config.data_dir
            << ", auth " << config.auth << ")" << std::endl;
  WarnIfNoToken(config, rt);

  // Statistics are added up in memory and written once per statistics_interval_seconds, off the
  // request path (service/core/usage_log.h); what is pending at the stop is written then.
  DeferStatistics(*rt.store, true);
  std::optional<Periodic> statistics;
  statistics.emplace(std::chrono::seconds(config.statistics_interval_seconds), /*at_start=*/false,
                     [&](bool, const std::atomic<bool>&) { FlushStatistics(*rt.store); });

  BackgroundPasses passes;
  StartPasses(config, rt, passes);

  std::atomic<bool> finished{false};
  std::thread waiter([&] { WaitForStop(stop_signals, finished, server, config); });
  Status served = server.Serve();
  passes.Stop();
  statistics.reset();
  DeferStatistics(*rt.store, false);  // writes what is pending
  // Serve() returned on its own (an error), or the waiter stopped it: wake it if it still waits.
  finished = true;
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return served.ok() ? 0 : Fail(served);
}

}  // namespace pc
