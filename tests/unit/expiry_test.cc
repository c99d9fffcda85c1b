// Expiry (docs/expiry.md) through the services and routes against the real store (SQLite, and
// PostgreSQL under POWERCONTEXT_TEST_STORE=postgresql), with the clock moved by the test: an entry
// past its valid_until leaves search, lists and prepared context at the head, the expiry pass
// retires it as an ordinary revision (actor system, reason expired), and history, old citations and
// as-of lists read as before.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "auth/request_context.h"
#include "common/clock.h"
#include "routed_services.h"
#include "service/admin/token_service.h"
#include "test_util.h"

namespace pc {
namespace {

using Json = nlohmann::json;
constexpr int64_t kHour = 3600 * 1000;
constexpr int64_t kDay = 24 * kHour;

// Moves the clock for one test; back to the real time after it, whatever happens.
struct ClockOffset {
  ~ClockOffset() { SetClockOffsetForTesting(0); }
  void Set(int64_t ms) { SetClockOffsetForTesting(ms); }
};

class ExpiryTest : public ::testing::Test {
 protected:
  explicit ExpiryTest(ServiceLimits limits = {}) : f(limits) {}

  Result<WriteOutcome> Remember(const std::string& kind, const std::string& text,
                                const std::string& valid_until = "") {
    RememberRequest r{scope, kind, text, "", "test", std::nullopt, {}};
    r.valid_until = valid_until;
    return f.memory->Remember(r);
  }
  std::vector<std::string> Texts(const std::vector<ManifestItem>& items) {
    std::vector<std::string> out;
    for (const ManifestItem& m : items) out.push_back(m.version.text);
    return out;
  }
  std::vector<std::string> Listed(std::optional<int64_t> revision = std::nullopt,
                                  bool inactive = false) {
    ListEntriesRequest r;
    r.scope_id = scope;
    r.revision = revision;
    r.include_inactive = inactive;
    auto page = f.memory->ListEntries(r);
    EXPECT_TRUE(page.ok()) << page.status().message();
    return page.ok() ? Texts(page->items) : std::vector<std::string>{};
  }
  std::vector<std::string> Found(const std::string& query) {
    SearchRequest r;
    r.scope_id = scope;
    r.query = query;
    r.mode = SearchMode::kFts;
    auto found = search.Search(r);
    EXPECT_TRUE(found.ok()) << found.status().message();
    std::vector<std::string> out;
    if (found.ok())
      for (const SearchHit& h : found->hits) out.push_back(h.item.version.text);
    return out;
  }
  int64_t Head() { return f.memory->GetScope(scope)->memory_head_revision; }

  testing::Fixture f;
  std::string scope = f.NewScope("project:expiry");
  SearchService search{*f.store};
  ClockOffset clock;
};

const std::string kNote = "Working on the invoice importer retry loop today";
const std::string kFact = "The invoice importer retries three times";

TEST_F(ExpiryTest, PastValidUntilLeavesTheHeadAndThePassRetiresIt) {
  auto note = Remember("working_note", kNote, "1h");
  PC_ASSERT_OK(note);
  ASSERT_TRUE(note->entry->valid_until_ms);
  EXPECT_NEAR(static_cast<double>(*note->entry->valid_until_ms - note->entry->created_at_ms),
              static_cast<double>(kHour), 5000.0);
  auto fact = Remember("fact", kFact);
  PC_ASSERT_OK(fact);
  EXPECT_FALSE(fact->entry->valid_until_ms);
  const int64_t written = Head();
  EXPECT_EQ(Found("invoice importer").size(), 2u);
  EXPECT_EQ(Listed().size(), 2u);

  clock.Set(2 * kHour);  // the note's hour is over; the pass has not run yet
  EXPECT_EQ(Found("invoice importer"), std::vector<std::string>{kFact});
  EXPECT_EQ(Listed(), std::vector<std::string>{kFact});
  EXPECT_EQ(Listed(std::nullopt, /*inactive=*/true).size(), 2u) << "asked for, it is shown";
  EXPECT_EQ(Head(), written) << "hiding writes nothing";

  auto pass = f.memory->RetireExpired(0);
  PC_ASSERT_OK(pass);
  EXPECT_EQ(pass->retired, 1);
  EXPECT_EQ(pass->revisions, 1);
  EXPECT_TRUE(pass->complete);
  ASSERT_EQ(Head(), written + 1);
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto rev, txn.FindRevision(note->memory.artifact_id, written + 1));
    EXPECT_TRUE(rev);
    if (!rev) return Status::Ok();
    EXPECT_EQ(rev->actor, "system");
    EXPECT_EQ(rev->reason, "expired");
    EXPECT_EQ(rev->changes.size(), 1u);
    EXPECT_EQ(rev->changes[0].op, ChangeOp::kRetire);
    EXPECT_EQ(rev->changes[0].entry_id, note->citation->entry_id);
    return Status::Ok();
  }));
  // History reads exactly as before: the old citation, and the revision the note was current at
  // (made before its hour was over, so it was valid then).
  auto read = f.memory->Read(scope, *note->citation);
  PC_ASSERT_OK(read);
  EXPECT_EQ(read->version.text, kNote);
  EXPECT_TRUE(read->active_at_revision);
  EXPECT_FALSE(read->current);
  EXPECT_EQ(Listed(written).size(), 2u);
  EXPECT_EQ(Listed(), std::vector<std::string>{kFact});

  auto again = f.memory->RetireExpired(0);
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->retired, 0) << "a retired entry is not retired twice";
  EXPECT_EQ(Head(), written + 1);
}

TEST_F(ExpiryTest, APastRevisionListsWhatWasValidWhenItWasMade) {
  auto note = Remember("working_note", kNote, "1h");
  PC_ASSERT_OK(note);
  clock.Set(2 * kHour);
  // A write after the note's hour, before any pass: its revision did not hold the note as valid.
  PC_ASSERT_OK(Remember("fact", kFact));
  const int64_t later = Head();
  clock.Set(3 * kHour);
  EXPECT_EQ(Listed(later), std::vector<std::string>{kFact});
  EXPECT_EQ(Listed(note->memory.revision), std::vector<std::string>{kNote});
}

// A remember of an expired entry's exact text, before the pass: acknowledged as a new entry (in the
// same revision the expired one is retired), never as a duplicate the pass then retires.
TEST_F(ExpiryTest, RememberingAnExpiredTextAgainKeepsTheNewWrite) {
  auto note = Remember("working_note", kNote, "1h");
  PC_ASSERT_OK(note);
  clock.Set(2 * kHour);
  auto again = Remember("working_note", kNote);
  PC_ASSERT_OK(again);
  ASSERT_TRUE(again->changed) << "not a duplicate of an expired entry";
  EXPECT_NE(again->citation->entry_id, note->citation->entry_id);
  EXPECT_EQ(Listed(), std::vector<std::string>{kNote});
  EXPECT_EQ(Listed(std::nullopt, /*inactive=*/true).size(), 2u);
  auto pass = f.memory->RetireExpired(0);
  PC_ASSERT_OK(pass);
  EXPECT_EQ(pass->retired, 0) << "the write retired the expired one already";
  EXPECT_EQ(Found("retry loop"), std::vector<std::string>{kNote});

  // The batch, the same.
  auto other = Remember("working_note", kFact, "1h");
  PC_ASSERT_OK(other);
  clock.Set(4 * kHour);
  RememberBatchRequest batch{
      scope, {{scope, "working_note", kFact, "", "", std::nullopt, {}}}, "", "test", std::nullopt};
  auto done = f.memory->RememberBatch(batch);
  PC_ASSERT_OK(done);
  ASSERT_EQ(done->entries.size(), 1u);
  EXPECT_TRUE(done->entries[0].changed);
  EXPECT_FALSE(done->entries[0].duplicate_of);
  EXPECT_EQ(Listed().size(), 2u);
}

// The pass retires an active head that is not valid, whatever version the list saw, and the audit
// row of its revision names each entry once.
TEST_F(ExpiryTest, ThePassJudgesTheHeadVersionAndAuditsEachEntryOnce) {
  for (int i = 0; i < 3; ++i)
    PC_ASSERT_OK(Remember("working_note", "Note number " + std::to_string(i) + " about it", "1h"));
  clock.Set(2 * kHour);
  auto pass = f.memory->RetireExpired(0);
  PC_ASSERT_OK(pass);
  EXPECT_EQ(pass->retired, 3);
  EXPECT_EQ(pass->revisions, 1);
  std::vector<AuditRecord> rows;
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(rows, txn.ListAudit(AuditQuery{}));
    return Status::Ok();
  }));
  ASSERT_FALSE(rows.empty());
  const Json targets = Json::parse(rows.front().targets_json);
  EXPECT_EQ(rows.front().operation, "expire_entries") << rows.front().targets_json;
  EXPECT_EQ(targets["entries"].size(), 3u) << rows.front().targets_json;
}

TEST_F(ExpiryTest, BadValidUntilIsRefusedAndChangesNothing) {
  PC_ASSERT_OK(Remember("fact", kFact));
  const int64_t head = Head();
  for (const std::string bad :
       {"yesterday", "2001-01-01", "0d", "-3h", "14", "2020-01-01T00:00:00Z", "2999-02-30"}) {
    auto r = Remember("working_note", kNote, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(r.status().message().find("valid_until"), std::string::npos) << bad;
  }
  EXPECT_EQ(Head(), head);
  auto dated = Remember("working_note", kNote, "2999-01-31");
  PC_ASSERT_OK(dated);
  EXPECT_EQ(FormatTimestamp(*dated->entry->valid_until_ms), "2999-01-31T00:00:00.000Z");
}

TEST_F(ExpiryTest, ReviseKeepsTheDateOrMovesIt) {
  auto note = Remember("working_note", kNote, "2d");
  PC_ASSERT_OK(note);
  const int64_t until = *note->entry->valid_until_ms;
  ReviseRequest fix{scope, *note->citation, kNote + ".", std::nullopt, "typo", "test", {}};
  auto fixed = f.memory->Revise(fix);
  PC_ASSERT_OK(fixed);
  EXPECT_EQ(fixed->entry->valid_until_ms, until) << "a revise that does not say keeps the date";

  ReviseRequest extend{scope, *fixed->citation, kNote + ".", std::nullopt, "", "test", {}};
  extend.valid_until = "30d";
  auto extended = f.memory->Revise(extend);
  PC_ASSERT_OK(extended);
  EXPECT_TRUE(extended->changed) << "the same text with another valid_until is a new version";
  EXPECT_GT(*extended->entry->valid_until_ms, until + 20 * kDay);

  ReviseRequest forever{scope, *extended->citation, kNote + ".", std::nullopt, "", "test", {}};
  forever.valid_until = "never";
  auto kept = f.memory->Revise(forever);
  PC_ASSERT_OK(kept);
  EXPECT_TRUE(kept->changed);
  EXPECT_FALSE(kept->entry->valid_until_ms);
}

TEST_F(ExpiryTest, BeforeThePassARevisedDateBringsAnEntryBackAndTheGateIgnoresIt) {
  auto note = Remember("working_note", kNote, "1h");
  PC_ASSERT_OK(note);
  const std::string again = "Working on the invoice importer retry loop again today";
  // The control: before its hour is over, the gate names the note.
  auto warned = f.memory->Remember(
      {"project:expiry-control", "working_note", kNote, "", "test", std::nullopt, {}});
  PC_ASSERT_OK(warned);
  auto named = f.memory->Remember(
      {"project:expiry-control", "working_note", again, "", "test", std::nullopt, {}});
  PC_ASSERT_OK(named);
  ASSERT_EQ(named->near_duplicates.size(), 1u) << "the control: a near-duplicate is named";
  clock.Set(2 * kHour);
  auto near = Remember("working_note", again);
  PC_ASSERT_OK(near);
  EXPECT_TRUE(near->near_duplicates.empty()) << "an expired entry is no near-duplicate to revise";
  ReviseRequest keep{
      scope,
      Citation{near->memory, note->citation->entry_id, note->citation->entry_version_id},
      kNote,
      std::nullopt,
      "it lasted",
      "test",
      {}};
  keep.valid_until = "7d";
  auto kept = f.memory->Revise(keep);
  PC_ASSERT_OK(kept);
  EXPECT_TRUE(kept->changed);
  EXPECT_EQ(Found("retry loop").size(), 2u) << "valid again";
  auto pass = f.memory->RetireExpired(0);
  PC_ASSERT_OK(pass);
  EXPECT_EQ(pass->retired, 0) << "its head version is valid: the pass leaves it";
}

class KindDefaultsTest : public ExpiryTest {
 protected:
  static ServiceLimits Limits() {
    ServiceLimits l;
    l.policy.expiry["working_note"] = 14 * kDay;
    return l;
  }
  KindDefaultsTest() : ExpiryTest(Limits()) {}
};

TEST_F(KindDefaultsTest, ServerDefaultsAreOverriddenKindByKindInAScope) {
  auto note = Remember("working_note", kNote);
  PC_ASSERT_OK(note);
  ASSERT_TRUE(note->entry->valid_until_ms);
  EXPECT_NEAR(static_cast<double>(*note->entry->valid_until_ms - note->entry->created_at_ms),
              static_cast<double>(14 * kDay), 5000.0);
  auto fact = Remember("fact", kFact);
  PC_ASSERT_OK(fact);
  EXPECT_FALSE(fact->entry->valid_until_ms) << "a kind without a default never expires";
  auto kept = Remember("working_note", "Keep this working note for good", "never");
  PC_ASSERT_OK(kept);
  EXPECT_FALSE(kept->entry->valid_until_ms);

  auto set = f.memory->SetSettings(scope, {{"expiry", "working_note=never, scratch=12h"}});
  PC_ASSERT_OK(set);
  EXPECT_EQ(set->effective.at("expiry"), "scratch=12h");
  auto note2 = Remember("working_note", "A second working note about the importer");
  PC_ASSERT_OK(note2);
  EXPECT_FALSE(note2->entry->valid_until_ms) << "the scope took the default away";
  auto scratch = Remember("scratch", "Scratch: try the retry loop with jitter");
  PC_ASSERT_OK(scratch);
  ASSERT_TRUE(scratch->entry->valid_until_ms);
  EXPECT_NEAR(static_cast<double>(*scratch->entry->valid_until_ms - scratch->entry->created_at_ms),
              static_cast<double>(12 * kHour), 5000.0);

  const int64_t head = Head();
  for (const std::string bad : {"working_note=14x", "=14d", "a=1d,a=2d", "working_note", "x=0d"}) {
    auto r = f.memory->SetSettings(scope, {{"expiry", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
  }
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(f.memory->GetSettings(scope)->effective.at("expiry"), "scratch=12h");
  PC_ASSERT_OK(f.memory->SetSettings(scope, {{"expiry", std::nullopt}}));
  EXPECT_EQ(f.memory->GetSettings(scope)->effective.at("expiry"), "working_note=14d");
}

// Spec clients never see the new fields; ours show them, and explain adds them to spec answers.
TEST_F(ExpiryTest, TheRoutesShowValidityOnlyToThoseWhoAsk) {
  testing::RoutedServices routed{f};
  ScopedRequest as_local(LocalAdministrator(), "test");
  auto post = [&](const std::string& path, const Json& body) {
    ApiRequest req{"POST", path, {}, {}, body.dump(), "http://127.0.0.1"};
    ApiResponse out = routed.router.Dispatch(req);
    EXPECT_EQ(out.status, 200) << path << " " << out.body.dump();
    return out.body;
  };
  Json spec =
      post("/v1/memory/remember",
           {{"scope_id", scope}, {"kind", "working_note"}, {"text", kNote}, {"valid_until", "1h"}});
  EXPECT_FALSE(spec["entry"].contains("valid_until")) << spec.dump();
  Json ours = post("/v1/memory/remember", {{"scope_id", scope},
                                           {"kind", "fact"},
                                           {"text", kFact},
                                           {"valid_until", "2999-01-31T12:00:00Z"},
                                           {"explain", true}});
  EXPECT_EQ(ours["entry"]["valid_until"], "2999-01-31T12:00:00.000Z") << ours.dump();
  EXPECT_TRUE(ours["entry"]["valid_from"].is_string());
  Json found = post(
      "/v1/memory/search",
      {{"scope_id", scope}, {"query", "invoice importer"}, {"mode", "fts"}, {"explain", true}});
  ASSERT_EQ(found["hits"].size(), 2u) << found.dump();
  for (const Json& h : found["hits"]) EXPECT_TRUE(h.contains("valid_until")) << h.dump();
  Json plain = post("/v1/memory/search", {{"scope_id", scope}, {"query", "invoice importer"}});
  for (const Json& h : plain["hits"]) EXPECT_FALSE(h.contains("valid_until")) << h.dump();

  ApiRequest bad{
      "POST",
      "/v1/memory/remember",
      {},
      {},
      Json{{"scope_id", scope}, {"kind", "fact"}, {"text", "x y z"}, {"valid_until", ""}}.dump(),
      "http://127.0.0.1"};
  ApiResponse refused = routed.router.Dispatch(bad);
  EXPECT_EQ(refused.status, 422) << refused.body.dump();

  clock.Set(2 * kHour);
  Json context = post("/v1/context/prepare",
                      {{"scope_id", scope}, {"query", "invoice importer"}, {"explain", true}});
  const std::string packed = context.dump();
  EXPECT_EQ(packed.find(kNote), std::string::npos) << "an expired note is not prepared: " << packed;
  EXPECT_NE(packed.find(kFact), std::string::npos) << packed;
}

TEST(ExpiryParsing, MomentsAndDurations) {
  EXPECT_EQ(ParseDurationMs("14d"), 14 * kDay);
  EXPECT_EQ(ParseDurationMs("36h"), 36 * kHour);
  EXPECT_EQ(ParseDurationMs("90m"), 90 * 60000);
  for (const char* bad : {"", "d", "0d", "-1d", "1.5d", "14", "14w", "3651d", " 1d",
                          "576460752303423489m", "576460752303423488m", "9223372036854775807d"})
    EXPECT_FALSE(ParseDurationMs(bad)) << bad << " (a multiplication that wraps is no duration)";
  EXPECT_EQ(ParseDurationMs("3650d"), 3650 * kDay);
  EXPECT_EQ(FormatDurationMs(14 * kDay), "14d");
  EXPECT_EQ(FormatDurationMs(36 * kHour), "36h");
  EXPECT_EQ(FormatDurationMs(90 * 60000), "90m");
  const int64_t now = *ParseRfc3339("2026-12-03T10:00:00Z");
  EXPECT_EQ(ParseMoment("2h", now), now + 2 * kHour);
  EXPECT_EQ(ParseMoment("2027-01-31", now), ParseRfc3339("2027-01-31T00:00:00Z"));
  EXPECT_EQ(ParseMoment("2027-01-31T12:00:00+01:00", now), ParseRfc3339("2027-01-31T11:00:00Z"));
  EXPECT_FALSE(ParseMoment("tomorrow", now));
  EXPECT_FALSE(ParseMoment("2027-02-30", now)) << "not moved to March 2";
  EXPECT_FALSE(ParseMoment("2027-04-31T00:00:00Z", now));
  EXPECT_EQ(ParseMoment("2028-02-29", now), ParseRfc3339("2028-02-29T00:00:00Z"));
  EXPECT_FALSE(ParseMoment("2027-02-29", now));
}

// Found on the way: a token's `expires` as a date ("2027-01-31", as its own message offers) was
// refused, since the parser took only the stored form with milliseconds.
TEST(ExpiryParsing, TokenExpiresTakesTheDatesItsMessageOffers) {
  const int64_t now = *ParseRfc3339("2026-12-03T10:00:00Z");
  auto date = ParseExpiry("2027-01-31", now);
  PC_ASSERT_OK(date);
  EXPECT_EQ(*date, ParseRfc3339("2027-01-31T00:00:00Z"));
  auto moment = ParseExpiry("2027-01-31T12:00:00Z", now);
  PC_ASSERT_OK(moment);
  EXPECT_EQ(*moment, ParseRfc3339("2027-01-31T12:00:00Z"));
  auto past = ParseExpiry("2001-01-01", now);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("in the past"), std::string::npos);
}

}  // namespace
}  // namespace pc
