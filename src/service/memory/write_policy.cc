#include "service/memory/write_policy.h"

#include <cctype>

#include "common/clock.h"
#include "model/types.h"
#include "service/core/validation.h"
#include "store/store.h"

namespace pc {
namespace {

// An expiry value, "kind=14d,kind=never" (spaces allowed around the parts), as kind → ms (0:
// never). "" is no kinds.
Result<std::map<std::string, int64_t>> ParseExpiry(const std::string& value) {
  std::map<std::string, int64_t> out;
  auto bad = [&](const std::string& why) {
    return FieldError(kSettingExpiry,
                      "expiry must be a list of kind=duration such as "
                      "\"working_note=14d,scratch=12h\" (kind=never takes a default away): " +
                          why);
  };
  auto trim = [](std::string t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    return t;
  };
  size_t at = 0;
  while (at <= value.size()) {
    size_t comma = value.find(',', at);
    if (comma == std::string::npos) comma = value.size();
    const std::string part = trim(value.substr(at, comma - at));
    at = comma + 1;
    if (part.empty()) {
      if (comma == value.size()) break;
      return bad("an empty item");
    }
    const size_t eq = part.find('=');
    if (eq == std::string::npos) return bad("\"" + part + "\" has no =");
    const std::string kind = trim(part.substr(0, eq)), length = trim(part.substr(eq + 1));
    if (!CheckKind(kind).ok()) return bad("\"" + kind + "\" is not a kind");
    if (out.count(kind)) return bad(kind + " is given twice");
    if (length == "never") {
      out[kind] = 0;
      continue;
    }
    std::optional<int64_t> ms = ParseDurationMs(length);
    if (!ms) return bad("\"" + length + "\" is not a duration (90d, 12h, 30m) or never");
    out[kind] = *ms;
  }
  return out;
}

std::string FormatExpiry(const std::map<std::string, int64_t>& expiry) {
  std::string out;
  for (const auto& [kind, ms] : expiry) {
    if (!out.empty()) out += ",";
    out += kind + "=" + (ms > 0 ? FormatDurationMs(ms) : "never");
  }
  return out;
}

}  // namespace

const char* ReconcilePolicyName(ReconcilePolicy p) {
  switch (p) {
    case ReconcilePolicy::kOff:
      return "off";
    case ReconcilePolicy::kReject:
      return "reject";
    case ReconcilePolicy::kWarn:
      break;
  }
  return "warn";
}

Status CheckSetting(const std::string& name, const std::string& value) {
  auto bad = [&](const std::string& allowed) {
    return FieldError(name, name + " must be " + allowed + " (got \"" + value + "\")");
  };
  if (name == kSettingReconcile)
    return value == "off" || value == "warn" || value == "reject" ? Status::Ok()
                                                                  : bad("off, warn or reject");
  if (name == kSettingExtractionReview)
    return value == "auto" || value == "review" ? Status::Ok() : bad("auto or review");
  if (name == kSettingRequireEvidence)
    return value == "true" || value == "false" ? Status::Ok() : bad("true or false");
  if (name == kSettingExpiry) return ParseExpiry(value).status();
  return FieldError(name, "unknown setting \"" + name +
                              "\" (known: reconcile, extraction_review, require_evidence, expiry)");
}

std::string NeutralSetting(const std::string& name) {
  if (name == kSettingRequireEvidence) return "false";
  if (name == kSettingExtractionReview) return "auto";
  if (name == kSettingExpiry) return "";
  return "warn";
}

Result<WritePolicy> ApplySettings(WritePolicy p,
                                  const std::map<std::string, std::string>& overrides) {
  for (const auto& [name, value] : overrides) {
    PC_RETURN_IF_ERROR(CheckSetting(name, value));
    if (name == kSettingReconcile)
      p.reconcile = value == "off"      ? ReconcilePolicy::kOff
                    : value == "reject" ? ReconcilePolicy::kReject
                                        : ReconcilePolicy::kWarn;
    else if (name == kSettingExtractionReview)
      p.extraction_review = value == "review" ? ExtractionReview::kReview : ExtractionReview::kAuto;
    else if (name == kSettingRequireEvidence)
      p.require_evidence = value == "true";
    else {  // kind by kind over the defaults; never takes one away
      PC_ASSIGN_OR_RETURN(auto kinds, ParseExpiry(value));
      for (const auto& [kind, ms] : kinds) {
        if (ms > 0)
          p.expiry[kind] = ms;
        else
          p.expiry.erase(kind);
      }
    }
  }
  return p;
}

std::map<std::string, std::string> SettingsOf(const WritePolicy& p) {
  return {{kSettingReconcile, ReconcilePolicyName(p.reconcile)},
          {kSettingExtractionReview,
           p.extraction_review == ExtractionReview::kReview ? "review" : "auto"},
          {kSettingRequireEvidence, p.require_evidence ? "true" : "false"},
          {kSettingExpiry, FormatExpiry(p.expiry)}};
}

std::optional<int64_t> DefaultValidUntil(const WritePolicy& p, const std::string& kind,
                                         const EntryVersion* current, int64_t now_ms) {
  if (auto d = p.expiry.find(kind); d != p.expiry.end()) return now_ms + d->second;
  if (current && current->valid_until_ms && *current->valid_until_ms > now_ms)
    return current->valid_until_ms;
  return std::nullopt;  // an expired version revised is valid again, until told otherwise
}

Result<std::optional<int64_t>> ValidUntil(const std::string& asked, const WritePolicy& p,
                                          const std::string& kind, int64_t now_ms,
                                          const std::string& field) {
  if (asked == "never") return std::optional<int64_t>();
  if (asked.empty()) return DefaultValidUntil(p, kind, nullptr, now_ms);
  std::optional<int64_t> at = ParseMoment(asked, now_ms);
  if (!at)
    return FieldError(field,
                      field +
                          " is a duration from now (14d, 12h, 30m), a UTC date (2027-01-31), "
                          "an RFC 3339 date-time, or never (got \"" +
                          asked + "\")");
  if (*at <= now_ms)
    return FieldError(field, field + " " + FormatTimestamp(*at) +
                                 " is not in the future: retire the entry instead");
  return at;
}

Result<WritePolicy> ScopePolicy(ReadTxn& txn, const std::string& scope_id,
                                const WritePolicy& defaults) {
  PC_ASSIGN_OR_RETURN(auto stored, txn.ListScopeSettings(scope_id));
  Result<WritePolicy> p = ApplySettings(defaults, stored);
  if (!p.ok())
    return Internal("scope " + scope_id +
                    " has a stored setting this build does not take: " + p.status().message());
  return p;
}

}  // namespace pc
