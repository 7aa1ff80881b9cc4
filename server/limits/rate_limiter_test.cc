#include "server/limits/rate_limiter.h"

#include <gtest/gtest.h>

namespace informerd::limits {
namespace {

class FakeClock {
 public:
  absl::Time Now() const { return now_; }
  void Advance(absl::Duration d) { now_ += d; }

 private:
  absl::Time now_ = absl::UnixEpoch();
};

TEST(RateLimiter, BurstThenRefillPerIdentity) {
  FakeClock clock;
  RateLimiter limiter({.per_identity_per_second = 10, .per_identity_burst = 3,
                       .total_per_second = 1000, .total_burst = 1000},
                      [&clock] { return clock.Now(); });
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Admit("alice").ok());
  bool per_identity = false;
  absl::Status refused = limiter.Admit("alice", &per_identity);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(per_identity);
  EXPECT_NE(refused.message().find("alice"), absl::string_view::npos);
  // Another caller is not affected.
  EXPECT_TRUE(limiter.Admit("bob").ok());
  clock.Advance(absl::Milliseconds(100));  // One token back at 10/s.
  EXPECT_TRUE(limiter.Admit("alice").ok());
  EXPECT_FALSE(limiter.Admit("alice").ok());
}

TEST(RateLimiter, TotalLimitCapsEveryone) {
  FakeClock clock;
  RateLimiter limiter({.per_identity_per_second = 100, .per_identity_burst = 100,
                       .total_per_second = 1, .total_burst = 2},
                      [&clock] { return clock.Now(); });
  EXPECT_TRUE(limiter.Admit("a").ok());
  EXPECT_TRUE(limiter.Admit("b").ok());
  bool per_identity = true;
  EXPECT_EQ(limiter.Admit("c", &per_identity).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(per_identity);
}

TEST(RateLimiter, IdleIdentitiesAreForgotten) {
  FakeClock clock;
  RateLimiter limiter({}, [&clock] { return clock.Now(); });
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(limiter.Admit("id-" + std::to_string(i)).ok());
    if (i % 1000 == 999) clock.Advance(absl::Seconds(10));
  }
  EXPECT_LE(limiter.tracked_identities(), 10001u);
}

}  // namespace
}  // namespace informerd::limits
