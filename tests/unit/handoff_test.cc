// The handoff (RFC 0048, docs/handoff.md) through the service against the real store: finalize
// resolves every citation, commit is compare-and-set (a retry is no new revision), continue
// re-checks each claim's evidence against the current heads, the model's draft is checked and
// bounded, activate consumes a source boundary once, and migration 6 turns free-text handoffs
// into structured ones.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <deque>
#include <filesystem>

#include "service/flush/source_service.h"
#include "service/handoff/handoff_content.h"
#include "service/handoff/handoff_draft.h"
#include "service/handoff/handoff_service.h"
#include "store/sqlite/sqlite_handoff.h"
#include "test_util.h"

namespace pc {
namespace {

// An extraction provider that answers what the test scripted, and records what it was asked.
class ScriptedExtractor final : public Extractor {
 public:
  std::string name() const override { return "scripted"; }
  Result<std::string> Extract(const ExtractionRequest& request) override {
    requests.push_back(request);
    if (answers.empty()) return Status(Code::kProviderUnavailable, "no answer scripted");
    std::string a = answers.front();
    answers.pop_front();
    return a;
  }
  std::deque<std::string> answers;
  std::vector<ExtractionRequest> requests;
};

class HandoffTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  std::string scope = f.NewScope("project:handoff");
  ScriptedExtractor model;
  HandoffService handoffs{*f.store, &model};
  SourceService sources{*f.store};

  Citation Remember(const std::string& text) {
    auto w = f.memory->Remember({scope, "fact", text, "", "t", {}});
    EXPECT_TRUE(w.ok()) << testing::Describe(w);
    return *w->citation;
  }
  void AddSource(const std::string& id, const std::string& text) {
    ASSERT_TRUE(sources.Add(scope, {{"chat", "", text, "{}", id}}).ok());
  }
  HandoffContent Content(const std::string& objective, std::vector<HandoffCitation> cites,
                         std::optional<HandoffCitation> next = std::nullopt) {
    HandoffContent c;
    c.objective = objective;
    c.state = {{"The parser maps errors now.", std::move(cites)}};
    if (next) c.next_action = HandoffStatement{"Run the regression tests.", {*next}};
    c.omissions = {{"Recent test output was not available.", std::nullopt}};
    return c;
  }
  int64_t HandoffHead() {
    auto h = handoffs.Get(scope, std::nullopt);
    return h.ok() ? h->ref.revision : 0;
  }
};

TEST_F(HandoffTest, FinalizeCommitContinue) {
  Citation fact = Remember("Error mapping lives in src/parse/errors.cc.");
  AddSource("chat-1", "I changed the error mapping of the parser.");
  HandoffContent draft = Content("Complete parser error handling.",
                                 {MemoryHandoffCitation(fact), SourceHandoffCitation("chat-1")},
                                 SourceHandoffCitation("chat-1"));
  auto prepared = handoffs.Finalize(scope, draft);
  PC_ASSERT_OK(prepared);
  EXPECT_EQ(prepared->scope_id, scope);
  EXPECT_FALSE(prepared->base);
  EXPECT_EQ(prepared->content, draft);
  EXPECT_EQ(HandoffHead(), 0) << "finalize writes nothing";

  // A prepared handoff continues without a revision.
  auto moved = handoffs.Continue({scope, HandoffSelection::kPrepared, *prepared, std::nullopt});
  PC_ASSERT_OK(moved);
  ASSERT_TRUE(moved->content);
  EXPECT_FALSE(moved->selected_revision);
  EXPECT_FALSE(moved->current_revision);
  ASSERT_EQ(moved->checks.size(), 2u);  // one state statement, the next action
  EXPECT_TRUE(moved->checks[0].unavailable.empty());
  EXPECT_FALSE(moved->checks[1].state_index);

  auto committed = handoffs.Commit(scope, *prepared);
  PC_ASSERT_OK(committed);
  EXPECT_EQ(committed->handoff.ref.revision, 1);
  EXPECT_EQ(committed->handoff.content, draft);
  ASSERT_EQ(committed->sources.size(), 1u);
  ASSERT_EQ(committed->artifacts.size(), 1u);  // the memory revision the entry citation refines
  EXPECT_EQ(committed->artifacts[0], fact.memory);
  // The retry of the same commit is no new revision.
  auto retry = handoffs.Commit(scope, *prepared);
  PC_ASSERT_OK(retry);
  EXPECT_EQ(retry->handoff.ref.revision, 1);
  // A stale commit with other content conflicts.
  HandoffContent other = draft;
  other.objective = "Something else.";
  EXPECT_EQ(handoffs.Commit(scope, {scope, std::nullopt, other}).status().code(), Code::kConflict);
  EXPECT_EQ(HandoffHead(), 1);

  // Latest: every claim re-checked now. Retiring the entry makes only its statement unsupported.
  PC_ASSERT_OK(f.memory->Retire({scope, fact, "moved", "t"}));
  auto latest = handoffs.Continue({scope, HandoffSelection::kLatest, std::nullopt, std::nullopt});
  PC_ASSERT_OK(latest);
  ASSERT_TRUE(latest->content);
  EXPECT_EQ(latest->selected_revision, committed->handoff.ref);
  EXPECT_EQ(latest->current_revision, committed->handoff.ref);
  ASSERT_EQ(latest->checks.size(), 2u);
  ASSERT_EQ(latest->checks[0].unavailable.size(), 1u);
  EXPECT_EQ(latest->checks[0].unavailable[0], MemoryHandoffCitation(fact));
  EXPECT_TRUE(latest->checks[1].unavailable.empty());

  // Exact: the same revision; an unknown one is a 404.
  auto exact =
      handoffs.Continue({scope, HandoffSelection::kExact, std::nullopt, committed->handoff.ref});
  PC_ASSERT_OK(exact);
  EXPECT_EQ(exact->content->objective, "Complete parser error handling.");
  MemoryRef missing = committed->handoff.ref;
  missing.revision = 9;
  EXPECT_EQ(
      handoffs.Continue({scope, HandoffSelection::kExact, std::nullopt, missing}).status().code(),
      Code::kNotFound);
  EXPECT_EQ(handoffs.Continue({scope, HandoffSelection::kExact, std::nullopt, std::nullopt})
                .status()
                .code(),
            Code::kInvalidArgument);

  // The next finalize is based on the head.
  auto second =
      handoffs.Finalize(scope, Content("Release the parser.", {SourceHandoffCitation("chat-1")}));
  PC_ASSERT_OK(second);
  EXPECT_EQ(second->base, committed->handoff.ref);
  auto two = handoffs.Commit(scope, *second);
  PC_ASSERT_OK(two);
  EXPECT_EQ(two->handoff.ref.revision, 2);
  EXPECT_EQ(handoffs.Get(scope, 1)->content.objective, "Complete parser error handling.");
}

TEST_F(HandoffTest, EmptyAndRefused) {
  auto empty = handoffs.Continue({scope, HandoffSelection::kLatest, std::nullopt, std::nullopt});
  PC_ASSERT_OK(empty);
  EXPECT_FALSE(empty->content);
  EXPECT_TRUE(empty->checks.empty());
  auto unknown =
      handoffs.Continue({"project:nobody", HandoffSelection::kLatest, std::nullopt, std::nullopt});
  PC_ASSERT_OK(unknown);
  EXPECT_FALSE(unknown->content);

  // Citations must resolve in the scope.
  EXPECT_EQ(handoffs.Finalize(scope, Content("x", {SourceHandoffCitation("nope")})).status().code(),
            Code::kNotFound);
  Citation fact = Remember("A fact.");
  Citation forged = fact;
  forged.entry_version_id = "env_00000000000000000000000000";
  EXPECT_EQ(handoffs.Finalize(scope, Content("x", {MemoryHandoffCitation(forged)})).status().code(),
            Code::kNotFound);
  HandoffCitation later;
  later.kind = HandoffCitationKind::kArtifact;
  later.artifact = fact.memory;
  later.artifact.revision = 5;
  EXPECT_EQ(handoffs.Finalize(scope, Content("x", {later})).status().code(), Code::kNotFound);
  // Shape: no state, an uncited statement, a blank objective, too many citations.
  HandoffContent bad = Content("x", {MemoryHandoffCitation(fact)});
  bad.state.clear();
  EXPECT_EQ(handoffs.Finalize(scope, bad).status().code(), Code::kInvalidArgument);
  bad = Content("x", {});
  EXPECT_EQ(handoffs.Finalize(scope, bad).status().code(), Code::kInvalidArgument);
  bad = Content(" ", {MemoryHandoffCitation(fact)});
  EXPECT_EQ(handoffs.Finalize(scope, bad).status().code(), Code::kInvalidArgument);
  bad = Content("x", std::vector<HandoffCitation>(33, MemoryHandoffCitation(fact)));
  EXPECT_EQ(handoffs.Finalize(scope, bad).status().code(), Code::kInvalidArgument);
  // A prepared handoff of another scope is not this scope's.
  std::string other = f.NewScope("project:other");
  auto prepared = handoffs.Finalize(scope, Content("x", {MemoryHandoffCitation(fact)}));
  PC_ASSERT_OK(prepared);
  EXPECT_EQ(handoffs.Commit(other, *prepared).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(handoffs.Continue({other, HandoffSelection::kPrepared, *prepared, std::nullopt})
                .status()
                .code(),
            Code::kInvalidArgument);
  // A commit into a new key whose citations cannot resolve creates nothing.
  PreparedHandoff elsewhere = *prepared;
  elsewhere.scope_id = "project:new";
  EXPECT_EQ(handoffs.Commit("project:new", elsewhere).status().code(), Code::kNotFound);
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    auto s = txn.FindScopeByKey("project:new");
    EXPECT_TRUE(s.ok() && !s->has_value());
    return Status::Ok();
  }));
  EXPECT_EQ(HandoffHead(), 0);
}

TEST_F(HandoffTest, PrepareChecksTheModelsDraft) {
  Citation fact = Remember("The importer reads CSV.");
  AddSource("chat-1", "Validation is missing.");
  PrepareHandoffRequest req{scope,
                            "Add the CSV validator.",
                            {MemoryHandoffCitation(fact), SourceHandoffCitation("chat-1")},
                            8000};
  model.answers = {R"({"state":[{"text":"The importer reads CSV.","evidence":["C1"]},
                               {"text":"Validation is missing.","evidence":["C2","C1"]}],
                      "disposition":"continuable",
                      "next_action":{"text":"Write the validator.","evidence":["C2"]},
                      "omissions":[{"text":"No test output.","evidence":null}]})"};
  auto draft = handoffs.Prepare(req);
  PC_ASSERT_OK(draft);
  EXPECT_EQ(draft->objective, "Add the CSV validator.");
  ASSERT_EQ(draft->state.size(), 2u);
  EXPECT_EQ(draft->state[0].citations, std::vector<HandoffCitation>{MemoryHandoffCitation(fact)});
  EXPECT_EQ(
      draft->state[1].citations,
      (std::vector<HandoffCitation>{SourceHandoffCitation("chat-1"), MemoryHandoffCitation(fact)}));
  EXPECT_EQ(draft->next_action->citations,
            std::vector<HandoffCitation>{SourceHandoffCitation("chat-1")});
  ASSERT_EQ(model.requests.size(), 1u);
  EXPECT_NE(model.requests[0].input_json.find("Validation is missing."), std::string::npos);
  EXPECT_EQ(HandoffHead(), 0) << "prepare writes nothing";

  // Unusable answers: an invented citation, no state, a bad disposition, prose.
  for (
      const char* answer :
      {R"({"state":[{"text":"x","evidence":["C3"]}],"disposition":"complete","next_action":null,"omissions":[]})",
       R"({"state":[],"disposition":"complete","next_action":null,"omissions":[]})",
       R"({"state":[{"text":"x","evidence":[]}],"disposition":"complete","next_action":null,"omissions":[]})",
       R"({"state":[{"text":"x","evidence":["C1"]}],"disposition":"done","next_action":null,"omissions":[]})",
       "Sure! Here is the handoff."}) {
    model.answers = {answer};
    EXPECT_EQ(handoffs.Prepare(req).status().code(), Code::kProviderError) << answer;
  }
  // The provider failing is reported as it failed.
  model.answers.clear();
  EXPECT_EQ(handoffs.Prepare(req).status().code(), Code::kProviderUnavailable);
  // Evidence must resolve; limits hold; no provider is 503.
  EXPECT_EQ(handoffs.Prepare({scope, "x", {SourceHandoffCitation("nope")}, 8000}).status().code(),
            Code::kNotFound);
  EXPECT_EQ(handoffs.Prepare({scope, "x", {}, 8000}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(handoffs.Prepare({scope, "x", {SourceHandoffCitation("chat-1")}, 511}).status().code(),
            Code::kInvalidArgument);
  HandoffService without{*f.store, nullptr};
  EXPECT_EQ(without.Prepare(req).status().code(), Code::kCapabilityUnavailable);
}

TEST_F(HandoffTest, DraftsAreCutToMaxBytes) {
  AddSource("chat-1", "evidence");
  std::string answer = R"({"state":[)";
  for (int i = 0; i < 40; ++i)
    answer += std::string(i ? "," : "") + R"({"text":"Statement number )" + std::to_string(i) +
              R"( says something rather long about the state of the work.","evidence":["C1"]})";
  answer += R"(],"disposition":"blocked","next_action":null,"omissions":[]})";
  model.answers = {answer};
  auto draft = handoffs.Prepare({scope, "Keep it short.", {SourceHandoffCitation("chat-1")}, 1024});
  PC_ASSERT_OK(draft);
  EXPECT_LE(HandoffContentText(*draft).size(), 1024u);
  EXPECT_LT(draft->state.size(), 40u);
  ASSERT_FALSE(draft->omissions.empty());
  EXPECT_NE(draft->omissions.back().text.find("Cut to fit max_bytes"), std::string::npos);
}

TEST_F(HandoffTest, ActivateConsumesABoundaryOnce) {
  AddSource("s1", "Started the parser work.");
  AddSource("s2", "Error mapping done; tests next.");
  const std::string ok = R"({"state":[{"text":"Error mapping is done.","evidence":["C1"]}],
                             "disposition":"continuable","next_action":{"text":"Run tests.","evidence":["C1"]},"omissions":[]})";
  model.answers = {ok};
  ActivateHandoffRequest req{scope, "content", "s2", "Finish the parser.", {}, 8000};
  auto a = handoffs.Activate(req);
  PC_ASSERT_OK(a);
  EXPECT_TRUE(a->generated);
  EXPECT_EQ(a->previous_position, 0);
  EXPECT_EQ(a->current_position, 2);
  ASSERT_TRUE(a->draft);
  EXPECT_EQ(a->draft->state[0].citations[0], SourceHandoffCitation("s2"))
      << "the boundary is shown first";
  // The same boundary, or an earlier one: ignored, no model call.
  auto again = handoffs.Activate(req);
  PC_ASSERT_OK(again);
  EXPECT_FALSE(again->generated);
  EXPECT_FALSE(again->draft);
  EXPECT_EQ(again->previous_position, 2);
  EXPECT_EQ(again->current_position, 2);
  req.boundary_source_id = "s1";
  EXPECT_FALSE(handoffs.Activate(req)->generated);
  EXPECT_EQ(model.requests.size(), 1u);
  // An unknown boundary is a 404; a failing model leaves the boundary unconsumed.
  req.boundary_source_id = "s9";
  EXPECT_EQ(handoffs.Activate(req).status().code(), Code::kNotFound);
  AddSource("s3", "More work.");
  req.boundary_source_id = "s3";
  model.answers = {"not json"};
  EXPECT_EQ(handoffs.Activate(req).status().code(), Code::kProviderError);
  model.answers = {ok};
  auto third = handoffs.Activate(req);
  PC_ASSERT_OK(third);
  EXPECT_TRUE(third->generated);
  EXPECT_EQ(third->previous_position, 2);
  EXPECT_EQ(third->current_position, 3);
}

TEST(HandoffMigration, FreeTextHandoffsBecomeStructured) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's own schema history";
  sqlite::LegacyHandoff old{"claude-code",          "next session",
                            "Migration half done.", "branch feat/migrate",
                            {"Keep cents"},         {"Wire the validator", "Run contract tests"},
                            {"Backfill?"}};
  MemoryRef self{kHandoffFamily, "hnd_x", 3};
  HandoffContent c = sqlite::LegacyHandoffContent(old, self);
  EXPECT_EQ(c.objective, "Migration half done.");
  ASSERT_EQ(c.state.size(), 4u);
  EXPECT_EQ(c.state[0].text, "Handed over by claude-code to next session.");
  EXPECT_EQ(c.state[1].text, "branch feat/migrate");
  EXPECT_EQ(c.state[2].text, "Decision: Keep cents");
  EXPECT_EQ(c.state[3].text, "Open question: Backfill?");
  EXPECT_EQ(c.state[0].citations[0].artifact, self);
  ASSERT_TRUE(c.next_action);
  EXPECT_EQ(c.next_action->text, "Wire the validator");
  ASSERT_EQ(c.omissions.size(), 1u);
  EXPECT_NE(c.omissions[0].text.find("Run contract tests"), std::string::npos);
  EXPECT_TRUE(CheckHandoffContent(c, "").ok());
  // Only a summary: the summary is the one statement.
  HandoffContent bare = sqlite::LegacyHandoffContent({"", "", "Done.", "", {}, {}, {}}, self);
  ASSERT_EQ(bare.state.size(), 1u);
  EXPECT_EQ(bare.state[0].text, "Done.");
  EXPECT_FALSE(bare.next_action);
  // Over the spec's limits: 50 decisions and 50 questions fit 64 statements and 64 omissions.
  HandoffContent big = sqlite::LegacyHandoffContent(
      {"", "", "Big.", "", std::vector<std::string>(50, "d"), std::vector<std::string>(50, "n"),
       std::vector<std::string>(50, "q")},
      self);
  EXPECT_TRUE(CheckHandoffContent(big, "").ok());
}

// A data directory of schema 5 with a free-text handoff opens with the handoff structured, and its
// old revision readable and continuable.
TEST(HandoffMigration, OpeningASchema5DirectoryMigratesItsHandoffs) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's own schema history";
  testing::Fixture f;
  std::string scope = f.NewScope("project:old");
  std::string scope_id = f.memory->GetScope(scope)->scope_id;
  f.store.reset();
  {
    sqlite3* db = nullptr;
    sqlite3_open((std::filesystem::path(f.dir.path()) / "powercontext.db").c_str(), &db);
    const std::string sql =
        "DROP TABLE handoff_contents; DROP TABLE handoff_claims; DROP TABLE handoff_citations;"
        "DROP TABLE model_usage_daily; DROP TABLE recall_token_daily;"
        "DROP TABLE api_tokens; DROP TABLE audit_log;"
        "DROP TABLE candidate_heads; DROP TABLE candidate_versions; DROP TABLE experience_contents;"
        "DROP TABLE scope_settings; DROP INDEX artifacts_scope_family; DROP TABLE graph_edges; "
        "DROP TABLE last_flush; DROP INDEX sources_kind;"
        "DROP INDEX entry_versions_valid_until; ALTER TABLE entry_versions DROP COLUMN valid_until;"
        "DROP TABLE skill_contents; ALTER TABLE fts_stats DROP COLUMN removed;"
        "DROP TABLE report_activities; DROP TABLE report_activity_sequence; "
        "DROP TABLE report_workspace_bindings; DROP TABLE report_workstream_revisions; DROP TABLE "
        "report_workstreams; DROP TABLE "
        "report_project_revisions; DROP TABLE report_projects;"
        "DELETE FROM schema_migrations WHERE version >= 6; PRAGMA user_version = 5;"
        "INSERT INTO artifacts(artifact_id, scope_id, family, is_default, head_revision, "
        "created_at)"
        " VALUES('hnd_old', '" +
        scope_id +
        "', 'handoff', 1, 1, 1);"
        "INSERT INTO revisions(artifact_id, revision, actor, reason, lineage, created_at)"
        " VALUES('hnd_old', 1, 'api', 'handoff', '', 1);"
        "INSERT INTO handoff_versions VALUES('hnd_old', 1, 'a', 'b', 'Half done.', 'on a branch');"
        "INSERT INTO handoff_items VALUES('hnd_old', 1, 'next_steps', 0, 'Wire the validator');";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  f.Reopen();
  HandoffService handoffs{*f.store, nullptr};
  auto h = handoffs.Get(scope, std::nullopt);
  PC_ASSERT_OK(h);
  EXPECT_EQ(h->content.objective, "Half done.");
  ASSERT_EQ(h->content.state.size(), 2u);
  EXPECT_EQ(h->content.next_action->text, "Wire the validator");
  auto cont = handoffs.Continue({scope, HandoffSelection::kLatest, std::nullopt, std::nullopt});
  PC_ASSERT_OK(cont);
  for (const HandoffEvidenceCheck& c : cont->checks) EXPECT_TRUE(c.unavailable.empty());
  // And the next commit builds on it.
  auto prepared = handoffs.Finalize(scope, h->content);
  PC_ASSERT_OK(prepared);
  EXPECT_EQ(prepared->base, h->ref);
}

}  // namespace
}  // namespace pc
