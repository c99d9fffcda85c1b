// Status and Result<T>: how every fallible call in PowerContext reports failure.
// Domain codes only; the api layer maps them to HTTP status, MCP errors and exit codes.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pc {

enum class Code {
  kOk,
  kInvalidArgument,
  kUnauthenticated,
  kPermissionDenied,
  kNotFound,
  kMethodNotAllowed,
  kConflict,            // a stale citation or revision (409 revision_conflict)
  kSourceConflict,      // a source id already names other content (409 source_conflict)
  kStoreNotEmpty,       // migrate or import into a store that holds data (store_not_empty, exit 4)
  kNameTaken,           // a name a live thing already has: a token's (409 name_taken)
  kReviewOvertaken,     // another daily review of the scope committed first (409 review_overtaken)
  kRevisionNotVisible,  // a read's min_revision is past the revision it can answer from (409)
  kCandidateConflict,   // a review write named a stale candidate version, or a terminal one (409)
  kArtifactConflict,    // a candidate's target is no longer its artifact's head (409)
  kExternalSkillChanged,      // an import named a package version not available here now (409)
  kProjectConflict,           // a Handoff Report Project's version moved, or its key is taken (409)
  kWorkstreamConflict,        // a Workstream's version moved, or its key is taken in its Project
  kScopeAlreadyGrouped,       // the scope is a Workstream already (409)
  kScopeNotGrouped,           // the scope is not a Workstream of the Project named (409)
  kWorkspaceBindingConflict,  // a workspace binding's version moved, or it is bound elsewhere
  kActivityEventConflict,     // one (source, source_event_id) sent with another payload (409)
  kReportTooLarge,  // a Handoff Report over its deterministic limits (413 handoff_report_too_large)
  kReportBusy,      // the Handoff heads kept moving while a report froze them (503)
  kUnsupportedReportLocale,  // a report locale that is neither zh-CN nor en (422)
  kUnsupportedReportFormat,  // a report format that is neither markdown nor json (422)
  kInvalidReportPeriod,      // a report period out of order, too long, or without a time zone
  kNearDuplicate,     // the reconcile gate refused a write nearly repeating an active entry (409)
  kEvidenceRequired,  // the scope requires evidence and the write has none (422)
  kTooLarge,
  kUnsupportedMediaType,
  kCapabilityUnavailable,
  kRegistryUnavailable,    // no external Skill roots are configured (503
                           // external_skill_registry_unavailable)
  kGenerationUnavailable,  // a managed Skill's generation or import and no model is configured
                           // (503 generation_unavailable)
  kRateLimited,
  kInternal,
  kProviderUnavailable,  // a model service cannot be reached or did not answer in time
  kProviderError,        // a model service answered, but not usably
  kUnavailable,  // the store cannot take the request now (busy, a full pool); retry_after_seconds
                 // says when
};

// The stable, lower_snake_case name of a code, as it appears in JSON errors (PowerContext's
// names where the spec has one: invalid_request, revision_conflict, not_found …).
const char* CodeName(Code code);
// The code a name stands for, if any.
std::optional<Code> CodeFromName(std::string_view name);
// Every code (docs/api.md's error table has a row for each: a test keeps it so).
const std::vector<Code>& AllCodes();

// One structured detail of an error, e.g. {"current_revision", 7}.
using DetailValue = std::variant<int64_t, std::string>;
struct Detail {
  std::string key;
  DetailValue value;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::vector<Detail>& details() const { return details_; }

  // Adds a structured detail; returns *this so errors read as one expression.
  Status& With(std::string key, DetailValue value) {
    details_.push_back({std::move(key), std::move(value)});
    return *this;
  }
  Status&& WithDetail(std::string key, DetailValue value) && {
    With(std::move(key), std::move(value));
    return std::move(*this);
  }

  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
  std::vector<Detail> details_;
};

inline Status InvalidArgument(std::string m) {
  return Status(Code::kInvalidArgument, std::move(m));
}
// An invalid request about one field of it (the error's details name the field).
inline Status FieldError(std::string_view field, std::string message) {
  return InvalidArgument(std::move(message)).WithDetail("field", std::string(field));
}
inline Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
inline Status Conflict(std::string m) { return Status(Code::kConflict, std::move(m)); }
inline Status TooLarge(std::string m) { return Status(Code::kTooLarge, std::move(m)); }
inline Status Internal(std::string m) { return Status(Code::kInternal, std::move(m)); }
// The store is busy now and a retry soon should succeed: 503 with Retry-After (wire/error_map).
inline Status Unavailable(std::string m, int64_t retry_after_seconds = 1) {
  return Status(Code::kUnavailable, std::move(m))
      .WithDetail("retry_after_seconds", retry_after_seconds);
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "Result from an OK status needs a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  Status&& TakeStatus() && { return std::move(status_); }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T value_or(T fallback) && { return value_ ? std::move(*value_) : std::move(fallback); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace pc

#define PC_CONCAT_INNER(a, b) a##b
#define PC_CONCAT(a, b) PC_CONCAT_INNER(a, b)

#define PC_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::pc::Status pc_status_ = (expr);        \
    if (!pc_status_.ok()) return pc_status_; \
  } while (0)

#define PC_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)     \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return std::move(tmp).TakeStatus(); \
  lhs = std::move(tmp).value()

#define PC_ASSIGN_OR_RETURN(lhs, expr) \
  PC_ASSIGN_OR_RETURN_IMPL(PC_CONCAT(pc_result_, __LINE__), lhs, expr)
