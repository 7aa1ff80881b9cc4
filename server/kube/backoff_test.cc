#include "server/kube/backoff.h"

#include "gtest/gtest.h"

namespace informerd::kube {
namespace {

class BackoffTest : public ::testing::Test {
 protected:
  Backoff MakeBackoff() {
    return Backoff(BackoffPolicy{}, [this] { return now_; },
                   [this] { return random_; });
  }

  absl::Time now_ = absl::FromUnixSeconds(1000);
  double random_ = 0.0;
};

TEST_F(BackoffTest, DoublesUpToTheCap) {
  Backoff backoff = MakeBackoff();
  const int expected_ms[] = {800,   1600,  3200,  6400,  12800,
                             25600, 30000, 30000, 30000};
  for (int ms : expected_ms) {
    EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(ms));
    now_ += absl::Seconds(1);
  }
}

TEST_F(BackoffTest, JitterAddsUpToTheBase) {
  random_ = 0.5;
  Backoff backoff = MakeBackoff();
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(1200));
  random_ = 0.999;
  EXPECT_EQ(backoff.NextDelay(), absl::Microseconds(3198400));
}

TEST_F(BackoffTest, ResetsAfterTwoHealthyMinutes) {
  Backoff backoff = MakeBackoff();
  backoff.NextDelay();
  backoff.NextDelay();
  now_ += absl::Minutes(2);  // exactly the threshold: not yet reset
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(3200));
  now_ += absl::Minutes(2) + absl::Milliseconds(1);
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(800));
}

TEST(BackoffRealSourcesTest, StaysWithinTheJitterBounds) {
  Backoff backoff(BackoffPolicy{});
  const absl::Duration first = backoff.NextDelay();
  EXPECT_GE(first, absl::Milliseconds(800));
  EXPECT_LT(first, absl::Milliseconds(1600));
}

}  // namespace
}  // namespace informerd::kube
