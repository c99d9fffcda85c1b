// ScopeRef (service/core/scope_ref.h): a request's scope, checked once and looked up once; a
// lookup is kept only when it came from a committed snapshot.
#include "service/core/scope_ref.h"

#include <gtest/gtest.h>

#include "service/core/actor.h"
#include "service/core/validation.h"
#include "test_util.h"

namespace pc {
namespace {

std::optional<ScopeIds> FindIn(Store& store, const ScopeRef& ref) {
  std::optional<ScopeIds> out;
  EXPECT_TRUE(store
                  .Read([&](ReadTxn& txn) -> Status {
                    PC_ASSIGN_OR_RETURN(out, ref.Find(txn));
                    return Status::Ok();
                  })
                  .ok());
  return out;
}

std::string FieldOf(const Status& s) {
  for (const Detail& d : s.details())
    if (d.key == "field" && std::holds_alternative<std::string>(d.value))
      return std::get<std::string>(d.value);
  return "";
}

TEST(ScopeRefTest, TheNameIsCheckedOnceNamingItsField) {
  EXPECT_TRUE(ScopeRef::Parse("project:orders").ok());
  EXPECT_TRUE(ScopeRef::Parse("scp_0123").ok());
  EXPECT_TRUE(ScopeRef::Parse("scp_0123")->server_id());
  for (const std::string& bad :
       {std::string(), std::string("   "), std::string("\xff"), std::string(257, 'a')}) {
    Result<ScopeRef> ref = ScopeRef::Parse(bad, "handoff.scope_id");
    ASSERT_FALSE(ref.ok()) << bad;
    EXPECT_EQ(ref.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(FieldOf(ref.status()), "handoff.scope_id");
  }
}

TEST(ScopeRefTest, ALookupFromASnapshotIsKeptForTheRequest) {
  testing::Fixture f;
  const std::string id = f.NewScope("project:kept");
  const ScopeRef ref = ScopeRef::Parse("project:kept").value();
  std::optional<ScopeIds> first = FindIn(*f.store, ref);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->id, id);
  EXPECT_EQ(first->key, "project:kept");
  EXPECT_FALSE(first->memory_artifact_id.empty());
  // Renamed behind the store's back, which no request can do: a fresh lookup misses, the kept
  // one is not read again.
  const std::string rename = "UPDATE scopes SET key = 'project:renamed' WHERE key = 'project:kept'";
  PC_ASSERT_OK(f.ExecBehindTheStore(rename, rename));
  EXPECT_FALSE(FindIn(*f.store, ScopeRef::Parse("project:kept").value()));
  std::optional<ScopeIds> again = FindIn(*f.store, ref);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, id);
}

TEST(ScopeRefTest, ALookupInAWriteIsNotKeptWhenTheWriteRollsBack) {
  testing::Fixture f;
  const ScopeRef ref = ScopeRef::Parse("project:made-then-undone").value();
  Status undone = f.store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_RETURN_IF_ERROR(txn.CreateScope(ref.name()).status());
    PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> seen, ref.Find(txn));
    EXPECT_TRUE(seen) << "the write sees the scope it made";
    return Conflict("rolled back on purpose");
  });
  EXPECT_EQ(undone.code(), Code::kConflict);
  EXPECT_FALSE(FindIn(*f.store, ref)) << "the rolled-back scope must not be remembered";
  // And a write that uses the reference afterwards makes the scope for real.
  RememberRequest made;
  made.scope_id = ref.name();
  made.kind = "fact";
  made.text = "made for real";
  PC_ASSERT_OK(f.memory->Remember(made));
  EXPECT_TRUE(FindIn(*f.store, ref));
}

void ExpectSameArtifact(const Artifact& a, const Artifact& b, const std::string& when) {
  EXPECT_EQ(a.artifact_id, b.artifact_id) << when;
  EXPECT_EQ(a.scope_id, b.scope_id) << when;
  EXPECT_EQ(a.family, b.family) << when;
  EXPECT_EQ(a.head_revision, b.head_revision) << when;
  EXPECT_EQ(a.created_at_ms, b.created_at_ms) << when;
}

// A lookup in a transaction reads the scope's memory with it (one statement, not two): the memory
// is then the artifact as of that transaction, as FindArtifact reads it; a kept lookup reads the
// artifact again, never a kept head.
TEST(ScopeRefTest, TheMemoryFoundWithTheScopeIsAsOfItsTransaction) {
  testing::Fixture f;
  const std::string id = f.NewScope("project:memory-with-it");
  const ScopeRef ref = ScopeRef::Parse("project:memory-with-it").value();
  auto remember = [&](const std::string& text) {
    PC_ASSERT_OK(f.memory->Remember({"project:memory-with-it", "fact", text, "", "t"}));
  };
  remember("the first fact");
  auto expect_current = [&](const std::string& when) {
    PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(std::optional<Artifact> found, FindMemory(txn, ref));
      EXPECT_TRUE(found) << when;
      if (!found) return Status::Ok();
      PC_ASSIGN_OR_RETURN(std::optional<Artifact> read, txn.FindArtifact(found->artifact_id));
      EXPECT_TRUE(read) << when;
      if (read) ExpectSameArtifact(*found, *read, when);
      return Status::Ok();
    }));
  };
  expect_current("looked up with the scope");
  remember("the second fact");
  expect_current("the scope kept, the head moved since");
  expect_current("again");
  const ScopeRef fresh = ScopeRef::Parse("project:memory-with-it").value();
  int64_t head = 0;
  PC_ASSERT_OK(f.store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact locked, LoadMemoryForWrite(txn, fresh));
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> read, txn.FindArtifact(locked.artifact_id));
    EXPECT_TRUE(read);
    if (read) ExpectSameArtifact(locked, *read, "in a write");
    head = locked.head_revision;
    EXPECT_EQ(locked.scope_id, id);
    return Status::Ok();
  }));
  EXPECT_EQ(head, 2);
}

}  // namespace
}  // namespace pc
