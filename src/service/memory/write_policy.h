// The write gates' policy (docs/write-gates.md): server-wide defaults from the configuration,
// overridden per scope by its settings (GET/PUT /v1/scopes/{scope}/settings).
//   reconcile          off | warn | reject   a write that nearly repeats an active entry
//   extraction_review  auto | review         flush commits, or proposes memory candidates
//   (docs/review.md) require_evidence   false | true         a remember or revise without evidence
//   is refused
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/status.h"

namespace pc {

class ReadTxn;

enum class ReconcilePolicy { kOff, kWarn, kReject };
enum class ExtractionReview { kAuto, kReview };

struct WritePolicy {
  ReconcilePolicy reconcile = ReconcilePolicy::kWarn;
  ExtractionReview extraction_review = ExtractionReview::kAuto;
  bool require_evidence = false;
};

inline constexpr const char* kSettingReconcile = "reconcile";
inline constexpr const char* kSettingExtractionReview = "extraction_review";
inline constexpr const char* kSettingRequireEvidence = "require_evidence";

const char* ReconcilePolicyName(ReconcilePolicy p);

// InvalidArgument naming the setting for an unknown name or a value it does not take.
Status CheckSetting(const std::string& name, const std::string& value);
// `defaults` with `overrides` (name → value, each checked) applied.
Result<WritePolicy> ApplySettings(WritePolicy defaults,
                                  const std::map<std::string, std::string>& overrides);
// Every setting's value.
std::map<std::string, std::string> SettingsOf(const WritePolicy& p);
// The policy of a scope (internal id): `defaults` with the scope's stored settings.
Result<WritePolicy> ScopePolicy(ReadTxn& txn, const std::string& scope_id,
                                const WritePolicy& defaults);

}  // namespace pc
