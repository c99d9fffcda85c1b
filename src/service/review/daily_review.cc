#include "service/review/daily_review.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>

#include "common/clock.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "extract/review_prompt.h"
#include "model/review.h"
#include "service/core/actor.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/handoff/handoff_service.h"
#include "service/memory/write_gates.h"
#include "service/review/review_service.h"

namespace pc {
namespace {

constexpr const char* kDayMarkerPrefix = "daily_review:";  // cursor per day: reviewed up to
constexpr size_t kReviewEntries = 40;

// [start, end) of a local calendar day in ms; InvalidArgument for anything but a real YYYY-MM-DD.
Result<std::pair<int64_t, int64_t>> LocalDay(const std::string& date) {
  auto bad = [&] {
    return FieldError("date", "date must be a day as YYYY-MM-DD, got \"" + date + "\"");
  };
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return bad();
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (date[i] < '0' || date[i] > '9') return bad();
  std::tm tm{};
  tm.tm_year = std::stoi(date.substr(0, 4)) - 1900;
  tm.tm_mon = std::stoi(date.substr(5, 2)) - 1;
  tm.tm_mday = std::stoi(date.substr(8, 2));
  tm.tm_isdst = -1;
  std::tm check = tm;
  const std::time_t start = std::mktime(&tm);
  if (start == -1 || tm.tm_year != check.tm_year || tm.tm_mon != check.tm_mon ||
      tm.tm_mday != check.tm_mday)
    return bad();  // 2026-02-30 normalizes to March: not a day
  std::tm next = check;
  next.tm_mday += 1;
  next.tm_isdst = -1;
  const std::time_t end = std::mktime(&next);
  return std::make_pair(static_cast<int64_t>(start) * 1000, static_cast<int64_t>(end) * 1000);
}

std::string PublicId(const Source& s) {
  auto parts = ParseSourceRef(SourceRef(s));
  return parts ? parts->source_id : s.source_id;
}

HandoffCitation SourceCitation(const Source& s) {
  HandoffCitation c;
  c.kind = HandoffCitationKind::kSource;
  c.source_name = kContentSourceName;
  c.source_id = PublicId(s);
  return c;
}

}  // namespace

LocalNow ReadLocalNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return LocalNow{buf, tm.tm_hour * 60 + tm.tm_min};
}

std::string LocalDate() { return ReadLocalNow().date; }

Result<std::optional<int>> ParseReviewSchedule(const std::string& value) {
  if (value.empty() || value == "off") return std::optional<int>();
  if (value.size() == 5 && value[2] == ':' && std::isdigit(static_cast<unsigned char>(value[0])) &&
      std::isdigit(static_cast<unsigned char>(value[1])) &&
      std::isdigit(static_cast<unsigned char>(value[3])) &&
      std::isdigit(static_cast<unsigned char>(value[4]))) {
    const int h = std::stoi(value.substr(0, 2)), m = std::stoi(value.substr(3, 2));
    if (h < 24 && m < 60) return std::optional<int>(h * 60 + m);
  }
  return InvalidArgument("review_schedule must be HH:MM (local time, 00:00–23:59) or off, got \"" +
                         value + "\"");
}

Result<bool> DailyReviewService::Due(const std::string& scope_id, const std::string& date_in) {
  const std::string date = date_in.empty() ? LocalDate() : date_in;
  PC_ASSIGN_OR_RETURN(auto day, LocalDay(date));
  bool due = false;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();
    PC_ASSIGN_OR_RETURN(int64_t marker, txn.GetCursor(memory->scope_id, memory->artifact_id,
                                                      kDayMarkerPrefix + date));
    if (marker > 0) return Status::Ok();
    PC_ASSIGN_OR_RETURN(int64_t cursor,
                        txn.GetCursor(memory->scope_id, memory->artifact_id, kDailyReviewConsumer));
    PC_ASSIGN_OR_RETURN(auto next, txn.ListSources(memory->scope_id, cursor, 1));
    due = !next.empty() && next[0].created_at_ms < day.second;
    return Status::Ok();
  }));
  return due;
}

// A retire proposal found by the scan: `older` nearly says what `newer` says.
struct DailyReviewService::RetirePlan {
  EntryVersion older;
  std::string newer_entry, newer_text;
  double similarity = 0;
};

// What the day brought, read (not locked): the sources after the review cursor captured before
// the day ends, the entries shown to the model, and the near-duplicates among the entries changed
// since the last review.
struct DailyReviewService::Scan {
  Artifact memory;
  std::vector<Source> sources;
  std::vector<ManifestItem> entries;
  std::vector<RetirePlan> retires;
  int64_t start_cursor = 0;
};

// A proposed Experience, checked, with the candidate id it will be saved under.
struct DailyReviewService::Proposal {
  ProposeExperienceRequest req;
  std::string json, candidate_id;
};

Result<DailyReviewOutcome> DailyReviewService::Run(const std::string& scope_id,
                                                   const std::string& date_in,
                                                   const std::string& actor) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  DailyReviewOutcome out;
  out.date = date_in.empty() ? LocalDate() : date_in;
  PC_ASSIGN_OR_RETURN(auto day, LocalDay(out.date));
  if (!extractor_)
    return Status(Code::kCapabilityUnavailable,
                  "the daily review needs an extraction provider and none is configured (set "
                  "extract_provider)");
  std::lock_guard<std::mutex> one_at_a_time(
      run_mu_);  // in this process; across servers, the cursor check below

  Scan scan;
  PC_RETURN_IF_ERROR(ScanDay(scope_id, day.second, out, scan));
  if (out.already_reviewed || scan.memory.artifact_id.empty() || out.cursor == scan.start_cursor)
    return out;  // nothing new
  out.sources_reviewed = static_cast<int64_t>(scan.sources.size());

  // The model's proposals (outside any transaction).
  DailyReviewAnswer answer;
  ModelUsage usage;
  if (!scan.sources.empty()) {
    auto raw =
        extractor_->Extract(BuildDailyReviewRequest(out.date, scan.sources, scan.entries), usage);
    if (!raw.ok())
      return Status(raw.status().code(),
                    "the daily review failed, nothing was proposed: " + raw.status().message());
    PC_ASSIGN_OR_RETURN(answer, ParseDailyReviewAnswer(*raw, scan.sources.size()));
    out.rejected = std::move(answer.rejected);
  }
  std::vector<Proposal> proposals;
  for (const ReviewedExperience& x : answer.experiences) {
    Proposal p;
    p.req.scope_id = scope_id;
    p.req.proposal = ExperienceContent{x.situation, x.action, x.outcome, x.lesson};
    for (size_t i : x.evidence)
      p.req.evidence.sources.push_back({kContentSourceName, PublicId(scan.sources[i])});
    p.req.reason = "daily review of " + out.date;
    p.json = x.json;
    p.candidate_id = NewId(kCandidatePrefix);
    if (Status ok = ReviewService::CheckProposeRequest(p.req); !ok.ok())
      out.rejected.push_back({x.json, "experience: " + ok.message()});
    else
      proposals.push_back(std::move(p));
  }

  std::vector<Rejection> late;
  PC_RETURN_IF_ERROR(CommitDay(scope_id, actor, scan, proposals, out, late));
  // The model's tokens count as memory extraction (the same provider, reading the same sources),
  // recorded once the review has committed: a failed review leaves the store as it was.
  if (usage.requests > 0)
    RecordUsage(store_, scope_id, UsagePurpose::kMemoryExtraction, UsageOperation::kGeneration,
                usage);
  for (Rejection& r : late) out.rejected.push_back(std::move(r));
  if (answer.tomorrow) WriteTomorrow(scope_id, actor, *answer.tomorrow, scan.sources, out);
  return out;
}

Status DailyReviewService::ScanDay(const std::string& scope_id, int64_t day_end,
                                   DailyReviewOutcome& out, Scan& scan) {
  return store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> found, FindMemory(txn, scope_id));
    if (!found) return Status::Ok();
    const Artifact& memory = scan.memory = *found;
    PC_ASSIGN_OR_RETURN(int64_t marker, txn.GetCursor(memory.scope_id, memory.artifact_id,
                                                      kDayMarkerPrefix + out.date));
    if (marker > 0) {
      out.already_reviewed = true;
      out.cursor = marker;
      return Status::Ok();
    }
    PC_ASSIGN_OR_RETURN(scan.start_cursor,
                        txn.GetCursor(memory.scope_id, memory.artifact_id, kDailyReviewConsumer));
    out.cursor = scan.start_cursor;
    PC_ASSIGN_OR_RETURN(auto window,
                        txn.ListSources(memory.scope_id, scan.start_cursor, kMaxReviewSources));
    for (Source& s : window) {
      if (s.created_at_ms >= day_end) break;
      out.cursor = s.position;
      // Archive is kept, not reviewed; a Task Outcome is archive only to stay out of extraction.
      if (s.purpose != kPurposeArchive || s.kind == kTaskOutcomeSourceKind)
        scan.sources.push_back(std::move(s));
    }
    if (out.cursor == scan.start_cursor || memory.head_revision == 0) return Status::Ok();
    PC_ASSIGN_OR_RETURN(scan.entries,
                        txn.ListManifest(memory.artifact_id, memory.head_revision, false, "",
                                         static_cast<int>(kReviewEntries)));
    return FindRetires(txn, scan);
  });
}

// The near-duplicates among the entries changed since the last review: of each pair, the older
// entry is proposed for retirement (an entry in one proposal at most).
Status DailyReviewService::FindRetires(ReadTxn& txn, Scan& scan) {
  const Artifact& memory = scan.memory;
  PC_ASSIGN_OR_RETURN(int64_t last_revision, txn.GetCursor(memory.scope_id, memory.artifact_id,
                                                           kReviewedRevisionConsumer));
  PC_ASSIGN_OR_RETURN(auto changed,
                      txn.ChangedEntries(memory.artifact_id, last_revision, memory.head_revision));
  if (changed.size() > kMaxReviewScan) changed.resize(kMaxReviewScan);
  std::set<std::string> proposed;
  for (const std::string& entry : changed) {
    if (scan.retires.size() >= kMaxRetireProposals) break;
    PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> item,
                        txn.FindManifestItem(memory.artifact_id, memory.head_revision, entry));
    if (!item || !item->active || proposed.count(entry)) continue;
    PC_ASSIGN_OR_RETURN(
        auto near, FindNearDuplicates(txn, memory, item->version.text, std::nullopt, "", entry));
    for (const NearDuplicate& d : near) {
      if (scan.retires.size() >= kMaxRetireProposals || proposed.count(d.citation.entry_id))
        continue;
      PC_ASSIGN_OR_RETURN(
          std::optional<ManifestItem> older,
          txn.FindManifestItem(memory.artifact_id, memory.head_revision, d.citation.entry_id));
      if (!older || older->version.created_by_revision > item->version.created_by_revision)
        continue;  // keep the newest
      proposed.insert(d.citation.entry_id);
      proposed.insert(entry);
      scan.retires.push_back(RetirePlan{older->version, entry, item->version.text, d.similarity});
    }
  }
  return Status::Ok();
}

// A retire candidate for `r`, proposed against the memory at `now`.
ArtifactCandidate DailyReviewService::RetireCandidate(const Artifact& now, const RetirePlan& r,
                                                      const std::string& date,
                                                      const std::string& actor, int64_t now_ms) {
  ArtifactCandidate c;
  c.scope_id = now.scope_id;
  c.candidate_id = NewId(kCandidatePrefix);
  c.family = kMemoryCandidateFamily;
  c.current.version = 1;
  c.current.memory = MemoryProposal{
      "retire", r.older.kind, r.older.text, r.older.entry_id, r.older.entry_version_id, {}, {}};
  c.current.target = MemoryRef{now.family, now.artifact_id, now.head_revision};
  char similarity[16];
  std::snprintf(similarity, sizeof similarity, "%.2f", r.similarity);
  c.current.reason = "daily review of " + date + ": nearly the same (similarity " + similarity +
                     ") as the newer " + r.newer_entry + ": \"" + CutUtf8(r.newer_text, 300) +
                     "\"; retire this one, or reject to keep both";
  c.current.actor = actor;
  c.current.created_at_ms = c.created_at_ms = c.updated_at_ms = now_ms;
  return c;
}

// Every proposal, and the day marked reviewed, in one transaction: a review that another one
// overtook (same scope, any day) proposes nothing.
Status DailyReviewService::CommitDay(const std::string& scope_id, const std::string& actor,
                                     const Scan& scan, const std::vector<Proposal>& proposals,
                                     DailyReviewOutcome& out, std::vector<Rejection>& late) {
  const int64_t now_ms = NowMillis();
  return store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    late.clear();
    out.experience_candidates.clear();
    out.retire_candidates.clear();
    PC_ASSIGN_OR_RETURN(Artifact now, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(int64_t marker,
                        txn.GetCursor(now.scope_id, now.artifact_id, kDayMarkerPrefix + out.date));
    PC_ASSIGN_OR_RETURN(int64_t cursor,
                        txn.GetCursor(now.scope_id, now.artifact_id, kDailyReviewConsumer));
    if (marker > 0 || cursor != scan.start_cursor)
      return Status(Code::kReviewOvertaken,
                    "another daily review of this scope ran meanwhile; nothing was proposed")
          .WithDetail("scope_id", scope_id);
    for (const Proposal& p : proposals) {
      Result<ArtifactCandidate> c =
          ReviewService::ProposeExperienceIn(txn, p.req, actor, p.candidate_id, now_ms);
      if (c.ok())
        out.experience_candidates.push_back(c->candidate_id);
      else if (c.status().code() == Code::kInvalidArgument)
        late.push_back({p.json, "experience: " + c.status().message()});
      else
        return c.status();
    }
    for (const RetirePlan& r : scan.retires) {
      // Still as scanned: the older entry at that version, the newer one active.
      PC_ASSIGN_OR_RETURN(
          std::optional<ManifestItem> older,
          txn.FindManifestItem(now.artifact_id, now.head_revision, r.older.entry_id));
      PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> newer,
                          txn.FindManifestItem(now.artifact_id, now.head_revision, r.newer_entry));
      if (!older || !older->active || older->version.entry_version_id != r.older.entry_version_id ||
          !newer || !newer->active)
        continue;
      ArtifactCandidate c = RetireCandidate(now, r, out.date, actor, now_ms);
      PC_RETURN_IF_ERROR(txn.SaveCandidate(c, true));
      out.retire_candidates.push_back(c.candidate_id);
    }
    const int64_t reviewed =
        std::max<int64_t>(out.cursor, 1);  // a day marker is never 0 (0 = not reviewed)
    PC_RETURN_IF_ERROR(
        txn.SetCursor(now.scope_id, now.artifact_id, kDailyReviewConsumer, out.cursor));
    PC_RETURN_IF_ERROR(
        txn.SetCursor(now.scope_id, now.artifact_id, kDayMarkerPrefix + out.date, reviewed));
    return txn.SetCursor(now.scope_id, now.artifact_id, kReviewedRevisionConsumer,
                         now.head_revision);
  });
}

// The tomorrow note, as a handoff revision (compare-and-set on the handoff head it was built on).
// A note that cannot be written is a rejection of the answer, not a failed review.
void DailyReviewService::WriteTomorrow(const std::string& scope_id, const std::string& actor,
                                       const ReviewNote& tomorrow,
                                       const std::vector<Source>& sources,
                                       DailyReviewOutcome& out) {
  HandoffStatement note;
  note.text = "Tomorrow (daily review of " + out.date + "): " + tomorrow.text;
  for (size_t i : tomorrow.evidence) note.citations.push_back(SourceCitation(sources[i]));
  auto latest = handoff_.Get(scope_id, std::nullopt);
  Status written =
      latest.ok() || latest.status().code() == Code::kNotFound ? Status::Ok() : latest.status();
  if (written.ok()) {
    HandoffContent content;
    if (latest.ok()) {
      content = latest->content;
      if (content.state.size() >= kMaxHandoffStatements) content.state.erase(content.state.begin());
      content.state.push_back(note);
    } else {
      content.objective = "Daily review of " + out.date;
      content.state.push_back(note);
      content.next_action = note;
    }
    auto prepared = handoff_.Finalize(scope_id, content);
    if (prepared.ok()) {
      // Built on the revision read above: a handoff committed since is a conflict, not
      // overwritten.
      prepared->base = latest.ok() ? std::optional<MemoryRef>(latest->ref) : std::nullopt;
      auto committed = handoff_.Commit(scope_id, *prepared, actor);
      if (committed.ok()) out.handoff = committed->handoff.ref;
      written = committed.status();
    } else {
      written = prepared.status();
    }
  }
  if (!written.ok()) out.rejected.push_back({tomorrow.text, "tomorrow: " + written.message()});
}

}  // namespace pc
