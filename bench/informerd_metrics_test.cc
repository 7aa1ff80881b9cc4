#include "bench/informerd_metrics.h"

#include <string>

#include <gtest/gtest.h>

namespace informerd::bench {
namespace {

std::string Histogram(double le_1ms, double le_10ms, double le_100ms, double inf) {
  return "# TYPE x histogram\n"
         "x_count " + std::to_string(inf) + "\n"
         "x_bucket{le=\"0.001\"} " + std::to_string(le_1ms) + "\n"
         "x_bucket{le=\"0.01\"} " + std::to_string(le_10ms) + "\n"
         "x_bucket{le=\"0.1\"} " + std::to_string(le_100ms) + "\n"
         "x_bucket{le=\"+Inf\"} " + std::to_string(inf) + "\n"
         "x_other_bucket{le=\"0.001\"} 1000\n";
}

TEST(HistogramQuantileBetweenTest, InterpolatesInsideTheBucketOfTheDelta) {
  // Before: 10 observations under 1 ms. Window: 100 more, 90 under 1 ms,
  // 10 in (1 ms, 10 ms]: the p99 is 9/10 of the way through that bucket.
  const std::string before = Histogram(10, 10, 10, 10);
  const std::string after = Histogram(100, 110, 110, 110);
  EXPECT_NEAR(HistogramQuantileBetween(before, after, "x", 0.99), 0.0091, 1e-9);
  EXPECT_NEAR(HistogramQuantileBetween(before, after, "x", 0.5), 0.001 * 50 / 90, 1e-9);
}

TEST(HistogramQuantileBetweenTest, BeyondTheLastBoundIsTheLastBound) {
  EXPECT_DOUBLE_EQ(HistogramQuantileBetween("", Histogram(0, 0, 0, 5), "x", 0.99), 0.1);
}

TEST(HistogramQuantileBetweenTest, NoObservationsOrNoHistogramIsMinusOne) {
  EXPECT_EQ(HistogramQuantileBetween(Histogram(1, 2, 3, 4), Histogram(1, 2, 3, 4), "x", 0.99), -1);
  EXPECT_EQ(HistogramQuantileBetween("", "y_bucket{le=\"1\"} 3\n", "x", 0.99), -1);
}

}  // namespace
}  // namespace informerd::bench
