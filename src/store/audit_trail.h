// The audit of acknowledged writes (DESIGN §11): every write that changes the store records one
// audit row in its own transaction, so audit rows equal acknowledged writes exactly, crash or
// not. A backend notes what each write changes in its transaction's trail (CommitRevision,
// AppendSource, …); Audited() wraps the write callback so that, when the callback succeeded and
// changed something, the row is appended before the transaction commits. Who asked (the actor,
// operation and request id) comes with each write from its caller (service/core/actor.h takes it
// from the request being served); the store never looks it up.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"

namespace pc {

class WriteTxn;

// Who a write is for, as its audit row names them.
struct Actor {
  std::string name;        // the principal: a token's name, "local" or "system"
  std::string operation;   // the route's operation id; empty: "internal"
  std::string request_id;  // the client's or the server's X-Request-Id; may be empty
};

struct AuditTrail {
  std::string scope_id;             // the scope written, when the write names it
  std::string artifact_id;          // the artifact a revision went to (its scope is looked up)
  std::optional<int64_t> revision;  // memory revision committed
  std::optional<int64_t> handoff_revision;  // handoff revision committed
  std::vector<std::string> candidates;      // candidate versions written, "cand_…@2:approved"
  std::optional<std::string> artifact;  // another family's revision committed, "experience/exp_…@1"
  std::vector<std::string> settings;    // scope settings changed, "reconcile=reject"
  std::vector<std::string> gates;  // write-gate outcomes beside a change, "reconcile:warn:ent_…"
  std::vector<std::string> entries;  // entries changed (at most kMaxIds)
  std::vector<std::string> sources;  // sources appended (at most kMaxIds)
  std::vector<std::string> tokens;   // tokens created or revoked
  std::optional<int64_t> cursor;     // extraction cursor moved to
  bool created_scope = false;
  size_t omitted = 0;  // ids past kMaxIds, counted

  static constexpr size_t kMaxIds = 64;
  bool empty() const;
  void Reset() { *this = AuditTrail{}; }
  void AddEntry(const std::string& id) { Add(entries, id); }
  void AddSource(const std::string& id) { Add(sources, id); }
  // {"revision": 3, "entries": [...], ...}: only what the write changed.
  std::string TargetsJson() const;

 private:
  void Add(std::vector<std::string>& ids, const std::string& id);
};

// A row of the audit log for `actor` with `result` ("ok", "refused", "denied"), stamped now: the
// actor's operation, "internal" for a write no route asked for (a background job's).
AuditRecord AuditRowFor(const Actor& actor, std::string result);

// `fn` with its audit row for `actor` (see above). The store's Write implementations wrap every
// callback.
std::function<Status(WriteTxn&)> Audited(const Actor& actor,
                                         const std::function<Status(WriteTxn&)>& fn);

}  // namespace pc
