// ScopeRef (service/core/scope_ref.h): a request's scope, checked once and looked up once; a
// lookup is kept only when it came from a committed snapshot.
#include "service/core/scope_ref.h"

#include <gtest/gtest.h>

#include "service/core/actor.h"
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

}  // namespace
}  // namespace pc
