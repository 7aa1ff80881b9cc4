#include "server/limits/descriptors.h"

#include "gtest/gtest.h"

namespace informerd::limits {
namespace {

TEST(AdminConnectionBudgetTest, AQuarterOfTheLimitAtMost) {
  EXPECT_EQ(AdminConnectionBudget(1024, 1024), 256u);
  EXPECT_EQ(AdminConnectionBudget(1 << 20, 1024), 1024u);
  EXPECT_EQ(AdminConnectionBudget(4096, 100), 100u);
}

TEST(AdminConnectionBudgetTest, AFewForProbesEvenUnderATinyLimit) {
  EXPECT_EQ(AdminConnectionBudget(32, 1024), 16u);
  EXPECT_EQ(AdminConnectionBudget(0, 1024), 16u);
}

TEST(RaiseDescriptorLimitTest, TheSoftLimitBecomesTheHardOne) {
  const DescriptorLimit before = CurrentDescriptorLimit();
  ASSERT_GT(before.hard, 0u);
  absl::StatusOr<DescriptorLimit> after = RaiseDescriptorLimit();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->soft, before.hard);
  EXPECT_EQ(after->hard, before.hard);
}

}  // namespace
}  // namespace informerd::limits
