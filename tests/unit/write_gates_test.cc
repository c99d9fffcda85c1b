// The write gates (docs/write-gates.md) through the services against the real store: reconcile
// (warn names the near-duplicate, reject refuses with 409 and an audit row of its own, off looks
// nothing up) on remember, revise and flush; evidence (URLs, sources and citations resolve in the
// scope; a write without any is a hypothesis, promoted by a revise that adds evidence; a scope may
// require it); per-scope settings over the server's defaults.
#include "service/memory/write_gates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bulk_fill.h"
#include "fake_chat.h"
#include "fake_openai.h"
#include "model/citation.h"
#include "providers/openai_chat_extractor.h"
#include "search/near_duplicate.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "service/review/review_service.h"
#include "test_util.h"

namespace pc {
namespace {

class WriteGatesTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  std::string scope = f.NewScope("project:gates");
  SourceService sources{*f.store};

  Result<WriteOutcome> Remember(const std::string& text, std::vector<std::string> evidence = {}) {
    return f.memory->Remember({scope, "fact", text, "", "test", std::nullopt, std::move(evidence)});
  }
  void Set(const std::string& name, std::optional<std::string> value) {
    PC_ASSERT_OK(f.memory->SetSettings(scope, {{name, value}}));
  }
  int64_t Head() { return f.memory->GetScope(scope)->memory_head_revision; }
  std::vector<AuditRecord> Audit() {
    std::vector<AuditRecord> rows;
    EXPECT_TRUE(f.store
                    ->Read([&](ReadTxn& txn) -> Status {
                      PC_ASSIGN_OR_RETURN(rows, txn.ListAudit(AuditQuery{}));
                      return Status::Ok();
                    })
                    .ok());
    return rows;
  }
};

TEST_F(WriteGatesTest, WarnNamesTheNearDuplicateAndStillWrites) {
  auto first = Remember("The importer rejects rows whose currency is not ISO 4217.");
  PC_ASSERT_OK(first);
  EXPECT_TRUE(first->near_duplicates.empty());
  auto second = Remember("The importer now rejects rows whose currency is not an ISO 4217 code.");
  PC_ASSERT_OK(second);
  EXPECT_TRUE(second->changed) << "warn writes";
  ASSERT_EQ(second->near_duplicates.size(), 1u);
  EXPECT_EQ(second->near_duplicates[0].citation.entry_id, first->citation->entry_id);
  EXPECT_GE(second->near_duplicates[0].similarity, kNearDuplicateThreshold);
  const std::string targets = Audit().front().targets_json;
  EXPECT_NE(targets.find("reconcile:warn:" + first->citation->entry_id), std::string::npos)
      << targets;

  auto unrelated = Remember("Invoices are stored in UTC.");
  PC_ASSERT_OK(unrelated);
  EXPECT_TRUE(unrelated->near_duplicates.empty());
  auto zh1 = Remember("导入失败的行写入 orders_rejected 表，并保留原始 CSV 行号。");
  PC_ASSERT_OK(zh1);
  auto zh2 = Remember("导入失败的行会写入 orders_rejected 表，保留原始 CSV 行号。");
  PC_ASSERT_OK(zh2);
  ASSERT_EQ(zh2->near_duplicates.size(), 1u) << "Chinese near-duplicates too";
  EXPECT_EQ(zh2->near_duplicates[0].citation.entry_id, zh1->citation->entry_id);
}

// The lookup reads a bounded sample of a common word's entries (SharedTermCandidates): a
// near-duplicate is still found by its rarer words however many entries share the common ones,
// and one made only of common words is found among the newest writes.
TEST_F(WriteGatesTest, TheLookupIsBoundedAndStillFindsOldAndRecentNearDuplicates) {
  const int64_t many = 3 * kReconcilePerTerm;
  auto filler = [](int64_t i) {
    return "orders importer batch " + std::to_string(i) + " finished overnight for team " +
           std::to_string(i % 7);
  };
  PC_ASSERT_OK(FillMemory(*f.store, *f.memory->GetScope(scope), many, filler, nullptr));
  auto old = Remember("The orders importer rejects decimal amounts that use a comma separator.");
  PC_ASSERT_OK(old);
  for (int i = 0; i < 40; ++i) PC_ASSERT_OK(Remember(filler(many + i)));
  auto again = Remember("The orders importer now rejects decimal amounts using a comma separator.");
  PC_ASSERT_OK(again);
  ASSERT_FALSE(again->near_duplicates.empty())
      << "found by its rarer words past " << many << " common ones";
  EXPECT_EQ(again->near_duplicates[0].citation.entry_id, old->citation->entry_id);

  // Every word common: the newest writes are compared.
  auto recent = Remember("orders importer batch finished overnight for team");
  PC_ASSERT_OK(recent);
  auto restated = Remember("orders importer batch finished overnight for the team");
  PC_ASSERT_OK(restated);
  bool named = false;
  for (const NearDuplicate& d : restated->near_duplicates)
    named = named || d.citation.entry_id == recent->citation->entry_id;
  EXPECT_TRUE(named) << "a near-duplicate written just before, of common words only";

  // A retired entry is never a candidate.
  for (const auto& w : {old, again}) {
    Citation c = *w->citation;
    c.memory.revision = Head();
    auto retired = f.memory->Retire({scope, c, "superseded", "t"});
    PC_ASSERT_OK(retired);
  }
  auto third = Remember("The orders importer rejects decimal amounts which use a comma separator.");
  PC_ASSERT_OK(third);
  for (const NearDuplicate& d : third->near_duplicates) {
    EXPECT_NE(d.citation.entry_id, old->citation->entry_id) << "retired";
    EXPECT_NE(d.citation.entry_id, again->citation->entry_id) << "retired";
  }
}

// Issue 28: a write looks its near-duplicates up on a snapshot before its transaction, and inside
// only compares what changed since. Whatever was written, revised or retired in between, the answer
// is the one a lookup at the head gives.
TEST_F(WriteGatesTest, ALookupMadeBeforeTheWriteIsBroughtToTheHead) {
  const std::string text = "The billing importer rejects rows whose currency code is not ISO 4217.";
  auto at_head = [&](Citation c) {
    c.memory.revision = Head();
    return c;
  };
  auto kept = Remember("The billing importer rejects rows whose currency code is not in ISO 4217.");
  auto unlike = Remember("Invoices are archived after seven years in cold storage.");
  auto retired = Remember("Our billing importer rejects rows whose currency code is not ISO 4217!");
  for (const auto& w : {kept, unlike, retired}) PC_ASSERT_OK(w);
  const std::string none;
  const std::optional<std::vector<float>> no_vector;
  // The lookup on a snapshot, as LookUpBeforeWrite makes it where the store's reads pay for it.
  auto look_up = [&] {
    ReconcileLookup out;
    EXPECT_TRUE(f.store
                    ->Read([&](ReadTxn& txn) -> Status {
                      PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope));
                      PC_ASSIGN_OR_RETURN(
                          out.near, FindNearDuplicates(txn, memory, text, no_vector, none, ""));
                      out.artifact_id = memory.artifact_id;
                      out.revision = memory.head_revision;
                      return Status::Ok();
                    })
                    .ok());
    return out;
  };
  const ReconcileLookup before = look_up();
  ASSERT_EQ(before.revision, Head());
  EXPECT_EQ(before.near.size(), 2u) << "kept and retired, at the snapshot";
  const ReconcileLookup made = LookUpBeforeWrite(*f.store, ScopeRef::Parse(scope).value(),
                                                 WritePolicy{}, {{text, no_vector, none, ""}})[0];
  EXPECT_EQ(made.revision, f.store->ReadsBeforeWritesPay() ? Head() : 0);
  EXPECT_EQ(made.near.size(), f.store->ReadsBeforeWritesPay() ? 2u : 0u);

  // Meanwhile: one near-duplicate retired, an unlike entry revised into one.
  PC_ASSERT_OK(f.memory->Retire({scope, at_head(*retired->citation), "wrong", "t"}));
  auto revised =
      f.memory->Revise({scope,
                        at_head(*unlike->citation),
                        "The billing importer rejects any row whose currency code is not ISO 4217.",
                        std::nullopt,
                        "",
                        "t",
                        {}});
  PC_ASSERT_OK(revised);

  auto reconcile = [&](const ReconcileLookup* lookup) {
    std::vector<std::string> got;
    Status rolled_back = f.store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope));
      PC_ASSIGN_OR_RETURN(auto near, Reconcile(txn, ReconcilePolicy::kWarn, memory, text, no_vector,
                                               none, "", lookup));
      got.clear();
      for (const NearDuplicate& d : near)
        got.push_back(d.citation.entry_version_id + "@" +
                      std::to_string(d.citation.memory.revision));
      std::sort(got.begin(), got.end());
      return Internal("nothing to commit");
    });
    EXPECT_EQ(rolled_back.code(), Code::kInternal);
    return got;
  };
  std::vector<std::string> fresh = reconcile(nullptr);
  ASSERT_EQ(fresh.size(), 2u) << "kept and revised";
  EXPECT_EQ(reconcile(&before), fresh)
      << "caught up from revision " << before.revision << " to " << Head();

  // And a new near-duplicate written since.
  PC_ASSERT_OK(
      Remember("Billing importer: rows whose currency code is not ISO 4217 are rejected."));
  fresh = reconcile(nullptr);
  ASSERT_EQ(fresh.size(), 3u) << "kept, revised and added";
  EXPECT_EQ(reconcile(&before), fresh)
      << "caught up from revision " << before.revision << " to " << Head();

  // A lookup at the head is taken as it is: nothing is looked up again.
  ReconcileLookup current = look_up();
  ASSERT_FALSE(current.near.empty());
  EXPECT_EQ(reconcile(&current), fresh);
  current.near.resize(1);
  EXPECT_EQ(reconcile(&current).size(), 1u);
}

TEST_F(WriteGatesTest, RejectRefusesWithTheCitationAndAnAuditRow) {
  auto first = Remember("Deploys happen on Tuesdays after the standup.");
  PC_ASSERT_OK(first);
  Set(kSettingReconcile, "reject");
  const int64_t head = Head();
  auto refused = Remember("Deploys happen on Tuesdays, after the standup.");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kNearDuplicate);
  bool named = false;
  for (const Detail& d : refused.status().details())
    named = named ||
            (d.key == "near_duplicate_of" &&
             std::get<std::string>(d.value).find(first->citation->entry_id) != std::string::npos);
  EXPECT_TRUE(named) << refused.status().ToString();
  EXPECT_EQ(Head(), head) << "nothing written";
  const AuditRecord row = Audit().front();  // a copy: Audit() returns a temporary
  EXPECT_EQ(row.result, "refused");
  EXPECT_NE(row.targets_json.find("near_duplicate"), std::string::npos) << row.targets_json;
  EXPECT_FALSE(row.scope_id.empty());

  // The same text is still the exact duplicate's answer (no change), not a refusal.
  auto same = Remember("Deploys happen on Tuesdays after the standup.");
  PC_ASSERT_OK(same);
  EXPECT_FALSE(same->changed);

  Set(kSettingReconcile, "off");
  auto off = Remember("Deploys happen on Tuesdays, after the standup.");
  PC_ASSERT_OK(off);
  EXPECT_TRUE(off->near_duplicates.empty());
  Set(kSettingReconcile, std::nullopt);
  auto settings = f.memory->GetSettings(scope);
  PC_ASSERT_OK(settings);
  EXPECT_EQ(settings->effective.at(kSettingReconcile), "warn") << "cleared: the server's default";
  EXPECT_TRUE(settings->overrides.empty());
}

TEST_F(WriteGatesTest, ReviseIsReconciledAgainstOtherEntriesOnly) {
  auto a = Remember("Backups run nightly at 02:00 UTC.");
  auto b = Remember("The staging database is reset every Monday.");
  PC_ASSERT_OK(a);
  PC_ASSERT_OK(b);
  // Revises the entry at `c`, cited at the head revision, to `text`.
  auto revise = [&](Citation c, const std::string& text) {
    c.memory.revision = Head();
    return f.memory->Revise({scope, c, text, std::nullopt, "", "t", {}});
  };
  auto self = revise(*a->citation, "Backups run nightly at 02:30 UTC.");
  PC_ASSERT_OK(self);
  EXPECT_TRUE(self->near_duplicates.empty()) << "its own previous version is not a near-duplicate";
  Set(kSettingReconcile, "reject");
  auto onto = revise(*b->citation, "Backups run nightly at 02:30 UTC!");
  ASSERT_FALSE(onto.ok());
  EXPECT_EQ(onto.status().code(), Code::kNearDuplicate);
}

TEST_F(WriteGatesTest, EvidenceResolvesAndAHypothesisIsPromoted) {
  ASSERT_TRUE(
      sources.Add(scope, {{"chat", "", "We agreed deploys need two approvals.", "{}", "turn-7"}})
          .ok());
  auto cited = Remember("Deploys need two approvals.", {"turn-7", "https://wiki.example/deploys"});
  PC_ASSERT_OK(cited);
  ASSERT_EQ(cited->entry->source_refs.size(), 2u);
  EXPECT_EQ(cited->entry->source_refs[0].rfind("source/turn-7@", 0), 0u)
      << cited->entry->source_refs[0];
  EXPECT_EQ(cited->entry->source_refs[1], "url:https://wiki.example/deploys");
  EXPECT_FALSE(IsHypothesis(cited->entry->source_refs));

  auto bare = Remember("Release notes are written in English and Chinese.");
  PC_ASSERT_OK(bare);
  EXPECT_TRUE(IsHypothesis(bare->entry->source_refs));
  // The same text with a citation as evidence: a new version, no longer a hypothesis.
  const std::string cite = FormatCitation(*cited->citation);
  auto head = f.memory->GetScope(scope)->memory_head_revision;
  Citation at_head = *bare->citation;
  at_head.memory.revision = head;
  auto promoted = f.memory->Revise({scope,
                                    at_head,
                                    "Release notes are written in English and Chinese.",
                                    std::nullopt,
                                    "sourced",
                                    "t",
                                    {cite}});
  PC_ASSERT_OK(promoted);
  EXPECT_TRUE(promoted->changed);
  EXPECT_EQ(promoted->entry->version, 2);
  EXPECT_EQ(promoted->entry->source_refs, std::vector<std::string>{cite});

  // Found by review: an exact duplicate answered "no change" before its evidence was checked.
  auto dup_bad = Remember("Deploys need two approvals.", {"no-such-source"});
  ASSERT_FALSE(dup_bad.ok());
  EXPECT_EQ(dup_bad.status().code(), Code::kInvalidArgument);

  for (const std::string& bad :
       {std::string("no-such-source"), std::string("memory/mem_nope@1#ent_x@env_y"),
        std::string("has space"), std::string("")}) {
    const int64_t before = Head();
    auto r = Remember("Something else entirely " + bad, {bad});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad << ": " << r.status().ToString();
    EXPECT_EQ(Head(), before);
  }
}

TEST_F(WriteGatesTest, AScopeMayRequireEvidence) {
  Set(kSettingRequireEvidence, "true");
  const int64_t head = Head();
  auto refused = Remember("Payments are settled daily.");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kEvidenceRequired);
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(Audit().front().result, "refused");
  PC_ASSERT_OK(Remember("Payments are settled daily.", {"https://wiki.example/payments"}));
  // Another scope keeps the server's default.
  auto elsewhere = f.memory->Remember(
      {"project:other", "fact", "Payments are settled daily.", "", "t", std::nullopt, {}});
  PC_ASSERT_OK(elsewhere);
}

TEST_F(WriteGatesTest, SettingsAreCheckedAndAllOrNothing) {
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"reconcile", "sometimes"},
                                                        {"require_evidence", "yes"},
                                                        {"colour", "blue"},
                                                        {"extraction_review", "sometimes"}}) {
    auto r = f.memory->SetSettings(scope, {{name, value}, {"reconcile", "reject"}});
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  }
  auto s = f.memory->GetSettings(scope);
  PC_ASSERT_OK(s);
  EXPECT_TRUE(s->overrides.empty()) << "a refused change changes nothing";
  auto empty = f.memory->SetSettings(scope, {});
  EXPECT_FALSE(empty.ok());
}

TEST(WriteGatesFlush, TheModelsNearDuplicateAddIsRejectedUnderReject) {
  testing::Fixture f;
  testing::FakeOpenAi fake;
  const std::string scope = f.NewScope("project:flush-gates");
  auto chat = testing::FakeChatExtractor(fake);
  FlushOptions options;
  options.policy.reconcile = ReconcilePolicy::kReject;
  FlushService flush{*f.store, chat.get(), nullptr, options};
  SourceService sources{*f.store};
  PC_ASSERT_OK(f.memory->Remember(
      {scope, "fact", "Amounts are stored as integer cents.", "", "t", std::nullopt, {}}));
  ASSERT_TRUE(
      sources
          .Add(scope, {{"work_log", "", "amounts: integer cents, and Decimal for conversion", "{}",
                        std::nullopt}})
          .ok());
  fake.ScriptChat({{R"({"operations": [
      {"op": "add", "kind": "fact", "text": "Amounts are stored as integer cents!", "evidence": ["S1"]},
      {"op": "add", "kind": "fact", "text": "Currency conversion uses Decimal.", "evidence": ["S1"]}]})"}});
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  ASSERT_EQ(out->changes.size(), 1u);
  EXPECT_EQ(out->changes[0].version.text, "Currency conversion uses Decimal.");
  ASSERT_EQ(out->rejected.size(), 1u);
  EXPECT_NE(out->rejected[0].reason.find("near-duplicate"), std::string::npos)
      << out->rejected[0].reason;
}

TEST(NearDuplicateTest, SimilarityIsSymmetricAndBounded) {
  EXPECT_DOUBLE_EQ(TextSimilarity("Deploys need two approvals.", "deploys need two approvals"),
                   1.0);
  EXPECT_DOUBLE_EQ(TextSimilarity("a b c", "x y z"), 0.0);
  const double ab = TextSimilarity("Bart went to the zoo.", "Bart visited the zoo today.");
  EXPECT_DOUBLE_EQ(ab, TextSimilarity("Bart visited the zoo today.", "Bart went to the zoo."));
  EXPECT_GT(ab, 0.0);
  EXPECT_LT(ab, 1.0);
  EXPECT_GE(TextSimilarity("导入失败的行写入表", "导入失败的行会写入表"), kNearDuplicateThreshold);
}

// The gate's terms of a version, kept by its id: the same terms as computing them, the same
// object while kept, and still right after its shard has been emptied by many others.
TEST(NearDuplicateTest, AVersionsTermsAreKeptByItsIdAndStayRight) {
  const std::string text = "The importer writes failed rows to 错误表 nightly.";
  auto first = VersionSimilarityTerms("env_test_kept", text);
  EXPECT_EQ(*first, SimilarityTerms(text));
  EXPECT_EQ(VersionSimilarityTerms("env_test_kept", text), first) << "kept, not recomputed";
  for (int i = 0; i < 80000; ++i)
    VersionSimilarityTerms("env_filler_" + std::to_string(i), "filler " + std::to_string(i));
  auto again = VersionSimilarityTerms("env_test_kept", text);
  EXPECT_EQ(*again, SimilarityTerms(text));
  EXPECT_EQ(*first, SimilarityTerms(text)) << "a holder's terms outlive their eviction";
}

}  // namespace
}  // namespace pc

namespace pc {
namespace {

// extraction_review = review (docs/review.md): a flush proposes its validated operations as
// pending memory candidates, the cursor moving with them; approval commits exactly one operation
// with the entry's compare-and-set; nothing reaches memory before.
TEST(ExtractionReview, AFlushProposesAndApprovalCommits) {
  testing::Fixture f;
  testing::FakeOpenAi fake;
  const std::string scope = f.NewScope("project:review-flush");
  auto chat = testing::FakeChatExtractor(fake);
  FlushService flush{*f.store, chat.get(), nullptr, {}};
  SourceService sources{*f.store};
  ReviewService review{*f.store};
  PC_ASSERT_OK(f.memory->SetSettings(scope, {{kSettingExtractionReview, std::string("review")}}));
  auto e1 = f.memory->Remember(
      {scope, "fact", "Amounts are stored as integer cents.", "", "t", std::nullopt, {}});
  PC_ASSERT_OK(e1);
  ASSERT_TRUE(
      sources
          .Add(scope,
               {{"work_log", "",
                 "amounts: integer cents; conversion with Decimal; CSV line numbers in errors",
                 "{}", std::nullopt}})
          .ok());
  fake.ScriptChat({{R"({"operations": [
      {"op": "revise", "target": "E1", "text": "Amounts are stored as integer cents; conversion uses Decimal.", "evidence": ["S1"]},
      {"op": "add", "kind": "constraint", "text": "Import errors must include the CSV line number.", "evidence": ["S1"]}]})"}});
  const int64_t head = f.memory->GetScope(scope)->memory_head_revision;
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  EXPECT_TRUE(out->processed);
  EXPECT_EQ(out->current_cursor, 1) << "the cursor moves with the proposals";
  EXPECT_TRUE(out->changes.empty());
  ASSERT_EQ(out->candidates.size(), 2u);
  EXPECT_EQ(f.memory->GetScope(scope)->memory_head_revision, head) << "nothing committed";

  auto spec_view = review.List({scope, CandidateStatus::kPending, "", std::nullopt, 50});
  PC_ASSERT_OK(spec_view);
  EXPECT_TRUE(spec_view->items.empty()) << "memory candidates are listed only when asked for";
  auto inbox =
      review.List({scope, CandidateStatus::kPending, kMemoryCandidateFamily, std::nullopt, 50});
  PC_ASSERT_OK(inbox);
  ASSERT_EQ(inbox->items.size(), 2u);
  const ArtifactCandidate revise =
      inbox->items[0].current.memory->op == "revise" ? inbox->items[0] : inbox->items[1];
  const ArtifactCandidate add =
      inbox->items[0].current.memory->op == "add" ? inbox->items[0] : inbox->items[1];
  EXPECT_EQ(revise.current.memory->target_entry_id, e1->citation->entry_id);
  ASSERT_EQ(add.current.evidence.sources.size(), 1u);

  // The add, edited by the reviewer (v2), then approved: one revision with exactly that text.
  ReviseCandidateRequest edit{
      scope,
      add.candidate_id,
      1,
      {},
      {},
      std::nullopt,
      "clearer",
      std::make_pair(std::string("constraint"),
                     std::string("Every import error names its CSV line number."))};
  auto edited = review.Revise(edit, "reviewer");
  PC_ASSERT_OK(edited);
  EXPECT_EQ(edited->current.version, 2);
  auto approved = review.Approve(scope, add.candidate_id, 2, "reviewer");
  PC_ASSERT_OK(approved);
  ASSERT_TRUE(approved->result);
  EXPECT_EQ(approved->result->revision, head + 1);
  auto entries = f.memory->ListEntries({scope, std::nullopt, false, {100, ""}, std::nullopt});
  PC_ASSERT_OK(entries);
  bool found = false;
  for (const ManifestItem& m : entries->items)
    found = found || (m.version.text == "Every import error names its CSV line number." &&
                      !m.version.source_refs.empty());
  EXPECT_TRUE(found) << "the approved text, with the window's source as its evidence";

  // The entry the revise proposal targets changes by hand first: approval is a typed conflict.
  Citation at_head = *e1->citation;
  at_head.memory.revision = f.memory->GetScope(scope)->memory_head_revision;
  PC_ASSERT_OK(f.memory->Revise(
      {scope, at_head, "Amounts are integer cents (EUR, JPY).", std::nullopt, "", "t", {}}));
  auto stale = review.Approve(scope, revise.candidate_id, 1, "reviewer");
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), Code::kArtifactConflict);
  auto still = review.Get(scope, revise.candidate_id);
  PC_ASSERT_OK(still);
  EXPECT_EQ(still->status, CandidateStatus::kPending);
  PC_ASSERT_OK(review.Reject(scope, revise.candidate_id, 1, "superseded by hand"));
}

}  // namespace
}  // namespace pc
