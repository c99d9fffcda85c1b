// The Handoff Report Activity log (upstream RFC 0082, docs/handoff-reports.md): what hosts
// observed outside a handoff — commits, working trees, coding sessions — recorded for a Project
// (and, when the host says so, one of its Workstreams) as untrusted observations. Recording is
// idempotent on (source, source_event_id): the same payload again answers the stored event; another
// payload is 409 activity_event_conflict. Each event takes the next cursor of one sequence that a
// purge never rewinds, so a page frozen at a cursor stays exactly that page.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/report.h"
#include "store/store.h"

namespace pc {

inline constexpr size_t kMaxActivityRefs = 32;
inline constexpr int kDefaultActivityPage = 50;
inline constexpr int kMaxActivityPage = 100;
// Activity Events are kept this many days by default (RFC 0082: 90, configurable from 1 to 365;
// config activity_retention_days).
inline constexpr int64_t kDefaultActivityRetentionDays = 90;
inline constexpr int64_t kMaxActivityRetentionDays = 365;

// An event as the API shows it: its Workstream by the scope's key.
struct ActivityView {
  ReportActivity event;
  std::optional<std::string> scope_key;
};

struct RecordActivityRequest {
  ReportActivity event;              // event_id, observed_at and cursor are the server's
  std::optional<std::string> scope;  // a key or a scp_… id
};

struct ListActivitiesRequest {
  std::string project_id;
  std::optional<int64_t> period_start_ms, period_end_ms;
  std::vector<std::string> sources;
  int64_t after_cursor = 0;
  std::optional<int64_t> through_cursor;  // nullopt: the sequence's high watermark now
  int limit = kDefaultActivityPage;
};

struct ActivityPage {
  std::vector<ActivityView> items;
  std::optional<int64_t> next_cursor;
  int64_t high_watermark = 0;  // the page's frozen `through`
};

class ActivityService {
 public:
  explicit ActivityService(Store& store) : store_(store) {}

  // 404 for an unknown Project or scope; 409 scope_not_grouped when the scope is not one of the
  // Project's Workstreams, activity_event_conflict as above.
  Result<ActivityView> Record(const RecordActivityRequest& req);
  Result<ActivityPage> List(const ListActivitiesRequest& req);
  // Deletes the Project's events observed before `observed_before_ms`: only Report-owned rows.
  Result<int64_t> Purge(const std::string& project_id, int64_t observed_before_ms);
  // The retention pass: deletes every Project's events observed more than `days` before `now_ms`,
  // in write transactions of at most `batch` events (other writes go between them), until none is
  // left or *stop is set; how many went. A failed batch stops the pass (the next one resumes).
  Result<int64_t> Prune(int64_t days, int64_t now_ms, const std::atomic<bool>* stop = nullptr,
                        int64_t batch = 1000);

 private:
  Store& store_;
};

// The event's own checks (the spec's enums and bounds).
Status CheckActivity(const ReportActivity& a);
// The spec's ReportActivitySource.
bool IsActivitySource(const std::string& source);

}  // namespace pc
