#include "client/cpp/informerctl/age.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

TEST(HumanDurationTest, SecondsUpToTwoMinutes) {
  EXPECT_EQ(HumanDuration(absl::Seconds(0)), "0s");
  EXPECT_EQ(HumanDuration(absl::Seconds(5)), "5s");
  EXPECT_EQ(HumanDuration(absl::Milliseconds(5999)), "5s");
  EXPECT_EQ(HumanDuration(absl::Seconds(119)), "119s");
}

TEST(HumanDurationTest, ClockSkewOfUpToASecondIsNow) {
  EXPECT_EQ(HumanDuration(absl::Milliseconds(-1999)), "0s");
  EXPECT_EQ(HumanDuration(absl::Seconds(-2)), "<invalid>");
}

TEST(HumanDurationTest, MinutesWithSecondsBelowTen) {
  EXPECT_EQ(HumanDuration(absl::Seconds(120)), "2m");
  EXPECT_EQ(HumanDuration(absl::Seconds(182)), "3m2s");
  EXPECT_EQ(HumanDuration(absl::Seconds(599)), "9m59s");
  EXPECT_EQ(HumanDuration(absl::Minutes(10) + absl::Seconds(30)), "10m");
  EXPECT_EQ(HumanDuration(absl::Minutes(179)), "179m");
}

TEST(HumanDurationTest, HoursWithMinutesBelowEight) {
  EXPECT_EQ(HumanDuration(absl::Hours(3)), "3h");
  EXPECT_EQ(HumanDuration(absl::Hours(5) + absl::Minutes(30)), "5h30m");
  EXPECT_EQ(HumanDuration(absl::Hours(8) + absl::Minutes(30)), "8h");
  EXPECT_EQ(HumanDuration(absl::Hours(47)), "47h");
}

TEST(HumanDurationTest, DaysWithHoursBelowEightDays) {
  EXPECT_EQ(HumanDuration(absl::Hours(48)), "2d");
  EXPECT_EQ(HumanDuration(absl::Hours(51)), "2d3h");
  EXPECT_EQ(HumanDuration(absl::Hours(8 * 24 + 5)), "8d");
  EXPECT_EQ(HumanDuration(absl::Hours(729 * 24)), "729d");
}

TEST(HumanDurationTest, YearsWithDaysBelowEightYears) {
  EXPECT_EQ(HumanDuration(absl::Hours(730 * 24)), "2y");
  EXPECT_EQ(HumanDuration(absl::Hours(750 * 24)), "2y20d");
  EXPECT_EQ(HumanDuration(absl::Hours(9 * 365 * 24 + 100 * 24)), "9y");
}

TEST(AgeSinceTest, ParsesRfc3339) {
  absl::Time now;
  std::string error;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, "2026-01-02T10:03:02Z", &now,
                              &error));
  EXPECT_EQ(AgeSince("2026-01-02T10:00:00Z", now), "3m2s");
  EXPECT_EQ(AgeSince("2025-12-31T07:00:00Z", now), "2d3h");
  EXPECT_EQ(AgeSince("", now), "<unknown>");
  EXPECT_EQ(AgeSince("yesterday", now), "<unknown>");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
