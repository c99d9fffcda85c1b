// `powercontext verify` (src/verify/, issue 32) on a store built through the normal write path,
// then damaged behind its back one invariant at a time: each damage is named with its kind and
// ids, and the undamaged store verifies clean. On SQLite, and on PostgreSQL in the "pg:" run.
#include "verify/verify.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "service/review/review_service.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_verify.h"
#include "store/sqlite/db.h"
#include "store/sqlite/sqlite_verify.h"
#include "test_util.h"

namespace pc {
namespace {

using testing::Fixture;

class VerifyTest : public ::testing::Test {
 protected:
  // Scope project:verify: entries A (added at 1, revised at 3), B (added at 2, retired at 4) and C
  // (added at 5); two
  // sources and a cursor at position 1.
  void SetUp() override {
    scope_ = f_.NewScope("project:verify");
    a_ = Remember("Run contract tests after the schema migration.");
    b_ = Remember("Amounts are integer cents.");
    a2_ = Revise(a_, "Run contract tests before the schema migration.");
    Retire(b_);
    c_ = Remember("The importer reads CSV files with a header row.");
    Status s = f_.store->Write(Actor{"test", "", ""}, [&](WriteTxn& txn) -> Status {
      for (const char* text : {"first source", "second source"}) {
        Source src;
        src.source_id = std::string("src_") + text[0];
        src.scope_id = scope_;
        src.kind = "chat";
        src.purpose = kPurposeMemory;
        src.content = text;
        src.metadata_json = "{}";
        PC_ASSIGN_OR_RETURN(Source appended, txn.AppendSource(src));
      }
      return txn.SetCursor(scope_, memory_, "extraction", 1);
    });
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  Citation Remember(const std::string& text) {
    RememberRequest req;
    req.scope_id = scope_;
    req.kind = "decision";
    req.text = text;
    auto out = f_.memory->Remember(req);
    EXPECT_TRUE(out.ok() && out->citation) << testing::Describe(out);
    memory_ = out->citation->memory.artifact_id;
    return *out->citation;
  }
  Citation Revise(const Citation& c, const std::string& text) {
    ReviseRequest req;
    req.scope_id = scope_;
    req.citation = c;
    req.citation.memory.revision = Revisions();
    req.text = text;
    auto out = f_.memory->Revise(req);
    EXPECT_TRUE(out.ok() && out->citation) << testing::Describe(out);
    return *out->citation;
  }
  void Retire(const Citation& c) {
    RetireRequest req;
    req.scope_id = scope_;
    req.citation = c;
    req.citation.memory.revision = Revisions();
    req.reason = "superseded";
    auto out = f_.memory->Retire(req);
    EXPECT_TRUE(out.ok()) << testing::Describe(out);
  }
  int64_t Revisions() {
    int64_t head = 0;
    Status s = f_.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(auto a, txn.FindArtifact(memory_));
      head = a ? a->head_revision : 0;
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok());
    return head;
  }

  // SQL behind the store's back: `sqlite_sql` on its database (with the full-text tokenizer, which
  // changing memory_fts needs), `pg_sql` on its PostgreSQL schema.
  void Damage(const std::string& sqlite_sql, const std::string& pg_sql) {
    Status s;
    if (f_.pg) {
      auto conn = pg::Conn::Open(f_.pg->url());
      ASSERT_TRUE(conn.ok()) << conn.status().ToString();
      s = (*conn)->Exec(pg_sql);
    } else {
      auto db = sqlite::Db::Open(
          (std::filesystem::path(f_.dir.path()) / "powercontext.db").string(), 10000);
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      s = (*db)->Exec(sqlite_sql);
    }
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  verify::Report Run(verify::Options options = {}) {
    auto source =
        f_.pg ? pg::OpenVerifySource(f_.pg->url()) : sqlite::OpenVerifySource(f_.dir.path());
    EXPECT_TRUE(source.ok()) << testing::Describe(source);
    if (!source.ok()) return {};
    auto report = verify::Verify(**source, options);
    EXPECT_TRUE(report.ok()) << testing::Describe(report);
    return report.ok() ? *report : verify::Report{};
  }

  // The finding of `kind` about this entry/version/revision (empty, nullopt: any), or null.
  static const verify::Finding* Find(const verify::Report& r, const std::string& kind,
                                     std::optional<int64_t> revision = std::nullopt,
                                     const std::string& entry = "",
                                     const std::string& version = "") {
    for (const verify::Finding& f : r.findings)
      if (f.kind == kind && (!revision || f.revision == revision) &&
          (entry.empty() || f.entry_id == entry) &&
          (version.empty() || f.entry_version_id == version))
        return &f;
    return nullptr;
  }
  static std::string All(const verify::Report& r) {
    std::string out;
    for (const verify::Finding& f : r.findings)
      out += f.kind + " r" + (f.revision ? std::to_string(*f.revision) : "-") + " " + f.entry_id +
             " " + f.entry_version_id + ": " + f.detail + "\n";
    return out;
  }
  void ExpectNamed(const verify::Report& r, const std::string& kind,
                   std::optional<int64_t> revision, const std::string& entry = "",
                   const std::string& version = "") {
    const verify::Finding* f = Find(r, kind, revision, entry, version);
    ASSERT_NE(f, nullptr) << "no " << kind << " in:\n" << All(r);
    EXPECT_EQ(f->severity, verify::Severity::kViolation);
    EXPECT_EQ(f->scope_id, scope_);
    EXPECT_EQ(f->scope_key, "project:verify");
    EXPECT_EQ(f->artifact_id, memory_);
  }
  std::string EntryRowid(const std::string& entry) {
    return "(SELECT rowid FROM entries WHERE entry_id = '" + entry + "')";
  }
  std::string EntryDoc(const std::string& entry) {
    return "(SELECT doc FROM entries WHERE entry_id = '" + entry + "')";
  }

  Fixture f_;
  std::string scope_, memory_;
  Citation a_, b_, a2_, c_;
};

TEST_F(VerifyTest, AStoreWrittenNormallyIsClean) {
  verify::Report r = Run();
  EXPECT_TRUE(r.findings.empty()) << All(r);
  EXPECT_EQ(r.scopes, 1);
  EXPECT_EQ(r.revisions, 5);
  EXPECT_EQ(r.entry_versions, 4);
  EXPECT_GE(r.audit_rows, 5);
}

// A batch of new entries whose texts hold quotes, braces, commas, backslashes, "NULL", control
// characters and CJK: each comes back byte for byte with its kind, reason, evidence and validity,
// and every projection (full text, vectors) agrees with the rows.
TEST_F(VerifyTest, ABatchOfNewEntriesIsWrittenExactly) {
  const std::vector<std::string> texts = {"He said \"NULL\", then {a,b}\\c; 'quoted' too.", "NULL",
                                          "Tabs\tand\nnew lines, 中文与标点，还有 emoji 🚀."};
  RememberBatchRequest batch;
  batch.scope_id = scope_;
  batch.reason = "an import";
  for (size_t i = 0; i < texts.size(); ++i) {
    RememberRequest e;
    e.kind = i == 1 ? "decision" : "fact";
    e.text = texts[i];
    e.reason = "entry " + std::to_string(i) + ", with \"its\" reason";
    if (i == 0) e.evidence = {"https://example.com/a,b", "https://example.com/{c}"};
    if (i == 2) e.valid_until = "14d";
    batch.entries.push_back(e);
  }
  auto out = f_.memory->RememberBatch(batch);
  ASSERT_TRUE(out.ok()) << testing::Describe(out);
  ASSERT_EQ(out->entries.size(), texts.size());
  auto page = f_.memory->ListEntries({scope_, std::nullopt, false, {kMaxPageLimit, ""}});
  ASSERT_TRUE(page.ok()) << testing::Describe(page);
  for (size_t i = 0; i < texts.size(); ++i) {
    ASSERT_TRUE(out->entries[i].entry);
    const EntryVersion& made = *out->entries[i].entry;
    const EntryVersion* listed = nullptr;
    for (const ManifestItem& item : page->items)
      if (item.version.entry_id == made.entry_id) listed = &item.version;
    ASSERT_NE(listed, nullptr) << texts[i];
    EXPECT_EQ(listed->text, texts[i]);
    EXPECT_EQ(listed->kind, made.kind);
    EXPECT_EQ(listed->reason, made.reason);
    EXPECT_EQ(listed->source_refs, made.source_refs);
    EXPECT_EQ(listed->valid_until_ms, made.valid_until_ms);
    EXPECT_EQ(listed->previous_version_id, std::nullopt);
  }
  EXPECT_EQ(out->entries[0].entry->source_refs.size(), 2u);
  EXPECT_TRUE(out->entries[2].entry->valid_until_ms);
  verify::Report r = Run();
  EXPECT_TRUE(r.findings.empty()) << All(r);
  EXPECT_EQ(r.entry_versions, 4 + static_cast<int64_t>(texts.size()));
}

TEST_F(VerifyTest, AMissingRevisionIsNamed) {
  Damage("DELETE FROM revisions WHERE artifact_id = '" + memory_ + "' AND revision = 2",
         "DELETE FROM revisions WHERE artifact_id = '" + memory_ + "' AND revision = 2");
  verify::Report r = Run();
  ExpectNamed(r, "revision_missing", 2);
  ExpectNamed(r, "change_set_without_revision", 2);
}

TEST_F(VerifyTest, AHeadPointerBehindItsRevisionsIsNamed) {
  Damage("UPDATE artifacts SET head_revision = 4 WHERE artifact_id = '" + memory_ + "'",
         "UPDATE artifacts SET head_revision = 4 WHERE artifact_id = '" + memory_ + "'");
  ExpectNamed(Run(), "revision_beyond_head", 5);
}

TEST_F(VerifyTest, ARevisionWithoutItsChangeSetIsNamed) {
  const std::string sql =
      "DELETE FROM revision_changes WHERE artifact_id = '" + memory_ + "' AND revision = 4";
  Damage(sql, sql);
  verify::Report r = Run();
  ExpectNamed(r, "change_set_missing", 4);
  ExpectNamed(r, "manifest_interval_unexplained", 4, b_.entry_id, b_.entry_version_id);
}

// A managed Skill's revision is checked like every family's: a revision without its content row
// (skill_contents) is named, and a clean one is not.
TEST_F(VerifyTest, ASkillRevisionWithoutItsContentIsNamed) {
  ReviewService review(*f_.store);
  auto c = review.ProposeSkill(
      {"project:verify",
       {"csv-check", "Use when rows are imported.", "Check each row.", {"bad rows are reported"}},
       {{}, {MemoryRef{kMemoryFamily, memory_, 1}}},
       std::nullopt,
       std::nullopt},
      "t");
  ASSERT_TRUE(c.ok()) << testing::Describe(c);
  auto approved = review.Approve("project:verify", c->candidate_id, 1, "reviewer");
  ASSERT_TRUE(approved.ok()) << testing::Describe(approved);
  EXPECT_TRUE(Run().findings.empty()) << All(Run());
  const std::string sql =
      "DELETE FROM skill_contents WHERE artifact_id = '" + approved->result->artifact_id + "'";
  Damage(sql, sql);
  verify::Report r = Run();
  const verify::Finding* f = Find(r, "change_set_missing", 1);
  ASSERT_NE(f, nullptr) << All(r);
  EXPECT_EQ(f->artifact_id, approved->result->artifact_id);
}

TEST_F(VerifyTest, AManifestThatDisagreesWithItsChangesIsNamed) {
  Damage("UPDATE manifest SET active = 0 WHERE entry_id = '" + c_.entry_id + "'",
         "UPDATE manifest SET active = false WHERE entry_id = '" + c_.entry_id + "'");
  verify::Report r = Run();
  ExpectNamed(r, "manifest_mismatch", 5, c_.entry_id, c_.entry_version_id);
  ExpectNamed(r, "fts_state_mismatch", std::nullopt, c_.entry_id, c_.entry_version_id);
}

TEST_F(VerifyTest, ABrokenIntervalIsNamed) {
  const std::string sql = "UPDATE manifest SET to_revision = 2 WHERE entry_id = '" + a_.entry_id +
                          "' AND from_revision = 1";
  Damage(sql, sql);
  ExpectNamed(Run(), "manifest_interval_broken", 1, a_.entry_id, a_.entry_version_id);
}

TEST_F(VerifyTest, TextChangedWithoutItsHashIsNamed) {
  const std::string sql =
      "UPDATE entry_versions SET text = 'Run nothing.' WHERE "
      "entry_version_id = '" +
      c_.entry_version_id + "'";
  Damage(sql, sql);
  verify::Report r = Run();
  ExpectNamed(r, "content_hash_mismatch", std::nullopt, c_.entry_id, c_.entry_version_id);
  if (!f_.pg)  // SQLite keeps the indexed text itself
    ExpectNamed(r, "fts_text_mismatch", std::nullopt, c_.entry_id, c_.entry_version_id);
}

TEST_F(VerifyTest, AMissingFullTextRowIsNamed) {
  Damage("DELETE FROM memory_fts WHERE rowid = " + EntryRowid(c_.entry_id),
         "DELETE FROM text_docs WHERE kind = 0 AND doc = " + EntryDoc(c_.entry_id));
  ExpectNamed(Run(), "fts_row_missing", std::nullopt, c_.entry_id, c_.entry_version_id);
}

TEST_F(VerifyTest, AFullTextRowShowingARetiredEntryAsActiveIsNamed) {
  Damage("UPDATE memory_fts SET state = substr(state, 1, length(state) - 7) WHERE rowid = " +
             EntryRowid(b_.entry_id),
         "UPDATE text_docs SET retired = false WHERE kind = 0 AND doc = " + EntryDoc(b_.entry_id));
  ExpectNamed(Run(), "fts_state_mismatch", std::nullopt, b_.entry_id, b_.entry_version_id);
}

TEST_F(VerifyTest, AFullTextRowOfNoEntryIsNamed) {
  Damage(
      "INSERT INTO memory_fts(rowid, text, state, entry_version_id, tokens) VALUES(999999, "
      "'stray', '', 'env_stray', 1)",
      "INSERT INTO text_docs(kind, owner, doc, tokens, retired, entry_version_id) VALUES(0, '" +
          memory_ + "', 999999, 1, false, 'env_stray')");
  verify::Report r = Run();
  const verify::Finding* f =
      f_.pg ? Find(r, "fts_row_stray", std::nullopt, "", "env_stray") : Find(r, "fts_row_orphan");
  ASSERT_NE(f, nullptr) << All(r);
  EXPECT_NE(f->detail.find("999999"), std::string::npos) << f->detail;
}

TEST_F(VerifyTest, AMissingAuditRowIsNamed) {
  const std::string sql = "DELETE FROM audit_log WHERE scope_id = '" + scope_ +
                          "' AND (targets LIKE '%\"revision\":2,%' OR targets LIKE "
                          "'%\"revision\":2}%')";
  Damage(sql, sql);
  verify::Report r = Run();
  ExpectNamed(r, "audit_row_missing", 2);
  EXPECT_EQ(Find(r, "audit_row_missing", 3), nullptr) << All(r);
}

TEST_F(VerifyTest, AnAuditRowOfNoCommittedWriteIsNamed) {
  const std::string sql =
      "INSERT INTO audit_log(at_ms, actor, operation, scope_id, targets, result, request_id) "
      "VALUES(1, 'x', 'remember', '" +
      scope_ + "', '{\"revision\":9}', 'ok', '')";
  Damage(sql, sql);
  ExpectNamed(Run(), "audit_row_without_write", 9);
}

// The daily review keeps the memory revision it last saw in a cursor of its own: bounded by the
// memory's head, not by the source log (a memory of more revisions than sources is clean).
TEST_F(VerifyTest, TheDailyReviewsRevisionCursorIsBoundedByTheHead) {
  PC_ASSERT_OK(f_.store->Write(Actor{"test", "", ""}, [&](WriteTxn& txn) -> Status {
    return txn.SetCursor(scope_, memory_, kReviewedRevisionConsumer, 5);  // the head; 2 sources
  }));
  verify::Report clean = Run();
  EXPECT_TRUE(clean.findings.empty()) << All(clean);
  const std::string sql = std::string("UPDATE cursors SET position = 6 WHERE consumer = '") +
                          kReviewedRevisionConsumer + "'";
  Damage(sql, sql);
  verify::Report r = Run();
  ExpectNamed(r, "cursor_beyond_head", std::nullopt);
  EXPECT_EQ(Find(r, "cursor_beyond_log"), nullptr) << All(r);
}

TEST_F(VerifyTest, ACursorBeyondTheLogIsNamed) {
  const std::string sql = "UPDATE cursors SET position = 7 WHERE scope_id = '" + scope_ + "'";
  Damage(sql, sql);
  verify::Report r = Run();
  ExpectNamed(r, "cursor_beyond_log", std::nullopt);
  EXPECT_NE(Find(r, "cursor_beyond_log")->detail.find("position 7"), std::string::npos);
}

TEST_F(VerifyTest, VectorRowsAndTheirCountAreChecked) {
  Damage("DELETE FROM entry_vectors WHERE entry_id = '" + c_.entry_id + "'",
         "DELETE FROM entry_vectors WHERE entry_id = '" + c_.entry_id + "'");
  verify::Report r = Run();
  ExpectNamed(r, "vector_row_missing", std::nullopt, c_.entry_id, c_.entry_version_id);
  ExpectNamed(r, "vector_count_mismatch", std::nullopt);
}

TEST_F(VerifyTest, MissingVectorsAreAWarningWhenAnEmbedderIsConfigured) {
  verify::Options options;
  options.embedder_configured = true;
  verify::Report r = Run(options);
  const verify::Finding* f = Find(r, "vectors_missing");
  ASSERT_NE(f, nullptr) << All(r);
  EXPECT_EQ(f->severity, verify::Severity::kWarning);
  EXPECT_NE(f->detail.find("2 active head entries"), std::string::npos) << f->detail;
  EXPECT_EQ(r.Count(verify::Severity::kViolation), 0) << All(r);
}

TEST_F(VerifyTest, OneScopeIsVerifiedByItsNameAndAnUnknownOneIsAnError) {
  f_.NewScope("project:other");
  verify::Options options;
  options.scope = "project:verify";
  EXPECT_EQ(Run(options).scopes, 1);
  auto source =
      f_.pg ? pg::OpenVerifySource(f_.pg->url()) : sqlite::OpenVerifySource(f_.dir.path());
  ASSERT_TRUE(source.ok());
  options.scope = "project:nobody";
  auto report = verify::Verify(**source, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace pc
