// Work continuity (RFC 1223, docs/work-continuity.md) through the service against the real store
// (SQLite, and PostgreSQL as pg:*): a verified claim needs readable same-scope evidence; the
// boundary becomes an uncommitted prepared handoff that cites it; a receipt is accepted only with
// every receiver check confirmed and every citation readable, and never against latest; a Task
// Outcome links only an accepted receipt of an exact revision; every refusal changes nothing.
#include "service/work/work_service.h"

#include <gtest/gtest.h>

#include "common/sha256.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_content.h"
#include "service/handoff/handoff_service.h"
#include "service/work/work_receipt.h"
#include "test_util.h"

namespace pc {
namespace {

const ReceiverChecks kAllConfirmed{"confirmed", "confirmed", "confirmed"};

class WorkTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  std::string scope = f.NewScope("project:work");
  HandoffService handoffs{*f.store, nullptr};
  SourceService sources{*f.store};
  WorkService work{handoffs, sources};

  Citation Remember(const std::string& text) {
    auto w = f.memory->Remember({scope, "fact", text, "", "t", {}});
    EXPECT_TRUE(w.ok()) << testing::Describe(w);
    return *w->citation;
  }
  // What a refusal must leave as it was: the source log's end and the handoff head.
  std::pair<int64_t, int64_t> Marks() {
    auto page = sources.List(scope, 0, 1);
    auto head = handoffs.Get(scope, std::nullopt);
    return {page.ok() ? page->high_watermark : -1, head.ok() ? head->ref.revision : 0};
  }
  WorkContract Contract(std::vector<WorkClaim> facts) {
    return WorkContract{"Add safe auto-refresh to the report.",
                        std::move(facts),
                        {"frontend polling"},
                        {"Handoff Core"},
                        {"tests pass"},
                        {"repository writes"},
                        {}};
  }
  CurrentWork Current(std::vector<WorkClaim> state) {
    return CurrentWork{"Add safe auto-refresh to the report.",
                       std::move(state),
                       HandoffDisposition::kContinuable,
                       WorkClaim{"Fix the frozen-selection comparison.", ClaimBasis::kDeclared, {}},
                       {"Remote CI is unavailable here."}};
  }
  AcknowledgeRequest Ack(const std::string& id, ReceiptStatus status, const MemoryRef& revision) {
    AcknowledgeRequest r;
    r.scope_id = scope;
    r.source_id = id;
    r.receiver = "agent-b";
    r.status = status;
    r.selection = HandoffSelection::kExact;
    r.revision = revision;
    if (status == ReceiptStatus::kAccepted)
      r.checks = kAllConfirmed;
    else
      r.message = "The failure log is missing.";
    return r;
  }
  TaskOutcome Outcome(std::optional<HandoffCitation> receipt) {
    TaskOutcome o;
    o.objective = "Add safe auto-refresh to the report.";
    o.status = "partial";
    o.summary = "Auto-refresh is done; the docs build timed out.";
    o.receipt = std::move(receipt);
    o.observations = {{"Draft protection works.", ClaimBasis::kDeclared, {}}};
    o.checks = {{"make docs-test", "timed_out", std::nullopt, ClaimBasis::kDeclared, {}}};
    return o;
  }
  // Sources appended straight through the store, as another writer (or a forger) could: each of
  // `contents` with `kind`, ids `src_<prefix><i>`, idempotency keys `<prefix>-<i>` when `keyed`.
  // Returns the scope's internal id.
  std::string AppendBehindTheService(const std::string& kind, const std::string& prefix,
                                     const std::vector<std::string>& contents,
                                     const std::string& metadata, bool keyed) {
    std::string scope_id;
    Status s = f.store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemoryForWrite(txn, ScopeRef::Parse(scope).value()));
      scope_id = memory.scope_id;
      for (size_t i = 0; i < contents.size(); ++i) {
        Source src;
        src.source_id = "src_" + prefix + std::to_string(i);
        src.scope_id = memory.scope_id;
        src.kind = kind;
        src.purpose = kind == kReceiptSourceKind ? kPurposeArchive : kPurposeMemory;
        src.content = contents[i];
        src.metadata_json = metadata;
        if (keyed) src.idempotency_key = prefix + "-" + std::to_string(i);
        PC_RETURN_IF_ERROR(txn.AppendSource(std::move(src)).status());
      }
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.message();
    return scope_id;
  }
  // A committed revision from prepare-current, citing `fact`.
  MemoryRef Committed(const std::string& boundary_id, const Citation& fact) {
    auto p = work.HandoffCurrent(
        {scope, boundary_id, "{\"b\":1}"},
        Current(
            {{"Polling is implemented.", ClaimBasis::kVerified, {MemoryHandoffCitation(fact)}}}));
    EXPECT_TRUE(p.ok()) << testing::Describe(p);
    auto c = handoffs.Commit(scope, p->handoff);
    EXPECT_TRUE(c.ok()) << testing::Describe(c);
    return c->handoff.ref;
  }
};

TEST_F(WorkTest, ContractIsAnExactSourceAndRetriesAnswerTheFirst) {
  Citation fact = Remember("The report polls every five seconds.");
  const std::string content = "{\"contract\":1}";
  auto r = work.CreateContract(
      {scope, "contract-1", content},
      Contract({{"Polling exists.", ClaimBasis::kVerified, {MemoryHandoffCitation(fact)}},
                {"The user wants it.", ClaimBasis::kDeclared, {}}}));
  PC_ASSERT_OK(r);
  EXPECT_EQ(r->kind, WorkKind::kContract);
  EXPECT_EQ(r->source.kind, "work-contract");
  EXPECT_EQ(r->source.purpose, kPurposeArchive);
  EXPECT_EQ(r->content_digest, "sha256:" + Sha256Hex(content));
  EXPECT_NE(r->source.metadata_json.find("\"kind\":\"work-contract\""), std::string::npos);
  auto again = work.CreateContract({scope, "contract-1", content}, Contract({}));
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->source.position, r->source.position);

  const auto before = Marks();
  auto other = work.CreateContract({scope, "contract-1", "{\"contract\":2}"}, Contract({}));
  EXPECT_EQ(other.status().code(), Code::kSourceConflict);
  EXPECT_EQ(Marks(), before);
}

// A record larger than one Source keeps (max_source_bytes) is the spec's 422 naming the record,
// not a 413 naming a "content" field the request does not have; nothing is kept. Also: source ids
// and receivers are counted in characters and blank as ECMAScript's \s is (U+3000 too).
TEST_F(WorkTest, ATooLargeRecordAndBlankNamesAreInvalidRequests) {
  const auto before = Marks();
  auto big = work.CreateContract(
      {scope, "contract-big", std::string(kDefaultMaxSourceBytes + 1, 'x')}, Contract({}));
  EXPECT_EQ(big.status().code(), Code::kInvalidArgument) << testing::Describe(big);
  EXPECT_EQ(testing::Describe(big).find("content"), std::string::npos) << testing::Describe(big);
  EXPECT_NE(big.status().ToString().find("contract"), std::string::npos);
  EXPECT_EQ(work.CreateContract({scope, "\xe3\x80\x80", "{}"}, Contract({})).status().code(),
            Code::kInvalidArgument)
      << "U+3000 alone is blank";
  EXPECT_EQ(Marks(), before);
  // 200 "é" (400 bytes) is a valid source id, for the boundary's citation too.
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "\xc3\xa9";
  PC_ASSERT_OK(work.HandoffCurrent({scope, accents, "{\"b\":1}"},
                                   Current({{"Polling exists.", ClaimBasis::kDeclared, {}}})));
}

TEST_F(WorkTest, ClaimBasisMustAgreeWithEvidenceAndRefusalsChangeNothing) {
  Citation fact = Remember("The report polls every five seconds.");
  const auto before = Marks();
  auto declared_with_evidence = work.CreateContract(
      {scope, "c", "{}"}, Contract({{"x", ClaimBasis::kDeclared, {MemoryHandoffCitation(fact)}}}));
  EXPECT_EQ(declared_with_evidence.status().code(), Code::kInvalidArgument);
  auto verified_without =
      work.CreateContract({scope, "c", "{}"}, Contract({{"x", ClaimBasis::kVerified, {}}}));
  EXPECT_EQ(verified_without.status().code(), Code::kInvalidArgument);
  auto unreadable = work.CreateContract(
      {scope, "c", "{}"},
      Contract({{"x", ClaimBasis::kVerified, {SourceHandoffCitation("no-such")}}}));
  EXPECT_EQ(unreadable.status().code(), Code::kNotFound);
  // Another scope's evidence is not this scope's.
  std::string other = f.NewScope("project:other");
  auto w = f.memory->Remember({other, "fact", "Elsewhere.", "", "t", {}});
  PC_ASSERT_OK(w);
  auto foreign = work.CreateContract(
      {scope, "c", "{}"},
      Contract({{"x", ClaimBasis::kVerified, {MemoryHandoffCitation(*w->citation)}}}));
  EXPECT_EQ(foreign.status().code(), Code::kNotFound);
  auto no_scope_item = work.CreateContract({scope, "c", "{}"}, Contract({}));
  EXPECT_TRUE(no_scope_item.ok());  // the control: the same request, valid
  EXPECT_EQ(Marks().first, before.first + 1);
}

TEST_F(WorkTest, HandoffCurrentPreparesWithoutCommitting) {
  Citation fact = Remember("The report polls every five seconds.");
  const auto before = Marks();
  auto p = work.HandoffCurrent(
      {scope, "boundary-1", "{\"b\":1}"},
      Current({{"Polling is implemented.", ClaimBasis::kVerified, {MemoryHandoffCitation(fact)}},
               {"A switching test fails.", ClaimBasis::kDeclared, {}}}));
  PC_ASSERT_OK(p);
  EXPECT_EQ(p->boundary.kind, WorkKind::kBoundary);
  EXPECT_EQ(p->boundary.source.kind, "handoff-boundary");
  EXPECT_EQ(Marks(), std::make_pair(before.first + 1, int64_t{0})) << "one source, no commit";
  const HandoffContent& c = p->handoff.content;
  ASSERT_EQ(c.state.size(), 2u);
  for (const HandoffStatement& st : c.state)
    EXPECT_EQ(st.citations[0], SourceHandoffCitation("boundary-1"));
  EXPECT_EQ(c.state[0].citations.size(), 2u) << "a verified claim keeps its evidence";
  EXPECT_EQ(c.state[0].citations[1], MemoryHandoffCitation(fact));
  ASSERT_TRUE(c.next_action);
  EXPECT_EQ(c.next_action->citations[0], SourceHandoffCitation("boundary-1"));
  EXPECT_FALSE(p->handoff.base);

  auto bad =
      work.HandoffCurrent({scope, "boundary-2", "{}"},
                          Current({{"x", ClaimBasis::kVerified, {SourceHandoffCitation("none")}}}));
  EXPECT_EQ(bad.status().code(), Code::kNotFound);
  EXPECT_EQ(Marks(), std::make_pair(before.first + 1, int64_t{0}));
}

TEST_F(WorkTest, AcceptedNeedsConfirmedChecksReadableEvidenceAndAnExactSelection) {
  Citation fact = Remember("The report polls every five seconds.");
  MemoryRef rev = Committed("boundary-1", fact);
  const auto before = Marks();

  AcknowledgeRequest latest = Ack("r-0", ReceiptStatus::kAccepted, rev);
  latest.selection = HandoffSelection::kLatest;
  latest.revision.reset();
  EXPECT_EQ(work.Acknowledge(latest).status().code(), Code::kInvalidArgument);
  AcknowledgeRequest unchecked = Ack("r-0", ReceiptStatus::kAccepted, rev);
  unchecked.checks->authorization = "insufficient";
  EXPECT_EQ(work.Acknowledge(unchecked).status().code(), Code::kInvalidArgument);
  unchecked.checks.reset();
  EXPECT_EQ(work.Acknowledge(unchecked).status().code(), Code::kInvalidArgument);
  AcknowledgeRequest no_reason = Ack("r-0", ReceiptStatus::kDeclined, rev);
  no_reason.message.reset();
  EXPECT_EQ(work.Acknowledge(no_reason).status().code(), Code::kInvalidArgument);
  AcknowledgeRequest missing = Ack("r-0", ReceiptStatus::kAccepted, {"handoff", "hnd_x", 9});
  EXPECT_EQ(work.Acknowledge(missing).status().code(), Code::kNotFound);
  EXPECT_EQ(Marks(), before);

  // The cited memory entry is retired: its evidence is unavailable now.
  PC_ASSERT_OK(f.memory->Retire({scope, fact, "moved", "t"}));
  const auto retired = Marks();
  EXPECT_EQ(work.Acknowledge(Ack("r-1", ReceiptStatus::kAccepted, rev)).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Marks(), retired);
  auto clarify = work.Acknowledge(Ack("r-1", ReceiptStatus::kNeedsClarification, rev));
  PC_ASSERT_OK(clarify);
  EXPECT_EQ(clarify->receipt.source.kind, "handoff-receipt");
  EXPECT_NE(clarify->receipt.source.content.find("\"evidence\":\"unavailable\""),
            std::string::npos);
  ASSERT_TRUE(clarify->resolution.selected_revision);
  EXPECT_EQ(*clarify->resolution.selected_revision, rev);
}

// The evidence is resolved in the write that keeps the receipt: a retirement forced after the
// service's first read lands either after the receipt (which then said available truthfully) or
// before the resolution (and accepted is refused). Never an "available" receipt written after it.
TEST_F(WorkTest, ARetirementCannotLandBetweenTheEvidenceCheckAndTheReceipt) {
  Citation fact = Remember("The report polls every five seconds.");
  MemoryRef rev = Committed("boundary-1", fact);
  bool retired = false, receipt_was_kept = false;
  testing::WriteBetweenReads hooked(*f.store, [&] {
    auto kept = sources.Find(scope, "r-1");
    receipt_was_kept = kept.ok() && kept->has_value();
    PC_ASSERT_OK(f.memory->Retire({scope, fact, "moved", "t"}));
    retired = true;
  });
  HandoffService hooked_handoffs{hooked, nullptr};
  SourceService hooked_sources{hooked};
  WorkService hooked_work{hooked_handoffs, hooked_sources};
  auto ack = hooked_work.Acknowledge(Ack("r-1", ReceiptStatus::kAccepted, rev));
  if (!retired) PC_ASSERT_OK(hooked.Read([](ReadTxn&) { return Status::Ok(); }));
  ASSERT_TRUE(retired);
  if (ack.ok())
    EXPECT_TRUE(receipt_was_kept) << "an accepted receipt kept after the retirement it missed";
  else
    EXPECT_EQ(ack.status().code(), Code::kInvalidArgument) << testing::Describe(ack);
}

TEST_F(WorkTest, OutcomeLinksOnlyAnAcceptedReceiptOfAnExactRevision) {
  Citation fact = Remember("The report polls every five seconds.");
  MemoryRef rev = Committed("boundary-1", fact);
  // Declined first: a declined receipt after the accepted one would supersede it.
  auto declined = work.Acknowledge(Ack("r-declined", ReceiptStatus::kDeclined, rev));
  PC_ASSERT_OK(declined);
  auto accepted = work.Acknowledge(Ack("r-accepted", ReceiptStatus::kAccepted, rev));
  PC_ASSERT_OK(accepted);
  auto prepared =
      work.HandoffCurrent({scope, "boundary-2", "{\"b\":2}"},
                          Current({{"Polling is implemented.", ClaimBasis::kDeclared, {}}}));
  PC_ASSERT_OK(prepared);
  AcknowledgeRequest on_prepared = Ack("r-prepared", ReceiptStatus::kAccepted, rev);
  on_prepared.selection = HandoffSelection::kPrepared;
  on_prepared.revision.reset();
  on_prepared.prepared = prepared->handoff;
  auto prepared_receipt = work.Acknowledge(on_prepared);
  PC_ASSERT_OK(prepared_receipt);
  EXPECT_NE(prepared_receipt->receipt.source.content.find("prepared_digest"), std::string::npos);

  const auto before = Marks();
  for (const char* id : {"r-declined", "r-prepared", "boundary-1"})
    EXPECT_EQ(work.RecordOutcome({scope, "o-1", "{\"o\":1}"}, Outcome(SourceHandoffCitation(id)))
                  .status()
                  .code(),
              Code::kInvalidArgument)
        << id;
  EXPECT_EQ(work.RecordOutcome({scope, "o-1", "{\"o\":1}"}, Outcome(SourceHandoffCitation("nope")))
                .status()
                .code(),
            Code::kNotFound);
  // A forged record: the generic source routes may not write the receipt, contract or boundary
  // kinds (a task-outcome they may: RFC 0051 captures those as content).
  for (const char* kind : {"handoff-receipt", "work-contract", "handoff-boundary"})
    EXPECT_EQ(sources.Add(scope, {{kind, "", "x", "{}", "forged"}}).status().code(),
              Code::kInvalidArgument)
        << kind;
  TaskOutcome verified_pass = Outcome(SourceHandoffCitation("r-accepted"));
  verified_pass.checks[0] = {"pytest", "passed", std::nullopt, ClaimBasis::kVerified, {}};
  EXPECT_EQ(work.RecordOutcome({scope, "o-1", "{}"}, verified_pass).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Marks(), before);

  auto o =
      work.RecordOutcome({scope, "o-1", "{\"o\":1}"}, Outcome(SourceHandoffCitation("r-accepted")));
  PC_ASSERT_OK(o);
  EXPECT_EQ(o->kind, WorkKind::kOutcome);
  EXPECT_EQ(o->source.kind, "task-outcome");
  auto unlinked = work.RecordOutcome({scope, "o-2", "{\"o\":2}"}, Outcome(std::nullopt));
  PC_ASSERT_OK(unlinked);
}

// A row that only looks like a receipt (kind handoff-receipt, metadata accepted and exact) but was
// written some other way than acknowledge_handoff (an import, a restore, an older server) is not
// linked: the outcome reads the receipt's own content back and refuses what acknowledge_handoff
// would not have written.
TEST_F(WorkTest, AnOutcomeLinksOnlyAReceiptWhoseStoredContentIsAnAcceptance) {
  Citation fact = Remember("The report polls every five seconds.");
  MemoryRef rev = Committed("boundary-1", fact);
  auto real = work.Acknowledge(Ack("r-real", ReceiptStatus::kAccepted, rev));
  PC_ASSERT_OK(real);
  const std::string content = real->receipt.source.content;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string out = content;
    const size_t at = out.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? out : out.replace(at, from.size(), to);
  };
  const std::vector<std::string> forged = {
      "not json",
      "{}",
      with("\"status\":\"accepted\"", "\"status\":\"declined\""),
      with("{\"evidence\"", "{\"forged\":1,\"evidence\""),
      with("\"authorization\":\"confirmed\"", "\"authorization\":\"insufficient\""),
      with("\"revision\":{", "\"prepared_digest\":\"sha256:x\",\"revision\":{"),
      " " + content,
  };
  const std::string meta = ReceiptMetadata(Ack("r", ReceiptStatus::kAccepted, rev));
  AppendBehindTheService(kReceiptSourceKind, "forged", forged, meta, true);
  const auto before = Marks();
  for (size_t i = 0; i < forged.size(); ++i) {
    auto o = work.RecordOutcome({scope, "o-1", "{\"o\":1}"},
                                Outcome(SourceHandoffCitation("forged-" + std::to_string(i))));
    EXPECT_EQ(o.status().code(), Code::kInvalidArgument) << forged[i];
  }
  EXPECT_EQ(Marks(), before);
  PC_ASSERT_OK(
      work.RecordOutcome({scope, "o-1", "{\"o\":1}"}, Outcome(SourceHandoffCitation("r-real"))));
}

// An acceptance that a later receipt of the same revision declined is superseded: an outcome
// may not link it (a clear 422 naming the later receipt), nor does a decline of another revision
// count; an acceptance after the decline links again.
TEST_F(WorkTest, AnOutcomeDoesNotLinkAnAcceptanceALaterReceiptDeclined) {
  Citation fact = Remember("The report polls every five seconds.");
  MemoryRef rev = Committed("boundary-1", fact);
  PC_ASSERT_OK(work.Acknowledge(Ack("r-1", ReceiptStatus::kAccepted, rev)));
  MemoryRef next = Committed("boundary-2", fact);
  PC_ASSERT_OK(work.Acknowledge(Ack("r-other", ReceiptStatus::kDeclined, next)));
  auto linked =
      work.RecordOutcome({scope, "o-1", "{\"o\":1}"}, Outcome(SourceHandoffCitation("r-1")));
  PC_ASSERT_OK(linked);  // the control: a decline of another revision supersedes nothing

  PC_ASSERT_OK(work.Acknowledge(Ack("r-2", ReceiptStatus::kDeclined, rev)));
  const auto before = Marks();
  auto superseded =
      work.RecordOutcome({scope, "o-2", "{\"o\":2}"}, Outcome(SourceHandoffCitation("r-1")));
  EXPECT_EQ(superseded.status().code(), Code::kInvalidArgument) << testing::Describe(superseded);
  EXPECT_NE(superseded.status().message().find("r-2"), std::string::npos)
      << superseded.status().message();
  EXPECT_EQ(Marks(), before);
  PC_ASSERT_OK(work.Acknowledge(Ack("r-3", ReceiptStatus::kAccepted, rev)));
  PC_ASSERT_OK(
      work.RecordOutcome({scope, "o-2", "{\"o\":2}"}, Outcome(SourceHandoffCitation("r-3"))));
}

// A produced artifact is an ArtifactReference in the request, not a citation: its errors name
// outcome.produced_artifacts[i] (and its own fields), never an "artifact_ref" the request lacks.
// The later decline is looked for among the scope's receipts only (ReadTxn::ListSourcesOfKind,
// an index on kind), so the sources of other kinds written between them are never read; it is
// found however many there are.
TEST_F(WorkTest, ALaterDeclineIsFoundAmongTheReceiptsPastOtherSources) {
  Citation fact = Remember("The importer retries three times.");
  MemoryRef rev = Committed("boundary-1", fact);
  PC_ASSERT_OK(work.Acknowledge(Ack("r-1", ReceiptStatus::kAccepted, rev)));
  std::vector<std::string> chat;
  for (int i = 0; i < 250; ++i) chat.push_back("chat line " + std::to_string(i));  // > 100, a page
  const std::string scope_id = AppendBehindTheService("chat", "chat", chat, "{}", false);
  PC_ASSERT_OK(work.Acknowledge(Ack("r-2", ReceiptStatus::kDeclined, rev)));
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto receipts, txn.ListSourcesOfKind(scope_id, kReceiptSourceKind, 0, 10));
    EXPECT_EQ(receipts.size(), 2u);
    if (receipts.size() != 2u) return Status::Ok();
    EXPECT_LT(receipts[0].position, receipts[1].position);
    EXPECT_GT(receipts[1].position - receipts[0].position, 250);
    for (const Source& r : receipts) EXPECT_EQ(r.kind, kReceiptSourceKind);
    PC_ASSIGN_OR_RETURN(
        auto after, txn.ListSourcesOfKind(scope_id, kReceiptSourceKind, receipts[0].position, 10));
    EXPECT_EQ(after.size(), 1u);
    PC_ASSIGN_OR_RETURN(auto first, txn.ListSourcesOfKind(scope_id, kReceiptSourceKind, 0, 1));
    EXPECT_EQ(first.size(), 1u);
    PC_ASSIGN_OR_RETURN(auto chats, txn.ListSourcesOfKind(scope_id, "chat", 0, 1000));
    EXPECT_EQ(chats.size(), 250u);
    return Status::Ok();
  }));
  auto superseded =
      work.RecordOutcome({scope, "o-1", "{\"o\":1}"}, Outcome(SourceHandoffCitation("r-1")));
  EXPECT_EQ(superseded.status().code(), Code::kInvalidArgument) << testing::Describe(superseded);
}

TEST_F(WorkTest, AProducedArtifactErrorNamesTheRequestField) {
  Remember("The report polls every five seconds.");
  const auto before = Marks();
  for (const MemoryRef& bad : {MemoryRef{kMemoryFamily, "mem_x", 0}, MemoryRef{"", "mem_x", 1}}) {
    TaskOutcome o = Outcome(std::nullopt);
    o.produced_artifacts = {MemoryRef{kMemoryFamily, "mem_y", 1}, bad};
    auto r = work.RecordOutcome({scope, "o-1", "{}"}, o);
    ASSERT_EQ(r.status().code(), Code::kInvalidArgument) << testing::Describe(r);
    EXPECT_EQ(r.status().message().find("artifact_ref"), std::string::npos) << r.status().message();
    ASSERT_FALSE(r.status().details().empty());
    EXPECT_EQ(std::get<std::string>(r.status().details()[0].value),
              "outcome.produced_artifacts[1]");
  }
  EXPECT_EQ(Marks(), before);
}

TEST_F(WorkTest, ARefusalCreatesNoScope) {
  const std::string fresh = "project:never-written";
  auto refused = work.CreateContract(
      {fresh, "c", "{}"},
      Contract({{"x", ClaimBasis::kVerified, {SourceHandoffCitation("none")}}}));
  EXPECT_EQ(refused.status().code(), Code::kNotFound);
  auto outcome = work.RecordOutcome({fresh, "o", "{}"}, Outcome(SourceHandoffCitation("r")));
  EXPECT_EQ(outcome.status().code(), Code::kNotFound);
  // A receipt for a prepared handoff of a scope nobody wrote to: there is no handoff to
  // acknowledge (404), whatever the status, and the receipt's write takes back the scope it made.
  for (ReceiptStatus status : {ReceiptStatus::kDeclined, ReceiptStatus::kAccepted}) {
    AcknowledgeRequest ack = Ack("r-fresh", status, {"handoff", "hnd_x", 1});
    ack.scope_id = fresh;
    ack.selection = HandoffSelection::kPrepared;
    ack.revision.reset();
    ack.prepared = PreparedHandoff{fresh, std::nullopt, {}};
    ack.prepared->content.objective = "Ship it.";
    ack.prepared->content.state = {{"Done: the reader.", {SourceHandoffCitation("s-1")}}};
    auto acknowledged = work.Acknowledge(ack);
    EXPECT_EQ(acknowledged.status().code(), Code::kNotFound) << acknowledged.status().ToString();
  }
  std::optional<Scope> found;
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(found, FindScopeNamed(txn, fresh));
    return Status::Ok();
  }));
  EXPECT_FALSE(found) << "a refused write creates no scope";
}

TEST(PreparedDigest, NamesExactlyOnePreparedHandoff) {
  PreparedHandoff p{"project:a", std::nullopt, {}};
  p.content.objective = "Ship it.";
  p.content.state = {{"Done: the reader.", {SourceHandoffCitation("s-1")}}};
  const std::string digest = PreparedDigest(p);
  EXPECT_EQ(digest.size(), 71u);
  EXPECT_EQ(PreparedDigest(p), digest) << "deterministic";
  PreparedHandoff moved = p;
  moved.content.objective = "Ship it.\nDone: the reader.";  // text moved between parts
  moved.content.state[0].text = "";
  EXPECT_NE(PreparedDigest(moved), digest);
  PreparedHandoff based = p;
  based.base = MemoryRef{kHandoffFamily, "hnd_x", 1};
  EXPECT_NE(PreparedDigest(based), digest);
  PreparedHandoff cited = p;
  cited.content.state[0].citations[0] = SourceHandoffCitation("s-2");
  EXPECT_NE(PreparedDigest(cited), digest);
}

// Each citation part is its own value in the digest: a "/" inside a part does not move it into the
// next one, as it would in the citation's display text ("source:a/b/c" for both).
TEST(PreparedDigest, CitationPartsDoNotRunTogether) {
  auto with_source = [](const std::string& name, const std::string& id) {
    HandoffCitation c;
    c.kind = HandoffCitationKind::kSource;
    c.source_name = name;
    c.source_id = id;
    PreparedHandoff p{"project:a", std::nullopt, {}};
    p.content.objective = "Ship it.";
    p.content.state = {{"Done: the reader.", {c}}};
    p.content.omissions = {{"CI is down.", c}};
    return p;
  };
  EXPECT_NE(PreparedDigest(with_source("a/b", "c")), PreparedDigest(with_source("a", "b/c")));
  PreparedHandoff omitted = with_source("a/b", "c");
  omitted.content.state[0].citations[0].source_name = "a";
  omitted.content.state[0].citations[0].source_id = "b/c";
  EXPECT_NE(PreparedDigest(omitted), PreparedDigest(with_source("a", "b/c")))
      << "an omission's citation counts too";
}

}  // namespace
}  // namespace pc
