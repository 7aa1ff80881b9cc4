#include "server/tier/version_bound.h"

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd::tier {
namespace {

using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1000000);

TEST(VersionBoundTest, RefusesWhatIsNotAnEtcdRevision) {
  for (const char* version : {"", "x", "0", "-1", "9223372036854775808",
                              "18446744073709551615", "18446744073709551616"}) {
    VersionBound bound;
    absl::Status status = bound.Check(version, kStart, "the upstream's bookmark");
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << version;
    EXPECT_THAT(status.message(), HasSubstr("the upstream's bookmark")) << version;
    EXPECT_THAT(status.message(), HasSubstr("is not an etcd revision")) << version;
  }
  VersionBound bound;
  EXPECT_TRUE(bound.Check("9223372036854775807", kStart, "v").ok());
}

TEST(VersionBoundTest, TheFirstVersionIsTakenAndOlderOnesAlways) {
  VersionBound bound;
  ASSERT_TRUE(bound.Check("5000000000", kStart, "v").ok());
  EXPECT_TRUE(bound.Check("7", kStart, "v").ok());
  EXPECT_EQ(bound.highest(), 5000000000u);
}

TEST(VersionBoundTest, AnAdvanceBeyondWhatTheClusterCanWriteIsRefused) {
  VersionBound bound({.revisions_per_second = 1000, .burst = 100});
  ASSERT_TRUE(bound.Check("1000", kStart, "v").ok());
  // The burst at once.
  EXPECT_TRUE(bound.Check("1100", kStart, "v").ok());
  absl::Status status = bound.Check("1101", kStart, "the upstream's bookmark");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("the upstream's bookmark 1101 is 1 ahead of 1100"));
  // Then the rate.
  EXPECT_TRUE(bound.Check("1150", kStart + absl::Milliseconds(50), "v").ok());
  EXPECT_FALSE(bound.Check("1300", kStart + absl::Milliseconds(100), "v").ok());
  EXPECT_EQ(bound.highest(), 1150u);
}

TEST(VersionBoundTest, ALongBreakAllowsAsLongAGap) {
  VersionBound bound({.revisions_per_second = 1000, .burst = 100});
  ASSERT_TRUE(bound.Check("1000", kStart, "v").ok());
  // An hour away: the bucket holds 100, the break 3,600,000.
  const absl::Time later = kStart + absl::Hours(1);
  EXPECT_FALSE(bound.Check("3601001", later, "v").ok());
  EXPECT_TRUE(bound.Check("3601000", later, "v").ok());
  // That emptied the bucket.
  EXPECT_FALSE(bound.Check("3601001", later, "v").ok());
}

TEST(VersionBoundTest, ALiarGainsAtMostTheBurstAndTwiceTheRate) {
  // A root that pushes as far as it may at every message, for ten seconds.
  VersionBound bound({.revisions_per_second = 1000, .burst = 100});
  ASSERT_TRUE(bound.Check("1", kStart, "v").ok());
  uint64_t version = 1;
  for (int ms = 0; ms <= 10000; ++ms) {
    const absl::Time now = kStart + absl::Milliseconds(ms);
    // The largest accepted advance at this moment, by bisection.
    uint64_t low = 0, high = 1u << 30;
    while (low < high) {
      const uint64_t mid = (low + high + 1) / 2;
      VersionBound probe = bound;
      if (probe.Check(std::to_string(version + mid), now, "v").ok()) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    if (low > 0) {
      ASSERT_TRUE(bound.Check(std::to_string(version + low), now, "v").ok());
      version += low;
    }
  }
  EXPECT_LE(version - 1, 100u + 2 * 1000 * 10 + 2);
}

TEST(VersionBoundTest, AWallClockStepBackAllowsNothingMore) {
  VersionBound bound({.revisions_per_second = 1000, .burst = 0});
  ASSERT_TRUE(bound.Check("1000", kStart, "v").ok());
  EXPECT_FALSE(bound.Check("1001", kStart - absl::Hours(1), "v").ok());
}

}  // namespace
}  // namespace informerd::tier
