// The Handoff Report catalog (RFC 0082, docs/handoff-reports.md) on the real store (SQLite, and
// PostgreSQL under the pg: prefix): Projects and Workstreams are compare-and-set records with an
// immutable revision per change; keys are unique where the spec says; a Workstream is an existing
// scope, registered once; archived records list only on request; every refusal changes nothing.
#include <gtest/gtest.h>

#include "service/report/catalog_service.h"
#include "test_util.h"

namespace pc {
namespace {

class ReportCatalogTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  CatalogService catalog{*f.store};

  ReportProject Create(const std::string& key, const std::string& title = "Orders") {
    auto p = catalog.CreateProject({key, title, std::nullopt, "en", "Asia/Shanghai"}, "creator");
    EXPECT_TRUE(p.ok()) << testing::Describe(p);
    return p.ok() ? *p : ReportProject{};
  }
  WorkstreamView Register(const std::string& project_id, const std::string& scope,
                          std::optional<std::string> key = std::nullopt) {
    auto w = catalog.RegisterWorkstream(
        {project_id, scope, key, "Parser errors", "bug", "included", {}, {}}, "registrar");
    EXPECT_TRUE(w.ok()) << testing::Describe(w);
    return w.ok() ? *w : WorkstreamView{};
  }
};

TEST_F(ReportCatalogTest, AProjectIsCreatedReadUpdatedByCompareAndSetWithItsRevisions) {
  ReportProject p = Create("orders");
  EXPECT_EQ(p.project_id.rfind("prj_", 0), 0u) << p.project_id;
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(p.catalog_state, "included");
  auto got = catalog.GetProject(p.project_id);
  PC_ASSERT_OK(got);
  EXPECT_EQ(*got, p);

  ReportProject renamed = p;
  renamed.title = "订单导入";
  renamed.project_key = "orders-import";
  renamed.description = "The CSV importer of the orders service.";
  auto updated = catalog.UpdateProject(renamed, 1, "editor");
  PC_ASSERT_OK(updated);
  EXPECT_EQ(updated->version, 2);
  EXPECT_EQ(updated->title, "订单导入");
  // A stale version is project_conflict, and changes nothing.
  ReportProject stale = p;
  stale.title = "lost";
  auto refused = catalog.UpdateProject(stale, 1, "late");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kProjectConflict) << refused.status().ToString();
  EXPECT_EQ(catalog.GetProject(p.project_id)->title, "订单导入");
  // The same content again is no new revision.
  auto same = catalog.UpdateProject(*updated, 2, "editor");
  PC_ASSERT_OK(same);
  EXPECT_EQ(same->version, 2);

  auto revisions = catalog.ProjectRevisions(p.project_id);
  PC_ASSERT_OK(revisions);
  ASSERT_EQ(revisions->size(), 2u);
  EXPECT_EQ((*revisions)[0].record.title, "Orders");
  EXPECT_EQ((*revisions)[0].actor, "creator");
  EXPECT_EQ((*revisions)[1].record, *updated);
  EXPECT_EQ((*revisions)[1].actor, "editor");
  EXPECT_LE((*revisions)[0].effective_at_ms, (*revisions)[1].effective_at_ms);
}

TEST_F(ReportCatalogTest, KeysAreUniqueAndBadDescriptorsAreRefusedNamingTheField) {
  ReportProject a = Create("alpha");
  ReportProject b = Create("beta");
  auto taken = catalog.CreateProject({"alpha", "Another", std::nullopt, "zh-CN", "UTC"}, "t");
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().code(), Code::kProjectConflict);
  ReportProject to_alpha = b;
  to_alpha.project_key = "alpha";
  EXPECT_EQ(catalog.UpdateProject(to_alpha, 1, "t").status().code(), Code::kProjectConflict);

  struct Case {
    CreateProjectRequest req;
    std::string field;
  };
  for (const Case& c :
       std::vector<Case>{{{"", "T", std::nullopt, "en", "UTC"}, "project_key"},
                         {{"two\nlines", "T", std::nullopt, "en", "UTC"}, "project_key"},
                         {{std::string(65, 'k'), "T", std::nullopt, "en", "UTC"}, "project_key"},
                         {{"k", " ", std::nullopt, "en", "UTC"}, "title"},
                         {{"k", std::string(257, 't'), std::nullopt, "en", "UTC"}, "title"},
                         {{"k", "T", std::string(2001, 'd'), "en", "UTC"}, "description"},
                         {{"k", "T", std::nullopt, "fr", "UTC"}, "default_locale"},
                         {{"k", "T", std::nullopt, "en", "Mars/Olympus"}, "timezone"},
                         {{"k", "T", std::nullopt, "en", "../etc/passwd"}, "timezone"}}) {
    auto out = catalog.CreateProject(c.req, "t");
    ASSERT_FALSE(out.ok()) << c.field;
    std::string field;
    for (const Detail& d : out.status().details())
      if (d.key == "field") field = std::get<std::string>(d.value);
    EXPECT_EQ(field, c.field) << out.status().ToString();
  }
  auto page = catalog.ListProjects({});
  PC_ASSERT_OK(page);
  EXPECT_EQ(page->items.size(), 2u) << "the refusals created nothing";
  EXPECT_EQ(catalog.GetProject("prj_nothing").status().code(), Code::kNotFound);
  EXPECT_EQ(a.default_locale, "en");
}

TEST_F(ReportCatalogTest, ArchivedProjectsListOnlyOnRequestAndPagesFollowCreationOrder) {
  std::vector<ReportProject> made;
  for (int i = 0; i < 5; ++i) made.push_back(Create("p" + std::to_string(i)));
  ReportProject archived = made[2];
  archived.catalog_state = "archived";
  PC_ASSERT_OK(catalog.UpdateProject(archived, 1, "t"));
  std::vector<std::string> seen;
  std::optional<std::string> cursor;
  do {
    auto page = catalog.ListProjects({cursor, 2, false});
    PC_ASSERT_OK(page);
    for (const ReportProject& p : page->items) seen.push_back(p.project_key);
    cursor = page->next_cursor;
  } while (cursor);
  EXPECT_EQ(seen, (std::vector<std::string>{"p0", "p1", "p3", "p4"}));
  auto all = catalog.ListProjects({std::nullopt, 100, true});
  PC_ASSERT_OK(all);
  EXPECT_EQ(all->items.size(), 5u);
  EXPECT_EQ(catalog.GetProject(made[2].project_id)->catalog_state, "archived")
      << "an exact read still answers an archived Project";
  EXPECT_EQ(catalog.ListProjects({std::nullopt, 0, false}).status().code(), Code::kInvalidArgument);
}

TEST_F(ReportCatalogTest, AWorkstreamIsAnExistingScopeRegisteredOnceAndUpdatedByCompareAndSet) {
  const std::string parser = f.NewScope("project:orders/parser");
  const std::string ui = f.NewScope("project:orders/ui");
  ReportProject p = Create("orders");
  ReportProject other = Create("billing");
  WorkstreamView w = Register(p.project_id, parser, "PC-142");
  EXPECT_EQ(w.scope_key, "project:orders/parser");
  EXPECT_EQ(w.record.scope_id.rfind("scp_", 0), 0u) << "identity is the scope's id";
  EXPECT_EQ(w.record.version, 1);

  // Once: in this Project or another.
  for (const std::string& project : {p.project_id, other.project_id}) {
    auto again = catalog.RegisterWorkstream(
        {project, parser, std::nullopt, "Again", "bug", "included", {}, {}}, "t");
    EXPECT_EQ(again.status().code(), Code::kScopeAlreadyGrouped) << again.status().ToString();
  }
  // A key is unique in its Project; a scope or Project that does not exist is 404.
  auto same_key = catalog.RegisterWorkstream(
      {p.project_id, ui, std::string("PC-142"), "UI", "feature", "included", {}, {}}, "t");
  EXPECT_EQ(same_key.status().code(), Code::kWorkstreamConflict);
  EXPECT_EQ(
      catalog
          .RegisterWorkstream(
              {p.project_id, "project:nobody", std::nullopt, "X", "bug", "included", {}, {}}, "t")
          .status()
          .code(),
      Code::kNotFound);
  EXPECT_EQ(
      catalog
          .RegisterWorkstream({"prj_none", ui, std::nullopt, "X", "bug", "included", {}, {}}, "t")
          .status()
          .code(),
      Code::kNotFound);
  EXPECT_EQ(catalog
                .RegisterWorkstream(
                    {p.project_id, ui, std::nullopt, "X", "epic", "included", {}, {}}, "t")
                .status()
                .code(),
            Code::kInvalidArgument);

  // Updated by compare-and-set, named as callers name it (key or id).
  ReportWorkstream next = w.record;
  next.scope_id = "project:orders/parser";
  next.title = "Parser error handling";
  next.labels = {"parser", "csv"};
  next.external_refs = {{"issue", "github", "142", std::string("https://example.com/i/142")}};
  auto updated = catalog.UpdateWorkstream(next, 1, "editor");
  PC_ASSERT_OK(updated);
  EXPECT_EQ(updated->record.version, 2);
  EXPECT_EQ(updated->record.labels, (std::vector<std::string>{"parser", "csv"}));
  EXPECT_EQ(catalog.UpdateWorkstream(next, 1, "late").status().code(), Code::kWorkstreamConflict);
  ReportWorkstream moved = updated->record;
  moved.project_id = other.project_id;
  EXPECT_EQ(catalog.UpdateWorkstream(moved, 2, "t").status().code(), Code::kInvalidArgument);

  Register(p.project_id, ui);
  ReportWorkstream archive = updated->record;
  archive.catalog_state = "archived";
  PC_ASSERT_OK(catalog.UpdateWorkstream(archive, 2, "t"));
  auto listed = catalog.ListWorkstreams(p.project_id, {});
  PC_ASSERT_OK(listed);
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(listed->items[0].scope_key, "project:orders/ui");
  auto all = catalog.ListWorkstreams(p.project_id, {std::nullopt, 1, true});
  PC_ASSERT_OK(all);
  ASSERT_EQ(all->items.size(), 1u);
  ASSERT_TRUE(all->next_cursor);
  auto rest = catalog.ListWorkstreams(p.project_id, {all->next_cursor, 1, true});
  PC_ASSERT_OK(rest);
  ASSERT_EQ(rest->items.size(), 1u);
  EXPECT_NE(rest->items[0].record.scope_id, all->items[0].record.scope_id);
  EXPECT_EQ(catalog.ListWorkstreams("prj_none", {}).status().code(), Code::kNotFound);

  std::vector<CatalogRevision<ReportWorkstream>> revisions;
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(revisions, txn.ListReportWorkstreamRevisions(w.record.scope_id));
    return Status::Ok();
  }));
  ASSERT_EQ(revisions.size(), 3u);
  EXPECT_EQ(revisions[0].record.title, "Parser errors");
  EXPECT_EQ(revisions[2].record.catalog_state, "archived");
}

}  // namespace
}  // namespace pc
