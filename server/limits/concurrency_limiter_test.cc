#include "server/limits/concurrency_limiter.h"

#include <vector>

#include <gtest/gtest.h>

namespace informerd::limits {
namespace {

using Permit = ConcurrencyLimiter::Permit;

TEST(ConcurrencyLimiterTest, LimitsEachIdentityWithoutAffectingOthers) {
  ConcurrencyLimiter limiter("concurrent Watch streams", 2, 10);
  std::vector<Permit> held;
  held.push_back(*limiter.Acquire("alice"));
  held.push_back(*limiter.Acquire("alice"));
  bool per_identity = false;
  absl::StatusOr<Permit> third = limiter.Acquire("alice", &per_identity);
  ASSERT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(per_identity);
  EXPECT_EQ(third.status().message(),
            "too many concurrent Watch streams for \"alice\": the limit is 2 per caller; close "
            "some and retry");
  EXPECT_TRUE(limiter.Acquire("bob").ok());
}

TEST(ConcurrencyLimiterTest, LimitsTheTotal) {
  ConcurrencyLimiter limiter("in-flight Lists", 5, 2);
  Permit a = *limiter.Acquire("a");
  Permit b = *limiter.Acquire("b");
  bool per_identity = true;
  absl::StatusOr<Permit> c = limiter.Acquire("c", &per_identity);
  ASSERT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(per_identity);
  EXPECT_NE(c.status().message().find("the limit is 2"), std::string_view::npos);
}

TEST(ConcurrencyLimiterTest, DestroyingAPermitFreesItsSlot) {
  ConcurrencyLimiter limiter("calls", 1, 1);
  {
    Permit permit = *limiter.Acquire("a");
    EXPECT_EQ(limiter.in_use(), 1u);
    EXPECT_FALSE(limiter.Acquire("a").ok());
    Permit moved = std::move(permit);
    EXPECT_EQ(limiter.in_use(), 1u);
  }
  EXPECT_EQ(limiter.in_use(), 0u);
  EXPECT_TRUE(limiter.Acquire("a").ok());
  EXPECT_EQ(limiter.in_use(), 0u);
}

TEST(ConcurrencyLimiterTest, MoveAssignmentReleasesTheOverwrittenSlot) {
  ConcurrencyLimiter limiter("calls", 2, 2);
  Permit first = *limiter.Acquire("a");
  Permit second = *limiter.Acquire("b");
  first = std::move(second);
  EXPECT_EQ(limiter.in_use(), 1u);
  EXPECT_TRUE(limiter.Acquire("a").ok());
}

}  // namespace
}  // namespace informerd::limits

namespace informerd::limits {
namespace {

TEST(ConcurrencyLimiterTest, WeightsCountAgainstBothLimitsAndTheFirstIsAlwaysGranted) {
  ConcurrencyLimiter bytes("bytes of initial events held", 100, 250);
  {
    // Larger than the per-caller budget, but the caller's first.
    absl::StatusOr<ConcurrencyLimiter::Permit> big = bytes.Acquire("alice", nullptr, 150);
    ASSERT_TRUE(big.ok());
    bool per_identity = false;
    EXPECT_EQ(bytes.Acquire("alice", &per_identity, 1).status().code(),
              absl::StatusCode::kResourceExhausted);
    EXPECT_TRUE(per_identity);
    absl::StatusOr<ConcurrencyLimiter::Permit> bobs = bytes.Acquire("bob", nullptr, 90);
    ASSERT_TRUE(bobs.ok());
    EXPECT_EQ(bytes.in_use(), 240u);
    // Carol's first permit, but the total is spent.
    EXPECT_EQ(bytes.Acquire("carol", &per_identity, 20).status().code(),
              absl::StatusCode::kResourceExhausted);
    EXPECT_FALSE(per_identity);
  }
  EXPECT_EQ(bytes.in_use(), 0u);
  EXPECT_TRUE(bytes.Acquire("carol", nullptr, 20).ok());
}

TEST(ConcurrencyLimiterTest, AWeightOfZeroHoldsNothing) {
  ConcurrencyLimiter bytes("bytes of initial events held", 100, 250);
  absl::StatusOr<ConcurrencyLimiter::Permit> empty = bytes.Acquire("alice", nullptr, 0);
  ASSERT_TRUE(empty.ok());
  {
    absl::StatusOr<ConcurrencyLimiter::Permit> some = bytes.Acquire("alice", nullptr, 10);
    ASSERT_TRUE(some.ok());
  }
  // Released after alice's other permit: nothing to release, nothing broken.
  *empty = ConcurrencyLimiter::Permit();
  EXPECT_EQ(bytes.in_use(), 0u);
}

}  // namespace
}  // namespace informerd::limits
