// Sources and flush (DESIGN §3, invariants 7 and 8) against the real store, with a fake
// OpenAI-compatible chat endpoint on loopback scripted by each test.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "extract/prompt.h"
#include "fake_chat.h"
#include "fake_openai.h"
#include "providers/command_extractor.h"
#include "providers/openai_chat_extractor.h"
#include "service/flush/flush_record.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "test_util.h"

namespace pc {
namespace {

using Reply = testing::FakeOpenAi::ChatReply;
using nlohmann::json;

class FlushTest : public testing::ChatModelTest {
 protected:
  std::string scope = f.NewScope();
  FlushService flush{*f.store, chat.get(), nullptr, {}};

  Source Add(const std::string& content, const std::string& purpose = "") {
    auto r = sources.Add(scope, {{"work_log", purpose, content, "{}", std::nullopt}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)[0].source : Source{};
  }
  Citation Remember(const std::string& text, const std::string& kind = "fact") {
    auto r = f.memory->Remember({scope, kind, text, "", "test", {}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r->citation : Citation{};
  }
  std::vector<ManifestItem> Entries() {
    auto r = f.memory->ListEntries({scope, std::nullopt, false, {1000, ""}});
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->items : std::vector<ManifestItem>{};
  }
  int64_t Head() { return f.memory->GetScope(scope)->memory_head_revision; }
  // The last chat request's user message, parsed: {"sources": [...], "entries": [...]}.
  json LastInput() {
    auto bodies = fake.chat_bodies();
    return json::parse(json::parse(bodies.back())["messages"][1]["content"].get<std::string>());
  }
};

TEST_F(FlushTest, SourcesAreAppendedListedAndIdempotent) {
  Source a = Add("first record");
  Source b = Add("second record", "archive");
  EXPECT_EQ(a.position, 1);
  EXPECT_EQ(b.position, 2);
  EXPECT_EQ(b.purpose, "archive");
  EXPECT_EQ(SourceRef(a), "source/" + a.source_id + "@1");
  auto first = sources.Add(scope, {{"chat", "", "keyed", "{\"turn\":3}", "key-1"}});
  PC_ASSERT_OK(first);
  auto retry = sources.Add(scope, {{"chat", "", "keyed", "{}", "key-1"}});
  PC_ASSERT_OK(retry);
  EXPECT_TRUE((*first)[0].created);
  EXPECT_FALSE((*retry)[0].created);
  EXPECT_EQ((*retry)[0].source.source_id, (*first)[0].source.source_id);
  EXPECT_EQ((*retry)[0].source.content, "keyed");
  EXPECT_EQ(SourceRef((*first)[0].source), "source/key-1@3");  // known by the id it was given
  // The same key with other content is no retry: refused, nothing appended.
  auto other = sources.Add(scope, {{"chat", "", "keyed, but other words", "{}", "key-1"}});
  EXPECT_EQ(other.status().code(), Code::kSourceConflict);
  EXPECT_EQ(sources.List(scope, 0, 100)->high_watermark, 3);
  // A batch is all or nothing: one bad item, nothing appended.
  auto bad = sources.Add(scope, {{"chat", "", "fine", "{}", std::nullopt},
                                 {"chat", "later", "x", "{}", std::nullopt}});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  ASSERT_FALSE(bad.status().details().empty());
  EXPECT_EQ(std::get<std::string>(bad.status().details()[0].value), "sources[1].purpose");
  auto page = sources.List(scope, 0, 2);
  PC_ASSERT_OK(page);
  EXPECT_EQ(page->high_watermark, 3);
  ASSERT_EQ(page->items.size(), 2u);
  ASSERT_TRUE(page->next_after);
  auto rest = sources.List(scope, *page->next_after, 10);
  PC_ASSERT_OK(rest);
  ASSERT_EQ(rest->items.size(), 1u);
  EXPECT_EQ(rest->items[0].metadata_json, "{\"turn\":3}");
  EXPECT_FALSE(rest->next_after);
  // Limits and unknown scopes.
  SourceService small(*f.store, 10);
  EXPECT_EQ(
      small.Add(scope, {{"chat", "", std::string(11, 'x'), "{}", std::nullopt}}).status().code(),
      Code::kTooLarge);
  // A server id never issued is not the caller's to create.
  EXPECT_EQ(sources.Add("scp_01JDZZZZZZZZZZZZZZZZZZZZZZ", {{"chat", "", "x", "{}", std::nullopt}})
                .status()
                .code(),
            Code::kInvalidArgument);
  EXPECT_EQ(sources.Add(scope, {{"chat\n", "", "x", "{}", std::nullopt}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(sources.Add(scope, {{"chat", "", "   ", "{}", std::nullopt}}).status().code(),
            Code::kInvalidArgument);
}

// The seed's example: E1 exists; S1 changes it, S2 is new → E1 revised (v2) and one new entry,
// both with exact source refs, in one revision whose lineage lists the window.
TEST_F(FlushTest, SeedExampleRevisesAndAddsWithExactSourceRefs) {
  Citation e1 = Remember("amount: stored as integer cents");
  Source s1 = Add("conversion now uses Decimal, still integer cents");
  Source s2 = Add("import errors must include the CSV line number");
  fake.ScriptChat({{R"({"operations": [
      {"op": "revise", "target": "E1", "text": "amount: stored as integer cents; conversion uses Decimal", "evidence": ["S1"]},
      {"op": "add", "kind": "constraint", "text": "Import errors must include the CSV line number.", "evidence": ["S2"]}]})"}});
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  EXPECT_TRUE(out->processed);
  EXPECT_EQ(out->previous_cursor, 0);
  EXPECT_EQ(out->current_cursor, 2);
  EXPECT_EQ(out->high_watermark, 2);
  EXPECT_EQ(out->processed_source_count, 2);
  EXPECT_TRUE(out->rejected.empty());
  ASSERT_EQ(out->changes.size(), 2u);
  const FlushChange& revised = out->changes[0];
  EXPECT_EQ(revised.change.op, ChangeOp::kRevise);
  EXPECT_EQ(revised.version.entry_id, e1.entry_id);
  EXPECT_EQ(revised.version.version, 2);
  EXPECT_EQ(revised.version.kind, "fact");  // kept
  EXPECT_EQ(revised.version.source_refs, std::vector<std::string>{SourceRef(s1)});
  EXPECT_EQ(out->changes[1].version.source_refs, std::vector<std::string>{SourceRef(s2)});
  EXPECT_EQ(out->changes[1].version.kind, "constraint");
  ASSERT_TRUE(out->memory);
  EXPECT_EQ(out->memory->revision, 2);
  auto rev = f.memory->GetRevision(scope, 2, {});
  PC_ASSERT_OK(rev);
  EXPECT_EQ(rev->info.lineage, (std::vector<std::string>{SourceRef(s1), SourceRef(s2)}));
  EXPECT_EQ(rev->info.actor, "extraction:openai/fake-chat");
  EXPECT_EQ(Entries().size(), 2u);
  // What the model saw: the sources as S1, S2 and the entry as E1, with the schema asked for.
  json input = LastInput();
  EXPECT_EQ(input["sources"][1]["id"], "S2");
  EXPECT_EQ(input["entries"][0]["text"], "amount: stored as integer cents");
  EXPECT_TRUE(json::parse(fake.chat_bodies().back()).contains("response_format"));
  // The old citation still reads; the window is done.
  PC_ASSERT_OK(f.memory->Read(scope, e1));
  auto idle = flush.Flush(scope);
  PC_ASSERT_OK(idle);
  EXPECT_FALSE(idle->processed);
  EXPECT_EQ(idle->current_cursor, 2);
  EXPECT_EQ(fake.chat_requests(), 1);
}

TEST_F(FlushTest, BadOperationsAreRejectedWithReasonsAndTheRestCommit) {
  Remember("The importer reads CSV files.");
  Remember("Deploys happen on Fridays.");
  Add("the importer also reads TSV now");
  fake.ScriptChat({{R"(```json
{"operations": [
  {"op": "add", "kind": "fact", "text": "Source ids are invented", "evidence": ["S9"]},
  {"op": "revise", "target": "E7", "text": "no such entry", "evidence": ["S1"]},
  {"op": "revise", "target": "E1", "text": "The importer reads CSV and TSV files.", "evidence": ["S1"]},
  {"op": "revise", "target": "E1", "text": "Second revision of the same entry", "evidence": ["S1"]},
  {"op": "add", "kind": "opinion", "text": "Wrong kind", "evidence": ["S1"]},
  {"op": "delete", "target": "E2", "evidence": ["S1"]},
  {"op": "add", "kind": "fact", "text": "   ", "evidence": ["S1"]},
  {"op": "add", "kind": "fact", "text": "\u3000\u200b\u3000", "evidence": ["S1"]},
  {"op": "add", "kind": "fact", "text": "No evidence given"},
  {"op": "add", "kind": "fact", "text": "Deploys  happen on Fridays.", "evidence": ["S1"]},
  {"op": "add", "kind": "working_note", "text": "TSV support is new.", "evidence": ["S1"]},
  "not an object"
]}
```)"}});
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  ASSERT_EQ(out->changes.size(), 2u);  // the first revise of E1 and the last add
  EXPECT_EQ(out->changes[0].version.text, "The importer reads CSV and TSV files.");
  EXPECT_EQ(out->changes[1].version.text, "TSV support is new.");
  std::vector<std::string> reasons;
  for (const Rejection& r : out->rejected) reasons.push_back(r.reason);
  ASSERT_EQ(reasons.size(), 10u);
  auto has = [&](const std::string& part) {
    for (const auto& r : reasons)
      if (r.find(part) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("evidence \"S9\" is not a source of this call"));
  EXPECT_TRUE(has("target \"E7\" is not an entry shown"));
  EXPECT_TRUE(has("E1 is already revised"));
  EXPECT_TRUE(has("kind must be one of"));
  EXPECT_TRUE(has("unknown op \"delete\""));
  EXPECT_TRUE(has("text must not be empty"));
  EXPECT_TRUE(
      has("text must not be empty or only invisible characters"));  // as remember refuses it
  EXPECT_TRUE(has("no evidence"));
  EXPECT_TRUE(has("no change: same text as active entry"));
  EXPECT_TRUE(has("not an object"));
  EXPECT_EQ(out->current_cursor, 1);
}

// The last flush that processed a window is recorded in its own transaction (docs/extraction.md,
// "The last flush"): what it committed and every rejection; failed and idle flushes leave it.
TEST_F(FlushTest, TheLastFlushIsRecordedWithItsCommitAndOnlyThen) {
  auto none = flush.Last(scope);
  PC_ASSERT_OK(none);
  EXPECT_FALSE(none->has_value());
  auto unknown = flush.Last("project:nobody-wrote-here");
  PC_ASSERT_OK(unknown);
  EXPECT_FALSE(unknown->has_value());
  EXPECT_FALSE(f.memory->GetScope("project:nobody-wrote-here").ok())
      << "reading it created no scope";
  EXPECT_EQ(flush.Last("").status().code(), Code::kInvalidArgument);

  Remember("The importer reads CSV files.");
  Add("the importer also reads TSV now");
  fake.ScriptChat({{R"({"operations": [
    {"op": "revise", "target": "E1", "text": "The importer reads CSV and TSV files.", "evidence": ["S1"]},
    {"op": "add", "kind": "opinion", "text": "Wrong kind", "evidence": ["S1"]},
    "not an object"]})"}});
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  ASSERT_EQ(out->changes.size(), 1u);
  ASSERT_EQ(out->rejected.size(), 2u);
  auto last = flush.Last(scope);
  PC_ASSERT_OK(last);
  ASSERT_TRUE(last->has_value());
  const FlushRecord& r = **last;
  EXPECT_GT(r.at_ms, 0);
  EXPECT_EQ(r.actor, "local");  // no request on this thread: the local administrator
  EXPECT_TRUE(r.outcome.processed);
  EXPECT_EQ(r.outcome.previous_cursor, 0);
  EXPECT_EQ(r.outcome.current_cursor, 1);
  EXPECT_EQ(r.outcome.high_watermark, 1);
  EXPECT_EQ(r.outcome.processed_source_count, 1);
  EXPECT_EQ(r.outcome.memory, out->memory);
  ASSERT_EQ(r.outcome.changes.size(), 1u);
  EXPECT_EQ(r.outcome.changes[0].citation, out->changes[0].citation);
  EXPECT_EQ(r.outcome.changes[0].change.from_version_id, out->changes[0].change.from_version_id);
  EXPECT_EQ(r.outcome.changes[0].version.text, "The importer reads CSV and TSV files.");
  ASSERT_EQ(r.outcome.rejected.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.outcome.rejected[i].reason, out->rejected[i].reason);
    EXPECT_EQ(r.outcome.rejected[i].candidate_json, out->rejected[i].candidate_json);
  }
  EXPECT_EQ(r.rejected_omitted, 0u);

  // A failed flush and an idle one leave the record as it was.
  const std::string before = EncodeFlushRecord(r);
  Add("a second record");
  fake.ScriptChat({{"prose, not the JSON asked for"}});
  ASSERT_FALSE(flush.Flush(scope).ok());
  auto after_failure = flush.Last(scope);
  PC_ASSERT_OK(after_failure);
  ASSERT_TRUE(after_failure->has_value());
  EXPECT_EQ(EncodeFlushRecord(**after_failure), before);

  // Past 100 rejections the rest are counted; a long rejected operation is cut.
  std::string ops = R"({"op": "add", "kind": "opinion", "text": ")" + std::string(3000, 'x') +
                    R"(", "evidence": ["S1"]})";
  for (int i = 0; i < 104; ++i) ops += R"(, "not an object")";
  fake.ScriptChat({{R"({"operations": [)" + ops + "]}"}});
  auto many = flush.Flush(scope);
  PC_ASSERT_OK(many);
  ASSERT_EQ(many->rejected.size(), 105u);
  auto capped = flush.Last(scope);
  PC_ASSERT_OK(capped);
  ASSERT_TRUE(capped->has_value());
  EXPECT_EQ((*capped)->outcome.previous_cursor, 1);
  EXPECT_EQ((*capped)->outcome.current_cursor, 2);
  EXPECT_TRUE((*capped)->outcome.changes.empty());
  ASSERT_EQ((*capped)->outcome.rejected.size(), kMaxRecordedRejections);
  EXPECT_EQ((*capped)->rejected_omitted, 5u);
  EXPECT_LE((*capped)->outcome.rejected[0].candidate_json.size(), kMaxRecordedCandidateBytes);
  EXPECT_EQ((*capped)->outcome.rejected[0].reason, many->rejected[0].reason);

  auto idle = flush.Flush(scope);
  PC_ASSERT_OK(idle);
  EXPECT_FALSE(idle->processed);
  auto after_idle = flush.Last(scope);
  PC_ASSERT_OK(after_idle);
  EXPECT_EQ(EncodeFlushRecord(**after_idle), EncodeFlushRecord(**capped));
}

TEST(FlushRecord, RecordsThatDoNotReadAreErrorsNotGuesses) {
  EXPECT_EQ(DecodeFlushRecord("{").status().code(), Code::kInternal);
  EXPECT_EQ(DecodeFlushRecord(R"({"format": "powercontext.last_flush.v9"})").status().code(),
            Code::kInternal);
  EXPECT_EQ(DecodeFlushRecord(R"({"format": "powercontext.last_flush.v1", "at_ms": "soon"})")
                .status()
                .code(),
            Code::kInternal);
  FlushRecord r;
  r.at_ms = 5;
  r.actor = "ci";
  r.outcome.processed = true;
  r.outcome.candidates = {"cand_1"};
  r.outcome.rejected = {{"{\"op\": 1}", "unknown op"}};
  auto back = DecodeFlushRecord(EncodeFlushRecord(r));
  PC_ASSERT_OK(back);
  EXPECT_EQ(EncodeFlushRecord(*back), EncodeFlushRecord(r));
  EXPECT_FALSE(back->outcome.memory.has_value());
  // Bytes that are not UTF-8 are replaced, not thrown over inside the flush's transaction.
  r.outcome.rejected = {{"\"\xff\"", "target \"E\xc3\" is not an entry shown"}};
  std::string encoded;
  EXPECT_NO_THROW(encoded = EncodeFlushRecord(r));
  auto replaced = DecodeFlushRecord(encoded);
  PC_ASSERT_OK(replaced);
  EXPECT_EQ(replaced->outcome.rejected[0].reason, "target \"E\xef\xbf\xbd\" is not an entry shown");
}

// A chat endpoint that never answers in time costs the timeout once, retries included (a hung
// endpoint with a 5 s timeout used to answer after 16.5 s, calling itself "unreachable").
TEST_F(FlushTest, AHangingChatEndpointCostsItsTimeoutOnce) {
  Add("a record");
  fake.ScriptChat({{R"({"operations": []})", 200, 3000}, {R"({"operations": []})", 200, 3000}});
  const auto t0 = std::chrono::steady_clock::now();
  auto out = flush.Flush(scope);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kProviderUnavailable);
  EXPECT_NE(out.status().message().find("timed out after 1 s"), std::string::npos)
      << out.status().message();
  EXPECT_LT(seconds, 2.5) << "the 1 s timeout bounds the whole call";
  EXPECT_TRUE(*flush.HasPending(scope));
}

TEST_F(FlushTest, UnusableAnswersAndProviderFailuresCommitNothing) {
  Remember("An entry");
  Add("a record");
  const int64_t head = Head();
  auto expect_untouched = [&](Code code) {
    auto out = flush.Flush(scope);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), code) << out.status().ToString();
    EXPECT_NE(out.status().message().find("cursor stays at 0"), std::string::npos);
    EXPECT_EQ(Head(), head);
    EXPECT_TRUE(*flush.HasPending(scope));
  };
  fake.ScriptChat({{R"({"operations": [{"op": "add", "kind": "fact", "text": "cut off)"}});
  expect_untouched(Code::kProviderError);  // truncated JSON
  fake.ScriptChat({{"I think nothing here is worth keeping."}});
  expect_untouched(Code::kProviderError);  // prose, no JSON
  fake.ScriptChat({{R"(Here it is: {"operations": []} and {"note": "x"})"}});
  expect_untouched(
      Code::kProviderError);  // prose around JSON: not cut from the first { to the last }
  fake.ScriptChat({{"```json\n{\"operations\": []}\n```\n```json\n{}\n```"}});
  expect_untouched(Code::kProviderError);  // two code fences
  fake.ScriptChat({{R"({"operations": [], "operations": [{"op": "add"}]})"}});
  expect_untouched(Code::kProviderError);  // a repeated key
  fake.ScriptChat({{std::string(100000, '[') + std::string(100000, ']')}});
  expect_untouched(Code::kProviderError);  // nesting that would overflow the stack
  fake.ScriptChat({{R"({"ops": []})"}});
  expect_untouched(Code::kProviderError);  // not the schema
  fake.ScriptChat({{"", 500}, {"", 500}});
  expect_untouched(Code::kProviderError);  // HTTP 500, retried once
  fake.ScriptChat({{"", 200, 0, R"({"choices": []})"}});
  expect_untouched(Code::kProviderError);  // malformed envelope
  fake.ScriptChat({{R"({"operations": []})", 200, 2500}, {R"({"operations": []})", 200, 2500}});
  expect_untouched(Code::kProviderUnavailable);  // slower than the 1 s timeout
  // The same window, once the model answers: nothing worth keeping still moves the cursor.
  fake.ScriptChat({{R"({"operations": []})"}});
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  EXPECT_TRUE(out->processed);
  EXPECT_EQ(out->current_cursor, 1);
  EXPECT_EQ(Head(), head);
  EXPECT_TRUE(out->changes.empty());
  ASSERT_TRUE(out->memory);
  EXPECT_EQ(out->memory->revision, head);
}

TEST_F(FlushTest, WindowsArchiveSourcesAndIdle) {
  auto idle = flush.Flush(scope);
  PC_ASSERT_OK(idle);
  EXPECT_FALSE(idle->processed);
  EXPECT_FALSE(idle->memory);  // no revision yet
  Add("kept for the record only", "archive");
  auto archived = flush.Flush(scope);
  PC_ASSERT_OK(archived);
  EXPECT_TRUE(archived->processed);
  EXPECT_EQ(archived->processed_source_count, 0);
  EXPECT_EQ(archived->current_cursor, 1);
  EXPECT_EQ(fake.chat_requests(), 0);  // nothing for the model

  FlushOptions two;
  two.source_window_limit = 2;
  FlushService small(*f.store, chat.get(), nullptr, two);
  for (int i = 0; i < 5; ++i) Add("record " + std::to_string(i), i == 1 ? "archive" : "");
  std::vector<int64_t> cursors;
  while (true) {
    auto out = small.Flush(scope);
    PC_ASSERT_OK(out);
    if (!out->processed) break;
    cursors.push_back(out->current_cursor);
    EXPECT_EQ(out->high_watermark, 6);
  }
  EXPECT_EQ(cursors, (std::vector<int64_t>{3, 5, 6}));
  EXPECT_EQ(json::parse(fake.chat_bodies()[0])["messages"][1]["content"].get<std::string>().find(
                "record 1"),
            std::string::npos);  // the archive source of the first window was not shown
}

TEST_F(FlushTest, NoProviderUnknownScopeAndConcurrentFlushes) {
  FlushService none(*f.store, nullptr, nullptr);
  Add("a record");
  EXPECT_EQ(none.Flush(scope).status().code(), Code::kCapabilityUnavailable);
  EXPECT_EQ(none.Flush("scp_01JDZZZZZZZZZZZZZZZZZZZZZZ").status().code(),
            Code::kCapabilityUnavailable);
  EXPECT_EQ(flush.Flush("").status().code(), Code::kInvalidArgument);
  // Two flushes at once: one window, processed once.
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Only once.", "evidence": ["S1"]}]})",
        200, 300}});
  Result<FlushOutcome> a = Status(Code::kInternal, "not run"),
                       b = Status(Code::kInternal, "not run");
  // Two flushes at once, one naming the scope as `x`, the other as `y`.
  auto flush_together = [&](const std::string& x, const std::string& y) {
    std::thread t1([&] { a = flush.Flush(x); });
    std::thread t2([&] { b = flush.Flush(y); });
    t1.join();
    t2.join();
  };
  flush_together(scope, scope);
  PC_ASSERT_OK(a);
  PC_ASSERT_OK(b);
  EXPECT_EQ(a->processed + b->processed, 1);
  EXPECT_EQ(Entries().size(), 1u);
  EXPECT_EQ(fake.chat_requests(), 1);
  // The same, one naming the scope's server id and one its key: still one model call (the lock
  // used to be taken on the name as given, so both asked the model for the same window).
  Add("another record");
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Once more.", "evidence": ["S1"]}]})",
        200, 300}});
  const std::string key = f.memory->GetScope(scope)->key;
  ASSERT_NE(key, scope);
  flush_together(scope, key);
  PC_ASSERT_OK(a);
  PC_ASSERT_OK(b);
  EXPECT_EQ(a->processed + b->processed, 1);
  EXPECT_EQ(fake.chat_requests(), 2);
  // Random scope names (idle at 0 each: a scope nobody wrote to) leave nothing behind: the lock
  // map used to keep a mutex for every string ever named, growing the server forever.
  for (int i = 0; i < 2000; ++i) {
    auto idle = flush.Flush("scope-that-does-not-exist-" + std::to_string(i));
    PC_ASSERT_OK(idle);
    EXPECT_FALSE(idle->processed);
    EXPECT_EQ(idle->current_cursor, 0);
  }
  EXPECT_FALSE(f.memory->GetScopeByKey("scope-that-does-not-exist-0").ok())
      << "a flush created a scope";
  EXPECT_EQ(flush.locked_scopes(), 0u);
}

// A flush naming a key that names no scope yet takes its turn by that name; when the scope is
// made before its window is read, it must take the scope id's turn instead, or a flush naming the
// id runs beside it and the model is asked for the same window twice.
TEST_F(FlushTest, AScopeMadeDuringTheLookupIsStillFlushedOnce) {
  const std::string key = "made-while-flushing";
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Only once.", "evidence": ["S1"]}]})",
        200, 300},
       {R"({"operations": [{"op": "add", "kind": "fact", "text": "Twice!", "evidence": ["S1"]}]})",
        200, 300}});
  Result<FlushOutcome> by_id = Status(Code::kInternal, "not run");
  std::thread other;
  FlushService* one = nullptr;  // both flushes go through one service, as in a server
  testing::WriteBetweenReads hooked(*f.store, [&] {
    auto added = sources.Add(key, {{"work_log", "", "a record", "{}", std::nullopt}});
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    auto made = f.memory->GetScopeByKey(key);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    const std::string id = made->scope_id;
    other = std::thread([&, id] { by_id = one->Flush(id); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let it take its turn
  });
  FlushService hooked_flush(hooked, chat.get(), nullptr, {});
  one = &hooked_flush;
  Result<FlushOutcome> by_key = hooked_flush.Flush(key);
  if (other.joinable()) other.join();
  PC_ASSERT_OK(by_key);
  PC_ASSERT_OK(by_id);
  EXPECT_EQ(by_key->processed + by_id->processed, 1);
  EXPECT_EQ(fake.chat_requests(), 1) << "the window went to the model twice";
}

// The model has answered and the commit fails half-way (here: the cursor write, after the
// revision's rows were written in the same transaction): nothing of it remains.
TEST_F(FlushTest, ACommitThatFailsAfterTheAnswerLeavesNothing) {
  Remember("An entry");
  Add("a record");
  const int64_t head = Head();
  PC_ASSERT_OK(
      f.ExecBehindTheStore("CREATE TRIGGER fail_cursor BEFORE INSERT ON cursors BEGIN SELECT "
                           "RAISE(ABORT, 'disk on fire'); END;",
                           "CREATE FUNCTION fail_cursor() RETURNS trigger LANGUAGE plpgsql AS $$ "
                           "BEGIN RAISE EXCEPTION 'disk on fire'; END $$;"
                           " CREATE TRIGGER fail_cursor BEFORE INSERT ON cursors FOR EACH ROW "
                           "EXECUTE FUNCTION fail_cursor();"));
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "New fact.", "evidence": ["S1"]},
                                        {"op": "revise", "target": "E1", "text": "An entry, revised.", "evidence": ["S1"]}]})"}});
  auto failed = flush.Flush(scope);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("disk on fire"), std::string::npos);
  EXPECT_EQ(Head(), head);
  ASSERT_EQ(Entries().size(), 1u);
  EXPECT_EQ(Entries()[0].version.text, "An entry");
  EXPECT_TRUE(*flush.HasPending(scope));
  PC_ASSERT_OK(
      f.ExecBehindTheStore("DROP TRIGGER fail_cursor;", "DROP TRIGGER fail_cursor ON cursors;"));
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "New fact.", "evidence": ["S1"]}]})"}});
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  EXPECT_EQ(out->previous_cursor, 0);
  EXPECT_EQ(out->memory->revision, head + 1);
}

TEST_F(FlushTest, EndpointWithoutJsonSchemaGetsPlainJson) {
  fake.set_refuse_json_schema(true);
  Add("a record");
  fake.ScriptChat(
      {{R"({"operations": [{"op": "add", "kind": "fact", "text": "Plain JSON works.", "evidence": ["S1"]}]})"}});
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  ASSERT_EQ(out->changes.size(), 1u);
  auto bodies = fake.chat_bodies();
  EXPECT_FALSE(json::parse(bodies.back()).contains("response_format"));
}

TEST_F(FlushTest, LargeMemoriesShowTheMostRelevantEntries) {
  for (int i = 0; i < 60; ++i)
    Remember("Unrelated decision number " + std::to_string(i) + " about deployments");
  Remember("The billing module rounds amounts half-even.");
  Add("billing rounding changed to half-up for invoices");
  auto out = flush.Flush(scope);
  PC_ASSERT_OK(out);
  json input = LastInput();
  EXPECT_LE(input["entries"].size(), kMaxPromptEntries);
  EXPECT_EQ(input["entries"][0]["text"], "The billing module rounds amounts half-even.");
}

TEST_F(FlushTest, CommandProvider) {
  Add("a record");
  CommandExtractorOptions ok;
  // Reads the request (checks it is the documented shape), answers one add.
  ok.command =
      "python3 -c 'import json,sys; r=json.load(sys.stdin); assert "
      "r[\"input\"][\"sources\"][0][\"id\"]==\"S1\"; "
      "print(json.dumps({\"operations\":[{\"op\":\"add\",\"kind\":\"fact\",\"text\":\"From a "
      "command.\",\"evidence\":[\"S1\"]}]}))'";
  CommandExtractor command(ok);
  FlushService with_command(*f.store, &command, nullptr);
  CommandExtractorOptions failing;
  failing.command = "cat >/dev/null; echo 'model crashed' >&2; exit 3";
  CommandExtractor fails(failing);
  auto failed = FlushService(*f.store, &fails, nullptr).Flush(scope);
  EXPECT_EQ(failed.status().code(), Code::kProviderError);
  EXPECT_NE(failed.status().message().find("model crashed"), std::string::npos);
  CommandExtractorOptions slow;
  slow.command = "sleep 5";
  slow.timeout_seconds = 1;
  CommandExtractor sleeps(slow);
  EXPECT_EQ(FlushService(*f.store, &sleeps, nullptr).Flush(scope).status().code(),
            Code::kProviderUnavailable);
  auto out = with_command.Flush(scope);
  PC_ASSERT_OK(out);
  ASSERT_EQ(out->changes.size(), 1u);
  EXPECT_EQ(out->changes[0].version.text, "From a command.");
}

}  // namespace
}  // namespace pc
