#include "store/audit_trail.h"

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "store/store.h"

namespace pc {

bool AuditTrail::empty() const {
  return !created_scope && !revision && !handoff_revision && candidates.empty() && !artifact &&
         settings.empty() && entries.empty() && sources.empty() && tokens.empty() && !cursor &&
         omitted == 0;
}

void AuditTrail::Add(std::vector<std::string>& ids, const std::string& id) {
  if (ids.size() < kMaxIds)
    ids.push_back(id);
  else
    ++omitted;
}

std::string AuditTrail::TargetsJson() const {
  nlohmann::json j = nlohmann::json::object();
  if (created_scope) j["created_scope"] = true;
  if (revision) j["revision"] = *revision;
  if (handoff_revision) j["handoff_revision"] = *handoff_revision;
  if (artifact) j["artifact"] = *artifact;
  if (!candidates.empty()) j["candidates"] = candidates;
  if (!settings.empty()) j["settings"] = settings;
  if (!gates.empty()) j["gates"] = gates;
  if (!entries.empty()) j["entries"] = entries;
  if (!sources.empty()) j["sources"] = sources;
  if (!tokens.empty()) j["tokens"] = tokens;
  if (cursor) j["cursor"] = *cursor;
  if (omitted) j["omitted_ids"] = omitted;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

AuditRecord AuditRowFor(const Actor& actor, std::string result) {
  AuditRecord row;
  row.at_ms = NowMillis();
  row.actor = actor.name;
  row.operation = actor.operation.empty() ? "internal" : actor.operation;
  row.request_id = actor.request_id;
  row.result = std::move(result);
  return row;
}

std::function<Status(WriteTxn&)> Audited(const Actor& actor,
                                         const std::function<Status(WriteTxn&)>& fn) {
  AuditRecord row = AuditRowFor(actor, "ok");
  return [&fn, row](WriteTxn& txn) -> Status {
    txn.audit_trail().Reset();  // a callback may run more than once (store.h)
    Status s = fn(txn);
    if (!s.ok() || txn.audit_trail().empty()) return s;
    AuditRecord r = row;
    r.at_ms = NowMillis();
    r.scope_id = txn.audit_trail().scope_id;
    r.targets_json = txn.audit_trail().TargetsJson();
    return txn.AppendAudit(r, txn.audit_trail().artifact_id);
  };
}

}  // namespace pc
