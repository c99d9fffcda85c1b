// Handoff Reports beyond the catalog (RFC 0082, docs/handoff-reports.md) on the real store
// (SQLite, and PostgreSQL under the pg: prefix): workspace bindings are compare-and-set records
// whose first attach expects none; Activity Events are idempotent on (source, source_event_id) and
// page on a frozen cursor a purge never rewinds; a report selects each Workstream's head only when
// two reads agree, orders blockers first, counts what it covers, and its digests are stable (one
// selection digest across locales); its Markdown is deterministic (golden files, both locales).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "api/report_codec.h"
#include "common/clock.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "service/report/report_markdown.h"
#include "service/report/report_services.h"
#include "test_util.h"

namespace pc {
namespace {

class HandoffReportTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  ReportServices rs{*f.store};
  HandoffService handoffs{*f.store, nullptr};
  SourceService sources{*f.store};

  ReportProject Project(const std::string& key = "orders", const std::string& locale = "en") {
    auto p =
        rs.catalog.CreateProject({key, "Orders", std::nullopt, locale, "Asia/Shanghai"}, "creator");
    EXPECT_TRUE(p.ok()) << testing::Describe(p);
    return p.ok() ? *p : ReportProject{};
  }
  std::string Workstream(const ReportProject& p, const std::string& scope_key,
                         const std::string& title, std::optional<std::string> key = {}) {
    const std::string scope = f.NewScope(scope_key);
    auto w = rs.catalog.RegisterWorkstream(
        {p.project_id, scope_key, key, title, "feature", "included", {}, {}}, "registrar");
    EXPECT_TRUE(w.ok()) << testing::Describe(w);
    return scope;
  }
  // Commits a handoff on `scope` citing one of its sources; the new revision.
  MemoryRef Commit(const std::string& scope, HandoffDisposition d, const std::string& objective,
                   std::vector<std::string> omissions = {}) {
    const std::string evidence = "evidence-" + scope;
    (void)sources.Add(scope, {{"work_log", "", "the work so far on " + scope, "{}", evidence}});
    HandoffCitation c;
    c.kind = HandoffCitationKind::kSource;
    c.source_name = kContentSourceName;
    c.source_id = evidence;
    HandoffContent content;
    content.objective = objective;
    content.state = {{"Where it stands: " + objective, {c}}};
    content.disposition = d;
    if (d != HandoffDisposition::kComplete)
      content.next_action = HandoffStatement{"Next: " + objective, {c}};
    for (const std::string& o : omissions) content.omissions.push_back({o, std::nullopt});
    auto head = handoffs.Get(scope, std::nullopt);
    std::optional<MemoryRef> base;
    if (head.ok()) base = head->ref;
    auto committed = handoffs.Commit(scope, PreparedHandoff{scope, base, content});
    EXPECT_TRUE(committed.ok()) << testing::Describe(committed);
    return committed.ok() ? committed->handoff.ref : MemoryRef{};
  }
  Result<ActivityView> Record(const std::string& project_id, const std::string& source_event_id,
                              std::optional<std::string> scope = {},
                              std::optional<int64_t> occurred = {},
                              const std::string& source = "git_commit") {
    RecordActivityRequest r;
    r.event.project_id = project_id;
    r.event.source = source;
    r.event.source_event_id = source_event_id;
    r.event.time_basis = occurred ? "source_reported" : "unknown";
    r.event.occurred_at_ms = occurred;
    r.event.title = "commit " + source_event_id;
    r.scope = scope;
    return rs.activities.Record(r);
  }
  ReportRepositoryRef Repo() {
    return {"github", std::string("R_kgDO123"), std::string("https://github.com/acme/orders.git"),
            std::string(".")};
  }
};

TEST_F(HandoffReportTest, TheFirstAttachExpectsNoRecordAndEveryLaterOneNamesTheVersion) {
  ReportProject a = Project("a"), b = Project("b");
  auto missing = rs.workspaces.Get("ws_1");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  auto first = rs.workspaces.Attach({"ws_1", a.project_id, Repo(), std::nullopt});
  PC_ASSERT_OK(first);
  EXPECT_EQ(first->version, 1);
  EXPECT_EQ(first->state, "confirmed");
  // Expect-absent again: the record exists, so it is a conflict, and nothing changed.
  auto again = rs.workspaces.Attach({"ws_1", b.project_id, Repo(), std::nullopt});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kWorkspaceBindingConflict);
  // Bound to a, it cannot be attached to b without a detach.
  auto other = rs.workspaces.Attach({"ws_1", b.project_id, Repo(), 1});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), Code::kWorkspaceBindingConflict);
  EXPECT_EQ(rs.workspaces.Get("ws_1")->project_id, a.project_id);
  // A credential in the remote, or an absolute subpath, is refused naming the field.
  ReportRepositoryRef secret = Repo();
  secret.normalized_remote = "https://user:token@github.com/acme/orders.git";
  auto refused = rs.workspaces.Attach({"ws_2", a.project_id, secret, std::nullopt});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  ReportRepositoryRef absolute = Repo();
  absolute.subpath = "/home/me/orders";
  EXPECT_FALSE(rs.workspaces.Attach({"ws_2", a.project_id, absolute, std::nullopt}).ok());
  EXPECT_FALSE(rs.workspaces.Get("ws_2").ok());
  // Detach: a stale version is a conflict; the right one keeps the record, detached.
  auto stale = rs.workspaces.Detach("ws_1", 2);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), Code::kWorkspaceBindingConflict);
  auto detached = rs.workspaces.Detach("ws_1", 1);
  PC_ASSERT_OK(detached);
  EXPECT_EQ(detached->state, "detached");
  EXPECT_EQ(detached->version, 2);
  auto gone = rs.workspaces.Get("ws_1");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), Code::kNotFound);
  // Re-attached to another Project at the version it was detached at.
  auto moved = rs.workspaces.Attach({"ws_1", b.project_id, Repo(), 2});
  PC_ASSERT_OK(moved);
  EXPECT_EQ(moved->version, 3);
  EXPECT_EQ(rs.workspaces.Get("ws_1")->project_id, b.project_id);
  auto unknown = rs.workspaces.Attach({"ws_3", "prj_nope", Repo(), std::nullopt});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Code::kNotFound);
}

TEST_F(HandoffReportTest, ActivitiesAreIdempotentAndPageOnAFrozenCursorThatPurgeNeverRewinds) {
  ReportProject p = Project();
  ReportProject q = Project("other");
  const std::string scope = Workstream(p, "orders:parser", "Parser");
  auto one = Record(p.project_id, "abc123", "orders:parser", 1'700'000'000'000);
  PC_ASSERT_OK(one);
  EXPECT_EQ(one->event.event_id.rfind("act_", 0), 0u);
  EXPECT_EQ(one->scope_key, "orders:parser");
  // The same payload again: the same event, the same cursor.
  auto replay = Record(p.project_id, "abc123", "orders:parser", 1'700'000'000'000);
  PC_ASSERT_OK(replay);
  EXPECT_EQ(replay->event.event_id, one->event.event_id);
  EXPECT_EQ(replay->event.cursor, one->event.cursor);
  // Another payload under the same key is a conflict.
  auto changed = Record(p.project_id, "abc123", "orders:parser", 1'700'000'000'001);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), Code::kActivityEventConflict);
  // A scope of no Workstream of the Project is scope_not_grouped; an unknown Project 404.
  f.NewScope("loose");
  auto loose = Record(p.project_id, "def", "loose");
  ASSERT_FALSE(loose.ok());
  EXPECT_EQ(loose.status().code(), Code::kScopeNotGrouped);
  auto foreign = Record(q.project_id, "def", "orders:parser");
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.status().code(), Code::kScopeNotGrouped);
  EXPECT_EQ(Record("prj_nope", "def").status().code(), Code::kNotFound);
  // A source_reported event says when it occurred.
  RecordActivityRequest no_time;
  no_time.event = {"", p.project_id, {}, "git_commit", "x", {}, {}, 0, "source_reported"};
  EXPECT_EQ(rs.activities.Record(no_time).status().code(), Code::kInvalidArgument);

  for (int i = 0; i < 4; ++i)
    PC_ASSERT_OK(
        Record(p.project_id, "c" + std::to_string(i), std::nullopt, 1'700'000'100'000 + i * 1000));
  ListActivitiesRequest list{p.project_id};
  list.limit = 2;
  auto page1 = rs.activities.List(list);
  PC_ASSERT_OK(page1);
  ASSERT_EQ(page1->items.size(), 2u);
  ASSERT_TRUE(page1->next_cursor);
  // Recorded after the first page: not on the pages frozen at its watermark.
  PC_ASSERT_OK(Record(p.project_id, "late", std::nullopt, 1'700'000'200'000));
  std::vector<std::string> seen;
  for (const ActivityView& v : page1->items) seen.push_back(v.event.source_event_id);
  list.after_cursor = *page1->next_cursor;
  list.through_cursor = page1->high_watermark;
  while (true) {
    auto page = rs.activities.List(list);
    PC_ASSERT_OK(page);
    for (const ActivityView& v : page->items) seen.push_back(v.event.source_event_id);
    if (!page->next_cursor) break;
    list.after_cursor = *page->next_cursor;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"abc123", "c0", "c1", "c2", "c3"}));
  // A period keeps what occurred in it; a source filter its source.
  ListActivitiesRequest period{p.project_id, 1'700'000'101'000, 1'700'000'103'000};
  auto in = rs.activities.List(period);
  PC_ASSERT_OK(in);
  ASSERT_EQ(in->items.size(), 2u);
  EXPECT_EQ(in->items[0].event.source_event_id, "c1");

  const int64_t high = rs.activities.List({p.project_id})->high_watermark;
  auto purged = rs.activities.Purge(p.project_id, NowMillis() + 1000);
  PC_ASSERT_OK(purged);
  EXPECT_EQ(*purged, 6);
  EXPECT_TRUE(rs.activities.List({p.project_id})->items.empty());
  auto after = Record(p.project_id, "after-purge");
  PC_ASSERT_OK(after);
  EXPECT_GT(after->event.cursor, high);
}

TEST_F(HandoffReportTest, AReportOrdersBlockersFirstCountsCoverageAndKeepsOneSelectionDigest) {
  ReportProject p = Project();
  const std::string blocked = Workstream(p, "orders:export", "Export", "PC-2");
  const std::string parser = Workstream(p, "orders:parser", "Parser", "PC-1");
  Workstream(p, "orders:idle", "Idle");
  const std::string done = Workstream(p, "orders:done", "Done");
  Commit(blocked, HandoffDisposition::kBlocked, "Export the ledger");
  MemoryRef parser_ref =
      Commit(parser, HandoffDisposition::kContinuable, "Parse CSV", {"no benchmark yet"});
  Commit(done, HandoffDisposition::kComplete, "Ship it");
  const int64_t future = NowMillis() + 3'600'000;
  PC_ASSERT_OK(Record(p.project_id, "after", "orders:parser", future));
  PC_ASSERT_OK(Record(p.project_id, "idle-1", "orders:idle", future));
  PC_ASSERT_OK(Record(p.project_id, "free", std::nullopt));

  ReportRequest req{p.project_id};
  req.generated_at_ms = 1'780'000'000'000;
  auto r = rs.reports.Build(req);
  PC_ASSERT_OK(r);
  EXPECT_EQ(r->locale, "en");  // the Project's default
  EXPECT_EQ(r->report_kind, "handoff");
  ASSERT_EQ(r->workstreams.size(), 4u);
  EXPECT_EQ(r->workstreams[0].workstream.title, "Export");
  EXPECT_EQ(r->workstreams[1].workstream.title, "Parser");
  EXPECT_EQ(r->workstreams[2].workstream.title, "Idle");
  EXPECT_EQ(r->workstreams[3].workstream.title, "Done");
  EXPECT_EQ(r->workstreams[1].handoff->handoff.ref, parser_ref);
  EXPECT_EQ(r->workstreams[1].reporting_status, "reported_with_omissions");
  EXPECT_EQ(r->workstreams[1].activity_status, "activity_after_handoff");
  EXPECT_EQ(r->workstreams[1].activity_after_handoff, 1);
  EXPECT_EQ(r->workstreams[2].reporting_status, "activity_without_handoff");
  ASSERT_TRUE(r->workstreams[0].handoff->checks);
  EXPECT_TRUE(r->workstreams[0].handoff->checks->at(0).unavailable.empty());
  EXPECT_EQ(r->summary.blocked, 1);
  EXPECT_EQ(r->summary.continuable, 1);
  EXPECT_EQ(r->summary.complete, 1);
  EXPECT_EQ(r->summary.no_handoff, 1);
  EXPECT_EQ(r->coverage.selected_workstreams, 4);
  EXPECT_EQ(r->coverage.reported_with_omissions, 1);
  EXPECT_EQ(r->coverage.unassigned_activity_count, 1);
  EXPECT_EQ(r->coverage.unknown_activity_time_count, 1);
  EXPECT_EQ(r->coverage.activity_without_handoff_workstreams, 1);

  auto en = RenderReport(*r);
  PC_ASSERT_OK(en);
  req.locale = "zh-CN";
  auto zh_model = rs.reports.Build(req);
  PC_ASSERT_OK(zh_model);
  auto zh = RenderReport(*zh_model);
  PC_ASSERT_OK(zh);
  EXPECT_EQ(en->selection_digest, zh->selection_digest);
  EXPECT_NE(en->report_digest, zh->report_digest);
  EXPECT_NE(zh->markdown.find("## 项目概览"), std::string::npos);
  EXPECT_NE(en->markdown.find("## Project Overview"), std::string::npos);
  // The same selection again: the same bytes.
  auto again = RenderReport(*rs.reports.Build(req));
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->markdown, zh->markdown);
  // A new handoff is a new selection.
  Commit(parser, HandoffDisposition::kBlocked, "Parse CSV, blocked");
  auto moved = RenderReport(*rs.reports.Build(req));
  PC_ASSERT_OK(moved);
  EXPECT_NE(moved->selection_digest, zh->selection_digest);

  // Without evidence checks: not_checked, counted.
  req.include_evidence_checks = false;
  auto unchecked = rs.reports.Build(req);
  PC_ASSERT_OK(unchecked);
  EXPECT_EQ(unchecked->coverage.unchecked_evidence_workstreams, 3);
  EXPECT_FALSE(unchecked->workstreams[0].handoff->checks);
  EXPECT_EQ(RenderReport(*unchecked)->report["workstreams"][0]["evidence_checks"], "not_checked");
}

TEST_F(HandoffReportTest, BadRequestsAreRefusedWithTheirCodes) {
  ReportProject p = Project();
  ReportRequest bad{p.project_id};
  bad.locale = "fr";
  EXPECT_EQ(rs.reports.Build(bad).status().code(), Code::kUnsupportedReportLocale);
  bad = {p.project_id};
  bad.format = "html";
  EXPECT_EQ(rs.reports.Build(bad).status().code(), Code::kUnsupportedReportFormat);
  bad = {p.project_id};
  bad.period = ReportPeriod{2000, 1000};
  EXPECT_EQ(rs.reports.Build(bad).status().code(), Code::kInvalidReportPeriod);
  bad.period = ReportPeriod{0, int64_t{400} * 86400000};
  EXPECT_EQ(rs.reports.Build(bad).status().code(), Code::kInvalidReportPeriod);
  bad.period = ReportPeriod{0, 1000, std::string("Mars/Olympus")};
  EXPECT_EQ(rs.reports.Build(bad).status().code(), Code::kInvalidReportPeriod);
  EXPECT_EQ(rs.reports.Build({"prj_nope"}).status().code(), Code::kNotFound);
  // 101 Workstreams is past one report's 100: 413, never a silent cut.
  for (int i = 0; i < 101; ++i) Workstream(p, "ws:" + std::to_string(i), "W" + std::to_string(i));
  auto big = rs.reports.Build({p.project_id});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kReportTooLarge);
}

// RFC 0082: Activity Events are kept 90 days by default (1 to 365). The retention pass deletes
// every Project's older events, in batches, and never rewinds the sequence.
TEST_F(HandoffReportTest, TheRetentionPassDeletesEveryProjectsOlderEventsInBatches) {
  ReportProject p = Project();
  ReportProject q = Project("other");
  std::vector<int64_t> observed;
  for (const auto& [project, id] :
       std::vector<std::pair<std::string, std::string>>{{p.project_id, "p0"},
                                                        {p.project_id, "p1"},
                                                        {p.project_id, "p2"},
                                                        {q.project_id, "q0"},
                                                        {q.project_id, "q1"}}) {
    auto r = Record(project, id);
    PC_ASSERT_OK(r);
    observed.push_back(r->event.observed_at_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const int64_t high = rs.activities.List({p.project_id})->high_watermark;
  const int64_t day = 86'400'000;
  // Nothing is a day old yet.
  auto none = rs.activities.Prune(1, NowMillis());
  PC_ASSERT_OK(none);
  EXPECT_EQ(*none, 0);
  // A day after q0 was observed: p0, p1, p2 and q0 are older than a day, q1 is not; two a batch.
  auto pruned = rs.activities.Prune(1, observed[4] - 1 + day, nullptr, /*batch=*/2);
  PC_ASSERT_OK(pruned);
  EXPECT_EQ(*pruned, 4);
  EXPECT_TRUE(rs.activities.List({p.project_id})->items.empty());
  auto left = rs.activities.List({q.project_id});
  PC_ASSERT_OK(left);
  ASSERT_EQ(left->items.size(), 1u);
  EXPECT_EQ(left->items[0].event.source_event_id, "q1");
  auto again = Record(p.project_id, "p3");
  PC_ASSERT_OK(again);
  EXPECT_GT(again->event.cursor, high);
  // A stopped pass deletes nothing; retention is 1 to 365 days.
  std::atomic<bool> stop{true};
  auto stopped = rs.activities.Prune(1, NowMillis() + 400 * day, &stop);
  PC_ASSERT_OK(stopped);
  EXPECT_EQ(*stopped, 0);
  EXPECT_EQ(rs.activities.Prune(0, NowMillis()).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(rs.activities.Prune(366, NowMillis()).status().code(), Code::kInvalidArgument);
  // A batch of 0 is refused, not a pass that never ends.
  EXPECT_EQ(rs.activities.Prune(1, NowMillis() + 400 * day, nullptr, 0).status().code(),
            Code::kInvalidArgument);
}

TEST_F(HandoffReportTest, MoreThanFiveThousandEventsIsTooLargeNeverCut) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "one store is enough for a count (5,001 writes)";
  ReportProject p = Project();
  for (int i = 0; i < 5001; ++i) PC_ASSERT_OK(Record(p.project_id, "e" + std::to_string(i)));
  auto big = rs.reports.Build({p.project_id});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kReportTooLarge);
  // A period that holds fewer is a report.
  ReportRequest week{p.project_id};
  week.period = ReportPeriod{0, 86'400'000};
  PC_ASSERT_OK(rs.reports.Build(week));
}

TEST_F(HandoffReportTest, TheSelectionIsTheHeadsTwoReadsAgreeOnAndMovingHeadsAreBusy) {
  ReportProject p = Project();
  const std::string scope = Workstream(p, "orders:parser", "Parser");
  Commit(scope, HandoffDisposition::kContinuable, "v1");
  MemoryRef last;
  // Reads: the freeze, then the two passes of heads: a commit after the first pass.
  testing::WriteBetweenReads once(
      *f.store, [&] { last = Commit(scope, HandoffDisposition::kBlocked, "v2"); }, 2);
  auto r = ReportService(once).Build({p.project_id});
  PC_ASSERT_OK(r);
  // The first two passes disagreed; the retry froze the newer head.
  ASSERT_TRUE(r->workstreams[0].handoff);
  EXPECT_EQ(r->workstreams[0].handoff->handoff.ref, last);
  EXPECT_EQ(r->selection_consistency, "optimistic_stable");
  int n = 0;
  testing::WriteBetweenReads always(
      *f.store, [&] { Commit(scope, HandoffDisposition::kContinuable, "v" + std::to_string(++n)); },
      2, true);
  auto busy = ReportService(always).Build({p.project_id});
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().code(), Code::kReportBusy);
}

TEST_F(HandoffReportTest, APeriodReportsItsActivityAndTheHandoffsObservedAtItsEnds) {
  ReportProject p = Project();
  const std::string scope = Workstream(p, "orders:parser", "Parser", "PC-1");
  MemoryRef v1 = Commit(scope, HandoffDisposition::kContinuable, "v1");
  MemoryRef v2 = Commit(scope, HandoffDisposition::kBlocked, "v2");
  const int64_t start = 1'780'000'000'000, end = start + 7 * 86'400'000;
  auto observe = [&](const MemoryRef& ref, int64_t at) {
    RecordActivityRequest r;
    r.event.project_id = p.project_id;
    r.event.source = "handoff_observation";
    r.event.source_event_id = ref.artifact_id + "@" + std::to_string(ref.revision);
    r.event.source_ref = ReportExternalRef{"other", "powercontext",
                                           ref.artifact_id + "@" + std::to_string(ref.revision)};
    r.event.occurred_at_ms = at;
    r.event.time_basis = "host_observed";
    r.scope = "orders:parser";
    PC_ASSERT_OK(rs.activities.Record(r));
  };
  observe(v1, start - 1000);
  observe(v2, start + 1000);
  PC_ASSERT_OK(Record(p.project_id, "in", "orders:parser", start + 5000));
  PC_ASSERT_OK(Record(p.project_id, "before", "orders:parser", start - 5000));
  PC_ASSERT_OK(Record(p.project_id, "after", "orders:parser", end + 5000));
  ReportRequest req{p.project_id};
  req.period = ReportPeriod{start, end, std::nullopt, true};
  auto r = rs.reports.Build(req);
  PC_ASSERT_OK(r);
  EXPECT_EQ(r->report_kind, "periodic");
  EXPECT_EQ(r->timezone, "Asia/Shanghai");  // the Project's
  ASSERT_EQ(r->workstreams.size(), 1u);
  const WorkstreamReport& w = r->workstreams[0];
  ASSERT_TRUE(w.handoff && w.baseline);
  EXPECT_EQ(w.handoff->handoff.ref, v2);
  EXPECT_EQ(w.baseline->handoff.ref, v1);
  EXPECT_EQ(w.end_basis, "observed");
  ASSERT_EQ(w.activities.size(), 2u);  // v2's observation and "in"
  ASSERT_TRUE(r->previous);
  EXPECT_EQ(r->previous->activity_count, 2);  // v1's observation and "before"
  EXPECT_EQ(r->previous->summary.continuable, 1);
  auto md = RenderReport(*r);
  PC_ASSERT_OK(md);
  EXPECT_NE(md->markdown.find("## Formal Handoff Changes"), std::string::npos);
  EXPECT_NE(md->markdown.find("2026-05-"), std::string::npos);  // dates in the Project's zone
  // Before any observation, the end is unknown, never the latest.
  req.period = ReportPeriod{start - int64_t{30} * 86'400'000, start - int64_t{29} * 86'400'000};
  auto early = rs.reports.Build(req);
  PC_ASSERT_OK(early);
  EXPECT_FALSE(early->workstreams[0].handoff);
  EXPECT_EQ(early->workstreams[0].end_basis, "end_unknown");
}

// A report model with fixed ids and times: the renderers' output is byte for byte the golden
// file's (POWERCONTEXT_UPDATE_GOLDEN=1 rewrites them).
HandoffReport GoldenModel(const std::string& locale) {
  HandoffReport r;
  r.locale = locale;
  r.format = "markdown";
  r.report_kind = "handoff";
  r.generated_at_ms = 1'786'000'000'000;
  r.project = {"prj_01golden", "powercontext",  "PowerContext", std::string("The memory server"),
               "zh-CN",        "Asia/Shanghai", "included",     3};
  r.timezone = "Asia/Shanghai";
  r.activity_cursor = 42;
  HandoffCitation c;
  c.kind = HandoffCitationKind::kSource;
  c.source_name = kContentSourceName;
  c.source_id = "run-17";
  WorkstreamReport blocked;
  blocked.workstream = {"scp_01a",
                        "prj_01golden",
                        std::string("PC-142"),
                        "parser-error-handling",
                        "bug",
                        "included",
                        {},
                        {"parser"},
                        2};
  blocked.scope_key = "powercontext:parser";
  SelectedHandoff h;
  h.basis = "latest";
  h.handoff.ref = {kHandoffFamily, "hnd_01parser", 4};
  h.handoff.created_at_ms = 1'785'990'000'000;
  h.handoff.content.objective = "解析器遇到坏行时给出<行号>并继续 | no *crash*";
  h.handoff.content.state = {{"坏行会被跳过并记录；还缺集成测试。", {c}}};
  h.handoff.content.disposition = HandoffDisposition::kBlocked;
  h.handoff.content.next_action = HandoffStatement{"Wait for the CSV fixture from #ops", {c}};
  h.handoff.content.omissions = {{"No benchmark yet", std::nullopt}};
  h.checks = std::vector<HandoffEvidenceCheck>{{0, {}}, {std::nullopt, {c}}};
  blocked.handoff = h;
  blocked.end_basis = "latest";
  blocked.reporting_status = "evidence_unavailable";
  blocked.activity_status = "activity_after_handoff";
  blocked.relation = "comparable";
  blocked.activity_after_handoff = 1;
  ReportActivity a;
  a.event_id = "act_01commit";
  a.project_id = "prj_01golden";
  a.scope_id = "scp_01a";
  a.source = "git_commit";
  a.source_event_id = "abc123";
  a.occurred_at_ms = 1'785'995'000'000;
  a.observed_at_ms = 1'785'996'000'000;
  a.time_basis = "source_reported";
  a.title = "fix: skip bad rows";
  a.cursor = 41;
  blocked.activities = {{a, std::string("powercontext:parser")}};
  WorkstreamReport idle;
  idle.workstream = {"scp_01b", "prj_01golden", std::nullopt, "docs", "other", "included", {}, {},
                     1};
  idle.scope_key = "powercontext:docs";
  idle.end_basis = "no_handoff";
  idle.reporting_status = "no_handoff";
  idle.activity_status = "none_observed";
  idle.relation = "no_handoff";
  r.workstreams = {blocked, idle};
  r.summary = {0, 1, 0, 1};
  r.coverage.total_included_workstreams = 2;
  r.coverage.catalog_matched_workstreams = 2;
  r.coverage.selected_workstreams = 2;
  r.coverage.missing_handoff_workstreams = 1;
  r.coverage.reported_with_omissions = 1;
  r.coverage.unavailable_evidence_workstreams = 1;
  r.coverage.activity_after_handoff_workstreams = 1;
  return r;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(PC_SOURCE_DIR) + "/tests/golden/handoff_report/" + name;
  if (const char* u = std::getenv("POWERCONTEXT_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "no golden file " << path;
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(actual, want.str()) << name << " differs from its golden file";
}

// Past 10 MiB of JSON or Markdown the report is 413 with its size, never cut: 100 Workstreams of
// 64 statements of 2,000 characters each is ~13 MB.
TEST(HandoffReportGolden, AReportOverTenMebibytesIsTooLargeWithItsSize) {
  HandoffReport r = GoldenModel("en");
  WorkstreamReport w = r.workstreams[0];
  HandoffStatement st = w.handoff->handoff.content.state[0];
  st.text = std::string(2000, 'x');
  w.handoff->handoff.content.state.assign(64, st);
  w.handoff->checks.reset();
  r.workstreams.assign(100, w);
  auto out = RenderReport(r);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kReportTooLarge);
  bool sized = false;
  for (const Detail& d : out.status().details())
    if (d.key == "estimated_bytes") sized = std::get<int64_t>(d.value) > int64_t{10} << 20;
  EXPECT_TRUE(sized) << out.status().ToString();
  r.workstreams.resize(50);  // half of it fits
  PC_ASSERT_OK(RenderReport(r));
}

TEST(HandoffReportGolden, TheMarkdownAndTheDigestsAreTheGoldenFilesInBothLocales) {
  for (const std::string locale : {"en", "zh-CN"}) {
    auto out = RenderReport(GoldenModel(locale));
    PC_ASSERT_OK(out);
    ExpectGolden(locale + ".md", out->markdown);
    ExpectGolden(locale + ".digests", out->selection_digest + "\n" + out->report_digest + "\n");
  }
  auto en = RenderReport(GoldenModel("en"));
  auto zh = RenderReport(GoldenModel("zh-CN"));
  EXPECT_EQ(en->selection_digest, zh->selection_digest);
  EXPECT_NE(en->report_digest, zh->report_digest);
  // Untrusted text is inert: no raw HTML, no table cell break, no heading.
  EXPECT_EQ(en->markdown.find("<行号>"), std::string::npos);
  EXPECT_NE(en->markdown.find("&lt;行号&gt;"), std::string::npos);
  EXPECT_NE(en->markdown.find("\\| no \\*crash\\*"), std::string::npos);
  EXPECT_EQ(EscapeMarkdownText("a\nb\u2028c<d>"), "a b c&lt;d&gt;");
}

}  // namespace
}  // namespace pc
