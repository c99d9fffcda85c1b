// The model's names for its enums round-trip, and a parse refuses any other text: the stores'
// columns, the wire and the prompts all read and write them through these functions.
#include <gtest/gtest.h>

#include "model/types.h"

namespace pc {
namespace {

TEST(ModelNames, ChangeOpsRoundTrip) {
  for (ChangeOp op : {ChangeOp::kAdd, ChangeOp::kRevise, ChangeOp::kRetire})
    EXPECT_EQ(ParseChangeOp(ChangeOpName(op)), op);
  EXPECT_STREQ(ChangeOpName(ChangeOp::kRetire), "retire");
  EXPECT_EQ(ParseChangeOp("deactivate"), std::nullopt);
  EXPECT_EQ(ParseChangeOp("Add"), std::nullopt);
  EXPECT_EQ(ParseChangeOp(""), std::nullopt);
}

TEST(ModelNames, HandoffCitationKindsRoundTrip) {
  for (HandoffCitationKind k :
       {HandoffCitationKind::kSource, HandoffCitationKind::kArtifact, HandoffCitationKind::kMemory})
    EXPECT_EQ(ParseHandoffCitationKind(HandoffCitationKindName(k)), k);
  EXPECT_STREQ(HandoffCitationKindName(HandoffCitationKind::kSource), "source");
  EXPECT_EQ(ParseHandoffCitationKind("Source"), std::nullopt);
  EXPECT_EQ(ParseHandoffCitationKind(""), std::nullopt);
}

TEST(ModelNames, HandoffDispositionsRoundTrip) {
  for (HandoffDisposition d : {HandoffDisposition::kContinuable, HandoffDisposition::kBlocked,
                               HandoffDisposition::kComplete})
    EXPECT_EQ(ParseHandoffDisposition(HandoffDispositionName(d)), d);
  EXPECT_STREQ(HandoffDispositionName(HandoffDisposition::kBlocked), "blocked");
  EXPECT_EQ(ParseHandoffDisposition("done"), std::nullopt);
  EXPECT_EQ(ParseHandoffDisposition("complete "), std::nullopt);
}

TEST(ModelNames, SourceRefsRoundTripAndRefuseOtherText) {
  Source s;
  s.source_id = "a@b";
  s.position = 12;
  std::optional<SourceRefParts> parts = ParseSourceRef(SourceRef(s));
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->source_id, "a@b");
  EXPECT_EQ(parts->position, 12);
  for (const char* bad : {"source/@1", "source/x@0", "source/x@", "src/x@1", "source/x@1a"})
    EXPECT_FALSE(ParseSourceRef(bad).has_value()) << bad;
}

}  // namespace
}  // namespace pc
