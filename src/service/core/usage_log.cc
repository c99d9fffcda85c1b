#include "service/core/usage_log.h"

#include <iostream>
#include <map>
#include <mutex>
#include <tuple>

#include "common/clock.h"
#include "service/core/actor.h"
#include "service/core/validation.h"

namespace pc {

namespace {

// What a store's deferred statistics add up to, by (scope as named, date, …).
struct Pending {
  bool deferred = false;
  std::map<std::tuple<std::string, std::string, UsagePurpose, UsageOperation>, ModelUsage> usage;
  std::map<std::pair<std::string, std::string>, RecallMeasurement> recall;
  bool empty() const { return usage.empty() && recall.empty(); }
};

std::mutex pending_mu;
std::map<const Store*, Pending>& PendingByStore() {
  static auto* pending = new std::map<const Store*, Pending>();  // never destroyed: used at exit
  return *pending;
}

// One transaction for everything in `p`. A scope that does not exist records nothing (reads never
// create scopes).
void Write(Store& store, const Pending& p) {
  Status s = store.Write(
      RequestActor(),
      [&](WriteTxn& txn) -> Status {  // may run more than once (store.h): reads `p` only
        std::map<std::string, std::optional<Scope>> scopes;
        auto scope_of = [&](const std::string& name) -> Result<std::optional<Scope>> {
          auto it = scopes.find(name);
          if (it != scopes.end()) return it->second;
          PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, name));
          scopes.emplace(name, scope);
          return scope;
        };
        for (const auto& [key, usage] : p.usage) {
          const auto& [name, date, purpose, operation] = key;
          PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, scope_of(name));
          if (scope)
            PC_RETURN_IF_ERROR(txn.AddModelUsage(scope->scope_id, date, UsagePurposeName(purpose),
                                                 UsageOperationName(operation), usage));
        }
        for (const auto& [key, recall] : p.recall) {
          PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, scope_of(key.first));
          if (scope)
            PC_RETURN_IF_ERROR(txn.AddRecall(scope->scope_id, key.second, kRecallEstimatorId,
                                             kRecallEstimatorVersion, recall));
        }
        return Status::Ok();
      });
  if (!s.ok())
    std::cerr << "powercontext: warning: statistics not recorded (" << s.message() << ")"
              << std::endl;
}

}  // namespace

void RecordStatistics(Store& store, const std::string& scope_name,
                      const std::vector<UsageRecord>& usage,
                      const std::optional<RecallMeasurement>& recall) {
  bool any = recall.has_value();
  for (const UsageRecord& r : usage) any = any || !r.usage.empty();
  if (!any) return;
  const std::string date = UtcDate(NowMillis());
  Pending now;
  for (const UsageRecord& r : usage)
    if (!r.usage.empty()) now.usage[{scope_name, date, r.purpose, r.operation}].Add(r.usage);
  if (recall) now.recall[{scope_name, date}].Add(*recall);
  {
    std::lock_guard<std::mutex> lock(pending_mu);
    auto it = PendingByStore().find(&store);
    if (it != PendingByStore().end() && it->second.deferred) {
      for (const auto& [key, u] : now.usage) it->second.usage[key].Add(u);
      for (const auto& [key, r] : now.recall) it->second.recall[key].Add(r);
      return;
    }
  }
  Write(store, now);
}

void DeferStatistics(Store& store, bool defer) {
  {
    std::lock_guard<std::mutex> lock(pending_mu);
    if (defer) {
      PendingByStore()[&store].deferred = true;
      return;
    }
  }
  FlushStatistics(store);
  std::lock_guard<std::mutex> lock(pending_mu);
  PendingByStore().erase(&store);
}

void FlushStatistics(Store& store) {
  // One flush at a time per process: two overlapping ones would only contend for the write lock.
  static std::mutex flushing;
  std::lock_guard<std::mutex> one(flushing);
  Pending taken;
  {
    std::lock_guard<std::mutex> lock(pending_mu);
    auto it = PendingByStore().find(&store);
    if (it == PendingByStore().end() || it->second.empty()) return;
    std::swap(taken.usage, it->second.usage);
    std::swap(taken.recall, it->second.recall);
  }
  Write(store, taken);
}

}  // namespace pc
