// ours: POST /v1/memory/remember/batch against the real store (SQLite, or PostgreSQL with
// POWERCONTEXT_TEST_STORE=postgresql): one revision with an add per new entry; each entry passes
// what a remember passes (validation, exact duplicates against the head and within the batch, the
// reconcile and evidence gates in the scope's mode); anything bad refuses the whole batch and
// changes nothing. The route decodes and answers each entry as remember does with explain.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "auth/request_context.h"
#include "client/jsonl_import.h"
#include "mcp/transports.h"
#include "routed_services.h"
#include "service/memory/write_gates.h"
#include "test_util.h"

namespace pc {
namespace {

using Json = nlohmann::json;

class RememberBatchTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  std::string scope = f.NewScope("project:batch");

  static RememberRequest Entry(const std::string& text, const std::string& kind = "fact") {
    RememberRequest e;
    e.kind = kind;
    e.text = text;
    return e;
  }
  Result<BatchOutcome> Batch(std::vector<RememberRequest> entries) {
    return f.memory->RememberBatch({scope, std::move(entries), "import", "test", std::nullopt});
  }
  int64_t Head() { return f.memory->GetScope(scope)->memory_head_revision; }
  size_t ActiveEntries() {
    auto page = f.memory->ListEntries({scope, std::nullopt, false, {kMaxPageLimit, ""}});
    EXPECT_TRUE(page.ok());
    return page.ok() ? page->items.size() : 0;
  }
};

TEST_F(RememberBatchTest, OneRevisionWithAnAddPerEntry) {
  auto one = f.memory->Remember({scope, "fact", "Invoices are stored in UTC.", "", "test"});
  PC_ASSERT_OK(one);
  auto out = Batch({Entry("The importer rejects rows without a currency."),
                    Entry("导入失败的行写入 orders_rejected 表。"),
                    Entry("Deploys happen on Tuesdays.", "decision")});
  PC_ASSERT_OK(out);
  EXPECT_TRUE(out->changed);
  EXPECT_EQ(out->memory.revision, 2);
  EXPECT_EQ(Head(), 2);
  ASSERT_EQ(out->entries.size(), 3u);
  for (const WriteOutcome& e : out->entries) {
    EXPECT_TRUE(e.changed);
    ASSERT_TRUE(e.citation && e.entry);
    EXPECT_EQ(e.citation->memory.revision, 2);
    EXPECT_EQ(e.entry->created_by_revision, 2);
  }
  EXPECT_EQ(out->entries[2].entry->kind, "decision");
  auto detail = f.memory->GetRevision(scope, 2, {});
  PC_ASSERT_OK(detail);
  ASSERT_EQ(detail->info.changes.size(), 3u) << "one change per added entry";
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(detail->info.changes[i].op, ChangeOp::kAdd);
    EXPECT_EQ(detail->info.changes[i].entry_id, out->entries[i].entry->entry_id)
        << "in the request's order";
  }
  EXPECT_EQ(detail->info.reason, "import");
  EXPECT_EQ(detail->info.actor, "test");
  EXPECT_EQ(ActiveEntries(), 4u);
}

TEST_F(RememberBatchTest, DuplicatesAgainstTheHeadAndWithinTheBatchAddNothing) {
  auto old = f.memory->Remember({scope, "fact", "Invoices are stored in UTC.", "", "test"});
  PC_ASSERT_OK(old);
  auto out = Batch({Entry("  Invoices are stored in UTC.\n"),
                    Entry("The importer rejects rows without a currency."),
                    Entry("The importer rejects rows without a currency.  ")});
  PC_ASSERT_OK(out);
  EXPECT_EQ(out->memory.revision, 2);
  ASSERT_EQ(out->entries.size(), 3u);
  EXPECT_FALSE(out->entries[0].changed);
  ASSERT_TRUE(out->entries[0].duplicate_of);
  EXPECT_EQ(out->entries[0].duplicate_of->entry_id, old->citation->entry_id)
      << "canonically the same, as remember";
  EXPECT_TRUE(out->entries[1].changed);
  EXPECT_FALSE(out->entries[2].changed);
  ASSERT_TRUE(out->entries[2].duplicate_of);
  EXPECT_EQ(*out->entries[2].duplicate_of, *out->entries[1].citation) << "the batch's own add";
  auto detail = f.memory->GetRevision(scope, 2, {});
  PC_ASSERT_OK(detail);
  EXPECT_EQ(detail->info.changes.size(), 1u);

  // Everything already there: no revision, as a duplicate remember.
  auto again = Batch({Entry("Invoices are stored in UTC."),
                      Entry("The importer rejects rows without a currency.")});
  PC_ASSERT_OK(again);
  EXPECT_FALSE(again->changed);
  EXPECT_EQ(again->memory.revision, 2);
  EXPECT_EQ(Head(), 2);
  for (const WriteOutcome& e : again->entries) EXPECT_TRUE(e.duplicate_of && !e.changed);
}

TEST_F(RememberBatchTest, BadInputRefusesTheWholeBatch) {
  PC_ASSERT_OK(Batch({Entry("Invoices are stored in UTC.")}));
  const int64_t head = Head();
  auto empty = Batch({});
  EXPECT_EQ(empty.status().code(), Code::kInvalidArgument);
  auto many = Batch(std::vector<RememberRequest>(kMaxRememberBatch + 1, Entry("x")));
  EXPECT_EQ(many.status().code(), Code::kTooLarge);
  auto blank = Batch({Entry("A fine statement."), Entry("   ")});
  ASSERT_EQ(blank.status().code(), Code::kInvalidArgument);
  EXPECT_NE(blank.status().message().find("entries[1]"), std::string::npos)
      << blank.status().message();
  auto kind = Batch({Entry("A fine statement."), Entry("Another one.", "")});
  EXPECT_EQ(kind.status().code(), Code::kInvalidArgument);
  RememberRequest bad_evidence = Entry("Stands on nothing there is.");
  bad_evidence.evidence = {"src_does_not_exist"};
  auto evidence = Batch({Entry("A fine statement."), bad_evidence});
  EXPECT_EQ(evidence.status().code(), Code::kInvalidArgument)
      << "resolved in the write: 422, rolled back";
  auto blank_scope =
      f.memory->RememberBatch({" ", {Entry("A fine statement.")}, "", "test", std::nullopt});
  EXPECT_EQ(blank_scope.status().code(), Code::kInvalidArgument);
  auto stale = f.memory->RememberBatch({scope, {Entry("A fine statement.")}, "", "test", head + 1});
  EXPECT_EQ(stale.status().code(), Code::kConflict);
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(ActiveEntries(), 1u) << "nothing of a refused batch was written";
}

TEST_F(RememberBatchTest, GatesApplyToEachEntryInTheScopesMode) {
  auto first = f.memory->Remember(
      {scope, "fact", "Deploys happen on Tuesdays after the standup.", "", "test"});
  PC_ASSERT_OK(first);
  auto warned = Batch({Entry("Invoices are stored in UTC."),
                       Entry("Deploys happen on Tuesdays, after the standup.")});
  PC_ASSERT_OK(warned);
  EXPECT_TRUE(warned->entries[0].near_duplicates.empty());
  ASSERT_EQ(warned->entries[1].near_duplicates.size(), 1u)
      << "warn (the default) names it and writes";
  EXPECT_EQ(warned->entries[1].near_duplicates[0].citation.entry_id, first->citation->entry_id);
  EXPECT_TRUE(warned->entries[1].changed);

  PC_ASSERT_OK(f.memory->SetSettings(scope, {{kSettingReconcile, "reject"}}));
  int64_t head = Head();
  auto refused = Batch({Entry("Reports are mailed on Fridays."),
                        Entry("Deploys happen on Tuesdays after standup.")});
  ASSERT_EQ(refused.status().code(), Code::kNearDuplicate);
  EXPECT_NE(refused.status().message().find("entries[1]"), std::string::npos);
  EXPECT_EQ(Head(), head);
  PC_ASSERT_OK(f.memory->SetSettings(
      scope, {{kSettingReconcile, std::nullopt}, {kSettingRequireEvidence, "true"}}));
  head = Head();
  RememberRequest backed = Entry("Reports are mailed on Fridays.");
  backed.evidence = {"https://example.com/reports"};
  auto unbacked = Batch({backed, Entry("Exports are zipped.")});
  EXPECT_EQ(unbacked.status().code(), Code::kEvidenceRequired);
  EXPECT_EQ(Head(), head) << "the refused batches changed nothing";
  auto ok = Batch({backed});
  PC_ASSERT_OK(ok);
  ASSERT_TRUE(ok->entries[0].entry);
  EXPECT_EQ(ok->entries[0].entry->source_refs,
            std::vector<std::string>{"url:https://example.com/reports"});
}

TEST_F(RememberBatchTest, TheRouteAnswersEachEntryAsRemember) {
  testing::RoutedServices routed{f};
  const Principal local;
  ScopedRequest as(local, "test");
  auto send = [&](const Json& body) {
    ApiRequest req{"POST", "/v1/memory/remember/batch", {}, {}, body.dump(), "http://127.0.0.1"};
    return routed.router.Dispatch(req);
  };
  ApiResponse ok = send({{"scope_id", "project:batch"},
                         {"reason", "import"},
                         {"entries",
                          {{{"kind", "fact"}, {"text", "Invoices are stored in UTC."}},
                           {{"kind", "fact"}, {"text", "Invoices are stored in UTC."}},
                           {{"kind", "decision"},
                            {"text", "Deploys happen on Tuesdays."},
                            {"evidence", {"https://example.com/deploys"}}}}}});
  ASSERT_EQ(ok.status, 200) << ok.body.dump();
  EXPECT_EQ(ok.body["memory"]["revision"], 1);
  EXPECT_EQ(ok.body["changed"], true);
  ASSERT_EQ(ok.body["entries"].size(), 3u);
  EXPECT_EQ(ok.body["entries"][0]["changed"], true);
  EXPECT_EQ(ok.body["entries"][1]["changed"], false);
  EXPECT_EQ(ok.body["entries"][1]["duplicate_of"], ok.body["entries"][0]["entry"]["citation"]);
  EXPECT_EQ(ok.body["entries"][2]["hypothesis"], false);

  for (const Json& bad :
       {Json{{"scope_id", "project:batch"}, {"entries", Json::array()}},
        Json{{"scope_id", "project:batch"}, {"entries", {{{"kind", "fact"}}}}},
        Json{{"scope_id", "project:batch"},
             {"entries", {{{"kind", "fact"}, {"text", "x"}, {"extra", 1}}}}},
        Json{{"scope_id", "project:batch"},
             {"entries", {{{"kind", "fact"}, {"text", "x"}}}},
             {"explain", true}},
        Json{{"scope_id", "project:batch"},
             {"entries",
              {{{"kind", "fact"}, {"text", "y"}}, {{"kind", "fact"}, {"text", "\u3000"}}}}}}) {
    ApiResponse refused = send(bad);
    EXPECT_EQ(refused.status, 422) << bad.dump() << " → " << refused.body.dump();
    EXPECT_TRUE(refused.body.contains("error")) << refused.body.dump();
  }
  EXPECT_EQ(Head(), 1) << "a refused batch changes nothing";
}

// `powercontext import jsonl` through the route: batches of up to 1,000 lines, a re-run adds
// nothing, a line that is not JSON sends nothing, a line the server refuses is named by number.
TEST_F(RememberBatchTest, JsonlImportWritesInBatchesAndNamesABadLine) {
  testing::RoutedServices routed{f};
  const Principal local;
  ScopedRequest as(local, "test");
  const CallRoute call = InProcessRoutes(routed.router);
  std::string file;
  for (int i = 0; i < 1500; ++i)
    file += Json{{"kind", "fact"},
                 {"text",
                  "Batch job " + std::to_string(i) + " exports ledger " + std::to_string(i * 7)}}
                .dump() +
            (i == 3 ? "\n\n" : "\n");
  std::istringstream in(file);
  auto r = ImportJsonl(call, "project:batch", in);
  PC_ASSERT_OK(r);
  EXPECT_EQ(r->lines, 1500);
  EXPECT_EQ(r->batches, 2);
  EXPECT_EQ(r->added, 1500);
  EXPECT_EQ(r->revision, 2);
  std::istringstream again(file);
  auto rerun = ImportJsonl(call, "project:batch", again);
  PC_ASSERT_OK(rerun);
  EXPECT_EQ(rerun->added, 0);
  EXPECT_EQ(rerun->duplicates, 1500);
  EXPECT_EQ(Head(), 2) << "nothing new: no revision";

  std::istringstream not_json("{\"kind\": \"fact\", \"text\": \"New one.\"}\n[1, 2]\n");
  auto refused = ImportJsonl(call, "project:batch", not_json);
  ASSERT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("line 2"), std::string::npos)
      << refused.status().message();
  std::istringstream blank(
      "{\"kind\": \"fact\", \"text\": \"New one.\"}\n\n{\"kind\": \"fact\", \"text\": \" \"}\n");
  auto bad = ImportJsonl(call, "project:batch", blank);
  ASSERT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("line 3"), std::string::npos) << bad.status().message();
  EXPECT_EQ(Head(), 2) << "a refused line sends nothing, a refused batch writes nothing";
}

}  // namespace
}  // namespace pc
