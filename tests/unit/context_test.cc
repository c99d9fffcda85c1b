// Prepared context and handoff through the services, against the real store: budgets counted
// exactly at every byte, determinism, experience from the source log, the handoff first and
// versioned, and the errors.
#include <gtest/gtest.h>

#include "common/utf8.h"
#include "context/builder.h"
#include "model/citation.h"
#include "service/context/context_service.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "test_util.h"

namespace pc {
namespace {

class ContextTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  std::string scope = f.NewScope();
  SearchService search{*f.store};
  ContextService context{*f.store, search};
  HandoffService handoffs{*f.store, nullptr};
  SourceService sources{*f.store};

  // A handoff whose statements cite the source "evidence-1" (added on first use).
  PreparedHandoff Prepared(const std::string& objective, std::optional<MemoryRef> base,
                           std::optional<std::string> next = std::nullopt) {
    if (!evidence_added) {
      EXPECT_TRUE(
          sources.Add(scope, {{"work_log", "", "the work so far", "{}", std::string("evidence-1")}})
              .ok());
      evidence_added = true;
    }
    HandoffCitation c;
    c.kind = HandoffCitationKind::kSource;
    c.source_name = kContentSourceName;
    c.source_id = "evidence-1";
    HandoffContent content;
    content.objective = objective;
    content.state = {{"Where it stands: " + objective, {c}}};
    if (next) content.next_action = HandoffStatement{*next, {c}};
    return PreparedHandoff{scope, std::move(base), std::move(content)};
  }
  bool evidence_added = false;

  Result<PreparedContext> Prepare(const std::string& q, int64_t max_bytes, bool handoff = true) {
    return context.Prepare({scope, q, max_bytes, SearchMode::kAuto, handoff});
  }
};

// Every budget from the spec's least (512) to past the full size: the content is valid UTF-8,
// within the budget, its items' exact references are in it, and it only grows with the budget.
TEST_F(ContextTest, EveryBudgetIsCountedExactly) {
  PC_ASSERT_OK(f.memory->Remember(
      {scope, "fact", "订单导入器使用 PostgreSQL 15 数据库，金额以整数分存储。", "", "", {}}));
  PC_ASSERT_OK(
      f.memory->Remember({scope, "decision", "导入器在迁移之前运行契约测试。", "", "", {}}));
  PC_ASSERT_OK(
      sources.Add(scope, {{"work_log", "", "今天把导入器的金额转换改成 Decimal，仍然以整数分存储。",
                           "{}", std::nullopt}}));
  PC_ASSERT_OK(
      handoffs.Commit(scope, Prepared("导入器迁移做了一半。", std::nullopt, "接上 CSV 校验")));
  auto full = Prepare("导入器 金额", static_cast<int64_t>(kMaxContextBytes));
  PC_ASSERT_OK(full);
  ASSERT_TRUE(full->ready);
  ASSERT_EQ(full->items.size(), 4u);
  EXPECT_EQ(full->items[0].type, ContextItemType::kHandoff);
  EXPECT_EQ(full->items.back().type, ContextItemType::kExperience);
  size_t last = 0;
  for (size_t budget = kMinContextBytes; budget <= full->content.size() + 8; ++budget) {
    auto r = Prepare("导入器 金额", static_cast<int64_t>(budget));
    PC_ASSERT_OK(r);
    if (!r->ready) {
      EXPECT_TRUE(r->content.empty());
      EXPECT_TRUE(r->items.empty());
      continue;
    }
    EXPECT_LE(r->content.size(), budget);
    EXPECT_TRUE(IsValidUtf8(r->content)) << budget;
    EXPECT_GE(r->content.size(), last) << budget;
    last = r->content.size();
    for (const ContextItem& i : r->items) {  // a citation's entry id, a source's id
      if (i.type == ContextItemType::kHandoff) continue;
      const size_t from = i.ref.find_last_of("#/") + 1;
      EXPECT_NE(r->content.find(i.ref.substr(from, i.ref.rfind('@') - from)), std::string::npos)
          << i.ref;
    }
  }
  EXPECT_EQ(last, full->content.size());
  // Deterministic: the same store and request give the same bytes.
  auto again = Prepare("导入器 金额", static_cast<int64_t>(kMaxContextBytes));
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->content, full->content);
  // Without the handoff.
  auto no_handoff = Prepare("导入器 金额", static_cast<int64_t>(kMaxContextBytes), false);
  PC_ASSERT_OK(no_handoff);
  EXPECT_EQ(no_handoff->items[0].type, ContextItemType::kMemory);
}

TEST_F(ContextTest, ErrorsAndEmpty) {
  EXPECT_EQ(Prepare("anything", 0).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Prepare("anything", static_cast<int64_t>(kMinContextBytes) - 1).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Prepare("anything", static_cast<int64_t>(kMaxContextBytes) + 1).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Prepare("   ", 1000).status().code(), Code::kInvalidArgument);
  // A scope nobody wrote to (a server id never issued, or a name never used) prepares empty.
  for (const char* unknown : {"scp_01JDZZZZZZZZZZZZZZZZZZZZZZ", "project:never-written"}) {
    auto none = context.Prepare({unknown, "x", 1000, SearchMode::kAuto, true});
    PC_ASSERT_OK(none);
    EXPECT_FALSE(none->ready) << unknown;
  }
  // An explicit vector search without an embedder is an error here too, never a silent fallback.
  EXPECT_EQ(context.Prepare({scope, "x", 1000, SearchMode::kVector, true}).status().code(),
            Code::kCapabilityUnavailable);
  auto empty = Prepare("nothing here yet", 4000);
  PC_ASSERT_OK(empty);
  EXPECT_FALSE(empty->ready);
  EXPECT_TRUE(empty->content.empty());
  // prepare never writes.
  PC_ASSERT_OK(f.memory->Remember({scope, "fact", "one entry", "", "", {}}));
  const int64_t head = f.memory->GetScope(scope)->memory_head_revision;
  PC_ASSERT_OK(Prepare("entry", 4000));
  EXPECT_EQ(f.memory->GetScope(scope)->memory_head_revision, head);
}

TEST_F(ContextTest, HandoffIsVersioned) {
  EXPECT_EQ(handoffs.Get(scope, std::nullopt).status().code(), Code::kNotFound);
  auto h1 = handoffs.Commit(
      scope, Prepared("Schema migration half done.", std::nullopt, "Wire the CSV validator"));
  PC_ASSERT_OK(h1);
  EXPECT_EQ(h1->handoff.ref.revision, 1);
  EXPECT_EQ(h1->handoff.ref.family, "handoff");
  EXPECT_EQ(FormatMemoryRef(h1->handoff.ref).rfind("handoff/hnd_", 0), 0u);
  auto stale = handoffs.Commit(scope, Prepared("Another view", std::nullopt));
  EXPECT_EQ(stale.status().code(), Code::kConflict);
  auto h2 = handoffs.Commit(scope, Prepared("Migration done; validator next.", h1->handoff.ref,
                                            "Wire the CSV validator"));
  PC_ASSERT_OK(h2);
  EXPECT_EQ(h2->handoff.ref.revision, 2);
  auto latest = handoffs.Get(scope, std::nullopt);
  PC_ASSERT_OK(latest);
  EXPECT_EQ(latest->content.objective, "Migration done; validator next.");
  auto first = handoffs.Get(scope, 1);
  PC_ASSERT_OK(first);
  EXPECT_EQ(first->content.next_action->text, "Wire the CSV validator");
  EXPECT_EQ(handoffs.Get(scope, 3).status().code(), Code::kNotFound);
  auto page = handoffs.History(scope, {1, ""});
  PC_ASSERT_OK(page);
  ASSERT_EQ(page->items.size(), 1u);
  EXPECT_EQ(page->items[0].ref.revision, 2);
  ASSERT_TRUE(page->next_cursor);
  auto rest = handoffs.History(scope, {10, *page->next_cursor});
  PC_ASSERT_OK(rest);
  ASSERT_EQ(rest->items.size(), 1u);
  EXPECT_EQ(rest->items[0].ref.revision, 1);
  EXPECT_FALSE(rest->next_cursor);
  // Bad input changes nothing.
  EXPECT_EQ(handoffs.Commit(scope, Prepared(" ", h2->handoff.ref)).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(handoffs.Get(scope, std::nullopt)->ref.revision, 2);
  // The memory is untouched by handoffs.
  EXPECT_EQ(f.memory->GetScope(scope)->memory_head_revision, 0);
  // prepare puts the latest first.
  PC_ASSERT_OK(f.memory->Remember(
      {scope, "fact", "The CSV validator lives in src/validate.cc", "", "", {}}));
  auto r = Prepare("CSV validator", 4000);
  PC_ASSERT_OK(r);
  ASSERT_GE(r->items.size(), 2u);
  EXPECT_EQ(r->items[0].ref, FormatMemoryRef(h2->handoff.ref));
  EXPECT_NE(r->content.find("Migration done; validator next."), std::string::npos);
  EXPECT_EQ(r->content.find("Schema migration half done."), std::string::npos);
}

TEST_F(ContextTest, ExperienceComesFromTheSourceLog) {
  for (int i = 0; i < 5; ++i)
    PC_ASSERT_OK(sources.Add(
        scope, {{"work_log", i == 4 ? "archive" : "",
                 "flaky test in the importer, run " + std::to_string(i), "{}", std::nullopt}}));
  PC_ASSERT_OK(sources.Add(scope, {{"chat", "", "lunch plans", "{}", std::nullopt}}));
  auto r = Prepare("flaky importer test", static_cast<int64_t>(kMaxContextBytes));
  PC_ASSERT_OK(r);
  int experience = 0;
  for (const ContextItem& i : r->items) {
    EXPECT_EQ(i.type, ContextItemType::kExperience);
    EXPECT_EQ(i.ref.rfind("source/src_", 0), 0u);
    ++experience;
  }
  EXPECT_EQ(experience, 2);  // the cap, though five match
  EXPECT_EQ(r->content.find("lunch"), std::string::npos);
  // Other scopes' sources never appear.
  std::string other = f.NewScope("project:other");
  PC_ASSERT_OK(
      sources.Add(other, {{"work_log", "", "flaky importer test elsewhere", "{}", std::nullopt}}));
  auto mine = Prepare("elsewhere", static_cast<int64_t>(kMaxContextBytes));
  PC_ASSERT_OK(mine);
  EXPECT_FALSE(mine->ready);
}

// Read-your-writes: prepare_context answers from the named revision or later, else says why.
TEST_F(ContextTest, MinRevisionIsHonouredOrRefused) {
  auto w = f.memory->Remember(
      {scope, "fact", "The billing service retries webhooks three times.", "", "", {}});
  PC_ASSERT_OK(w);
  const int64_t written = w->citation->memory.revision;
  PrepareRequest req{scope, "billing webhooks", 4000, SearchMode::kFts, false, written};
  auto ok = context.Prepare(req);
  PC_ASSERT_OK(ok);
  EXPECT_TRUE(ok->ready);
  EXPECT_EQ(ok->memory.revision, written);
  req.min_revision = written + 1;
  auto ahead = context.Prepare(req);
  ASSERT_FALSE(ahead.ok());
  EXPECT_EQ(ahead.status().code(), Code::kRevisionNotVisible);
}

}  // namespace
}  // namespace pc
