#include "client/cpp/backoff.h"

#include "gtest/gtest.h"

namespace informerd {
namespace client {
namespace {

TEST(BackoffTest, DoublesWithJitterUpToMaxAndResets) {
  Backoff backoff(absl::Milliseconds(200), absl::Seconds(1));
  const absl::Duration expected_ceilings[] = {
      absl::Milliseconds(200), absl::Milliseconds(400), absl::Milliseconds(800),
      absl::Seconds(1), absl::Seconds(1)};
  for (absl::Duration ceiling : expected_ceilings) {
    absl::Duration delay = backoff.NextDelay();
    EXPECT_GE(delay, ceiling / 2);
    EXPECT_LE(delay, ceiling);
  }
  backoff.Reset();
  absl::Duration delay = backoff.NextDelay();
  EXPECT_GE(delay, absl::Milliseconds(100));
  EXPECT_LE(delay, absl::Milliseconds(200));
}

}  // namespace
}  // namespace client
}  // namespace informerd
