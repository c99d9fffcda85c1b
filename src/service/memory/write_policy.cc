#include "service/memory/write_policy.h"

#include "store/store.h"

namespace pc {

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
    return InvalidArgument(name + " must be " + allowed + " (got \"" + value + "\")")
        .WithDetail("field", name);
  };
  if (name == kSettingReconcile)
    return value == "off" || value == "warn" || value == "reject" ? Status::Ok()
                                                                  : bad("off, warn or reject");
  if (name == kSettingExtractionReview)
    return value == "auto" || value == "review" ? Status::Ok() : bad("auto or review");
  if (name == kSettingRequireEvidence)
    return value == "true" || value == "false" ? Status::Ok() : bad("true or false");
  return InvalidArgument("unknown setting \"" + name +
                         "\" (known: reconcile, extraction_review, require_evidence)")
      .WithDetail("field", name);
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
    else
      p.require_evidence = value == "true";
  }
  return p;
}

std::map<std::string, std::string> SettingsOf(const WritePolicy& p) {
  return {{kSettingReconcile, ReconcilePolicyName(p.reconcile)},
          {kSettingExtractionReview,
           p.extraction_review == ExtractionReview::kReview ? "review" : "auto"},
          {kSettingRequireEvidence, p.require_evidence ? "true" : "false"}};
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
