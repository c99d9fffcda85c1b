// The daily review (issue 17; docs/review.md, "The daily review"): once a day per scope, what the
// day brought is reviewed through the extraction provider, and everything it finds is proposed,
// never silently changed:
//   - experiences the day's sources show → pending Experience candidates (the review inbox);
//   - active entries that nearly say the same (search/near_duplicate.h, among the entries the
//     memory's revisions since the last review changed) → pending memory candidates that retire
//     the older one;
//   - a "tomorrow" note → a handoff revision (the latest handoff's content with the note added as
//     a cited statement; a new handoff when the scope has none).
// Idempotent per day: a day reviewed once answers `already_reviewed` and changes nothing.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "extract/extractor.h"
#include "extract/operations.h"
#include "model/review.h"
#include "model/types.h"
#include "store/store.h"

namespace pc {

struct ReviewNote;  // extract/review_prompt.h

class HandoffService;

inline constexpr int kMaxReviewSources =
    200;  // sources one review reads at most (the oldest first)
inline constexpr size_t kMaxRetireProposals =
    20;                                        // near-duplicate proposals one review makes at most
inline constexpr size_t kMaxReviewScan = 500;  // changed entries one review compares at most
inline constexpr const char* kDailyReviewConsumer =
    "daily_review";  // cursor: the last source reviewed

struct DailyReviewOutcome {
  std::string date;               // YYYY-MM-DD, the server's local time zone
  bool already_reviewed = false;  // this day was reviewed before: nothing was done now
  int64_t sources_reviewed = 0;
  int64_t cursor = 0;  // the last source position reviewed
  std::vector<std::string> experience_candidates, retire_candidates;
  std::optional<MemoryRef> handoff;  // the handoff revision carrying the tomorrow note
  std::vector<Rejection> rejected;   // what the model answered that was not usable, with reasons
};

class DailyReviewService {
 public:
  // `extractor` may be null: Run is then CapabilityUnavailable.
  DailyReviewService(Store& store, Extractor* extractor, HandoffService& handoff)
      : store_(store), extractor_(extractor), handoff_(handoff) {}

  bool available() const { return extractor_ != nullptr; }
  // Reviews the scope's sources after its review cursor that were captured before the end of
  // `date` (empty: today). One review at a time in this process; a review that another process
  // overtook answers Conflict and proposes nothing.
  Result<DailyReviewOutcome> Run(const std::string& scope_id, const std::string& date,
                                 const std::string& actor);
  // Whether `date` (empty: today) is unreviewed and the scope has sources after its review cursor.
  Result<bool> Due(const std::string& scope_id, const std::string& date);

 private:
  struct RetirePlan;
  struct Scan;
  struct Proposal;
  // Run's steps: what the day brought (one read), the model's proposals (no transaction), all of
  // them and the day marked reviewed (one write), and the tomorrow note (a handoff revision).
  Status ScanDay(const std::string& scope_id, int64_t day_end, DailyReviewOutcome& out, Scan& scan);
  static Status FindRetires(ReadTxn& txn, Scan& scan);
  static ArtifactCandidate RetireCandidate(const Artifact& now, const RetirePlan& r,
                                           const std::string& date, const std::string& actor,
                                           int64_t now_ms);
  Status CommitDay(const std::string& scope_id, const std::string& actor, const Scan& scan,
                   const std::vector<Proposal>& proposals, DailyReviewOutcome& out,
                   std::vector<Rejection>& late);
  void WriteTomorrow(const std::string& scope_id, const std::string& actor,
                     const ReviewNote& tomorrow, const std::vector<Source>& sources,
                     DailyReviewOutcome& out);
  Store& store_;
  Extractor* extractor_;
  HandoffService& handoff_;
  std::mutex run_mu_;
};

// Today in the server's local time zone, YYYY-MM-DD.
std::string LocalDate();
// Today and the minutes after local midnight, from one reading of the clock.
struct LocalNow {
  std::string date;
  int minutes = 0;
};
LocalNow ReadLocalNow();
// "HH:MM" → minutes after midnight; nullopt for "off" or empty; InvalidArgument otherwise.
Result<std::optional<int>> ParseReviewSchedule(const std::string& value);

}  // namespace pc
