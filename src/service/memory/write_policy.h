// The write gates' policy (docs/write-gates.md): server-wide defaults from the configuration,
// overridden per scope by its settings (GET/PUT /v1/scopes/{scope}/settings).
//   reconcile          off | warn | reject   a write that nearly repeats an active entry
//   extraction_review  auto | review         flush commits, or proposes memory candidates
//   (docs/review.md) require_evidence   false | true         a remember or revise without evidence
//   is refused
//   expiry             "working_note=14d,scratch=12h"       how long an entry of each kind stays
//   valid when its write does not say (docs/expiry.md); a scope's value overrides the server's
//   kind by kind, and "kind=never" takes a kind's default away
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/status.h"

namespace pc {

class ReadTxn;
struct EntryVersion;

enum class ReconcilePolicy { kOff, kWarn, kReject };
enum class ExtractionReview { kAuto, kReview };

struct WritePolicy {
  ReconcilePolicy reconcile = ReconcilePolicy::kWarn;
  ExtractionReview extraction_review = ExtractionReview::kAuto;
  bool require_evidence = false;
  std::map<std::string, int64_t> expiry;  // kind → how long its entries stay valid (ms)
};

inline constexpr const char* kSettingReconcile = "reconcile";
inline constexpr const char* kSettingExtractionReview = "extraction_review";
inline constexpr const char* kSettingRequireEvidence = "require_evidence";
inline constexpr const char* kSettingExpiry = "expiry";

const char* ReconcilePolicyName(ReconcilePolicy p);

// InvalidArgument naming the setting for an unknown name or a value it does not take.
Status CheckSetting(const std::string& name, const std::string& value);
// `defaults` with `overrides` (name → value, each checked) applied.
Result<WritePolicy> ApplySettings(WritePolicy defaults,
                                  const std::map<std::string, std::string>& overrides);
// Every setting's value.
std::map<std::string, std::string> SettingsOf(const WritePolicy& p);
// The value a setting takes when a scope clears its override: what leaves the server's as it is.
std::string NeutralSetting(const std::string& name);

// A new version's valid_until when its write asked nothing (docs/expiry.md), for every way a
// version is written (remember, revise, flush, an approved candidate): the kind's default from now;
// else, revising `current` (null: an add), its date while that is still ahead; else none.
std::optional<int64_t> DefaultValidUntil(const WritePolicy& p, const std::string& kind,
                                         const EntryVersion* current, int64_t now_ms);

// When a version written now of `kind` stops being valid (docs/expiry.md), from what the write
// asked (`asked`: "" for the kind's default under `p`, "never", a duration such as "14d", or a UTC
// date or RFC 3339 moment). InvalidArgument naming `field` for anything else or a moment that is
// not after `now_ms`. nullopt: valid until revised or retired.
Result<std::optional<int64_t>> ValidUntil(const std::string& asked, const WritePolicy& p,
                                          const std::string& kind, int64_t now_ms,
                                          const std::string& field = "valid_until");
// The policy of a scope (internal id): `defaults` with the scope's stored settings.
Result<WritePolicy> ScopePolicy(ReadTxn& txn, const std::string& scope_id,
                                const WritePolicy& defaults);

}  // namespace pc
