#include "retry/backoff.h"

#include "gtest/gtest.h"

namespace informerd::retry {
namespace {

class BackoffTest : public ::testing::Test {
 protected:
  Backoff MakeBackoff(BackoffPolicy policy) {
    return Backoff(policy, [this] { return now_; }, [this] { return random_; });
  }

  // The Reflector's policy toward the API server (kube::ReflectorOptions).
  static BackoffPolicy Upstream() {
    BackoffPolicy policy;
    policy.initial = absl::Milliseconds(1600);
    policy.cap = absl::Seconds(60);
    policy.reset_after = absl::Minutes(2);
    return policy;
  }

  absl::Time now_ = absl::FromUnixSeconds(1000);
  double random_ = 0.0;
};

TEST_F(BackoffTest, GrowsByTheFactorUpToTheCap) {
  Backoff backoff = MakeBackoff(Upstream());
  const int expected_ms[] = {1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000};
  for (int ms : expected_ms) {
    EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(ms));
    now_ += absl::Seconds(1);
  }
}

TEST_F(BackoffTest, JitterShortensByAtMostItsFraction) {
  random_ = 0.5;
  Backoff backoff = MakeBackoff(Upstream());
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(1200));
  random_ = 0.999;
  // 3200 ms less 0.5 * 0.999 of it.
  EXPECT_EQ(backoff.NextDelay(), absl::Microseconds(1601600));
}

TEST_F(BackoffTest, ResetsAfterTheHealthyPeriod) {
  Backoff backoff = MakeBackoff(Upstream());
  backoff.NextDelay();
  backoff.NextDelay();
  now_ += absl::Minutes(2);  // exactly the threshold: not yet reset
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(6400));
  now_ += absl::Minutes(2) + absl::Milliseconds(1);
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(1600));
}

TEST_F(BackoffTest, ResetStartsOverAndTimeAloneDoesNotWithoutResetAfter) {
  Backoff backoff = MakeBackoff(BackoffPolicy{});  // the clients': 200 ms to 1 s
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(200));
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(400));
  now_ += absl::Hours(1);
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(800));
  EXPECT_EQ(backoff.NextDelay(), absl::Seconds(1));
  backoff.Reset();
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(200));
}

TEST_F(BackoffTest, AnInitialAboveTheCapIsCapped) {
  BackoffPolicy policy;
  policy.initial = absl::Seconds(5);
  policy.cap = absl::Seconds(1);
  Backoff backoff = MakeBackoff(policy);
  EXPECT_EQ(backoff.NextDelay(), absl::Seconds(1));
}

TEST(BackoffRealSourcesTest, StaysWithinTheJitterBounds) {
  Backoff backoff(BackoffPolicy{});
  for (absl::Duration ceiling : {absl::Milliseconds(200), absl::Milliseconds(400)}) {
    const absl::Duration delay = backoff.NextDelay();
    EXPECT_GT(delay, ceiling / 2);
    EXPECT_LE(delay, ceiling);
  }
}

}  // namespace
}  // namespace informerd::retry
