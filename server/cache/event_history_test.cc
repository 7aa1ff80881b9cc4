#include "server/cache/event_history.h"

#include <gtest/gtest.h>

#include "server/cache/test_objects.h"

namespace informerd::cache {
namespace {

Event At(uint64_t version, absl::Time time) {
  Event event;
  event.object = MakeTestObject({.name = "o" + std::to_string(version), .resource_version = version});
  event.resource_version = version;
  event.resume_version = version;
  event.time = time;
  return event;
}

TEST(EventHistory, PositionAfterFindsTheNextEvent) {
  absl::Time now = absl::UnixEpoch();
  EventHistory history({}, 10);
  history.Append(At(12, now), now);
  history.Append(At(15, now), now);
  EXPECT_EQ(history.PositionAfter(10).value(), 0u);
  EXPECT_EQ(history.PositionAfter(11).value(), 0u);
  EXPECT_EQ(history.PositionAfter(12).value(), 1u);
  EXPECT_EQ(history.PositionAfter(15).value(), 2u);
  EXPECT_EQ(history.PositionAfter(99).value(), 2u);
  EXPECT_FALSE(history.PositionAfter(9).has_value());
  EXPECT_EQ(history.At(1)->resource_version, 15u);
  EXPECT_EQ(history.At(2), nullptr);
}

TEST(EventHistory, EvictsByCountAndWindowButKeepsMinimum) {
  absl::Time start = absl::UnixEpoch();
  HistoryLimits limits{.window = absl::Seconds(10), .min_events = 2, .max_events = 4};
  EventHistory history(limits, 0);
  for (uint64_t v = 1; v <= 6; ++v) history.Append(At(v, start), start);
  EXPECT_EQ(history.size(), 4u);
  EXPECT_EQ(history.oldest_version(), 2u);
  EXPECT_EQ(history.first_position(), 2u);
  EXPECT_FALSE(history.PositionAfter(1).has_value());
  EXPECT_EQ(history.PositionAfter(2).value(), 2u);
  EXPECT_EQ(history.At(0), nullptr);

  absl::Time later = start + absl::Seconds(60);
  history.Append(At(7, later), later);
  EXPECT_EQ(history.size(), 2u);  // The window evicts down to min_events.
  EXPECT_EQ(history.oldest_version(), 5u);
}

TEST(EventHistory, NeverSplitsABatchThatSharesAVersion) {
  absl::Time now = absl::UnixEpoch();
  HistoryLimits limits{.window = absl::Hours(1), .min_events = 1, .max_events = 3};
  EventHistory history(limits, 0);
  history.Append(At(1, now), now);
  Event batch = At(5, now);
  history.Append(batch, now);
  history.Append(batch, now);
  history.Append(batch, now);  // 4 events > max 3: evicts 1 only.
  EXPECT_EQ(history.size(), 3u);
  history.Append(At(6, now), now);  // Evicting part of the batch evicts all of it.
  EXPECT_EQ(history.size(), 1u);
  EXPECT_EQ(history.oldest_version(), 5u);
}

TEST(EventHistory, ResetInvalidatesOldPositions) {
  absl::Time now = absl::UnixEpoch();
  EventHistory history({}, 0);
  history.Append(At(1, now), now);
  history.Reset(100);
  EXPECT_EQ(history.first_position(), 1u);
  EXPECT_EQ(history.At(0), nullptr);
  EXPECT_FALSE(history.PositionAfter(50).has_value());
  EXPECT_EQ(history.PositionAfter(100).value(), 1u);
}

}  // namespace
}  // namespace informerd::cache
