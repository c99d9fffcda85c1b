// The audit log's retention (issue 27, N7): rows past their age go, refused requests' rows also
// past their cap, oldest first, in small batches, on both stores; the newest row always stays.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "service/admin/audit_service.h"
#include "service/core/actor.h"
#include "test_util.h"

namespace pc {
namespace {

using testing::Fixture;

constexpr int64_t kDay = 86400000;
constexpr int64_t kNow = 1790000000000;  // the clock of these tests (2026-09-21)

Status Append(Store& store, int64_t at_ms, const std::string& result,
              const std::string& operation) {
  return store.Write(RequestActor(), [&](WriteTxn& txn) {
    return txn.AppendAudit(AuditRecord{0, at_ms, "someone", operation, "", "{}", result, ""});
  });
}

std::vector<AuditRecord> All(AuditService& audit) {
  AuditListRequest r;
  r.page.limit = 1000;
  auto page = audit.List(r);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  return page.ok() ? page->items : std::vector<AuditRecord>{};
}

int Count(const std::vector<AuditRecord>& rows, const std::string& operation) {
  return static_cast<int>(std::count_if(
      rows.begin(), rows.end(), [&](const AuditRecord& r) { return r.operation == operation; }));
}

TEST(AuditRetention, OldRowsAndRefusedRowsPastTheirCapGoOldestFirst) {
  Fixture f;
  AuditService audit(*f.store);
  for (int i = 0; i < 5; ++i)
    PC_ASSERT_OK(Append(*f.store, kNow - 120 * kDay + i, "ok", "old_write"));
  for (int i = 0; i < 7; ++i)
    PC_ASSERT_OK(Append(*f.store, kNow - 30 * kDay + i, "denied", "old_denial"));
  PC_ASSERT_OK(Append(*f.store, kNow - 30 * kDay + 9, "dropped", "old_denial"));
  for (int i = 0; i < 6; ++i)
    PC_ASSERT_OK(Append(*f.store, kNow - 10 * kDay + i, "ok", "recent_write"));
  for (int i = 0; i < 10; ++i)
    PC_ASSERT_OK(Append(*f.store, kNow - kDay + i, "denied", "recent_denial"));
  PC_ASSERT_OK(Append(*f.store, kNow - 40 * kDay, "refused",
                      "gate_refusal"));  // a write gate's: kept 90 days

  AuditRetention retention;  // 90 days; refused requests 7 days, at most 4 of them
  retention.denied_max_rows = 4;
  retention.batch_rows = 3;  // many small transactions
  auto pruned = audit.Prune(retention, kNow);
  PC_ASSERT_OK(pruned);
  EXPECT_EQ(*pruned, 5 + 8 + 6);
  const auto rows = All(audit);
  EXPECT_EQ(Count(rows, "old_write"), 0);
  EXPECT_EQ(Count(rows, "old_denial"), 0);
  EXPECT_EQ(Count(rows, "recent_write"), 6);
  EXPECT_EQ(Count(rows, "gate_refusal"), 1);
  ASSERT_EQ(Count(rows, "recent_denial"), 4);
  for (const AuditRecord& r : rows)
    if (r.operation == "recent_denial") {
      EXPECT_GE(r.at_ms, kNow - kDay + 6) << "an older denial was kept";
    }

  auto again = audit.Prune(retention, kNow);
  PC_ASSERT_OK(again);
  EXPECT_EQ(*again, 0) << "a second pass finds nothing";
  // Everything off: nothing is deleted whatever its age.
  auto off = audit.Prune(AuditRetention{0, 0, 0, 1000}, kNow + 1000 * kDay);
  PC_ASSERT_OK(off);
  EXPECT_EQ(*off, 0);
  EXPECT_EQ(All(audit).size(), rows.size());
}

// When every row is past its age, the newest stays: seq keeps growing (cursors stay valid).
TEST(AuditRetention, TheNewestRowStays) {
  Fixture f;
  AuditService audit(*f.store);
  for (int i = 0; i < 4; ++i)
    PC_ASSERT_OK(Append(*f.store, kNow - 200 * kDay + i, "ok", "old_write"));
  const int64_t newest = All(audit).front().seq;
  auto pruned = audit.Prune(AuditRetention{}, kNow);
  PC_ASSERT_OK(pruned);
  EXPECT_EQ(*pruned, 3);
  auto rows = All(audit);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].seq, newest);
  PC_ASSERT_OK(Append(*f.store, kNow, "ok", "next_write"));
  EXPECT_GT(All(audit).front().seq, newest);
}

TEST(AuditRetention, BadValuesAreRefusedAndAStopIsHonoured) {
  Fixture f;
  AuditService audit(*f.store);
  auto bad = audit.Prune(AuditRetention{-1, 7, 10, 1000}, kNow);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  for (int i = 0; i < 4; ++i)
    PC_ASSERT_OK(Append(*f.store, kNow - 200 * kDay + i, "ok", "old_write"));
  std::atomic<bool> stop{true};
  auto stopped = audit.Prune(AuditRetention{}, kNow, &stop);
  PC_ASSERT_OK(stopped);
  EXPECT_EQ(*stopped, 0);
  EXPECT_EQ(All(audit).size(), 4u);
}

}  // namespace
}  // namespace pc
