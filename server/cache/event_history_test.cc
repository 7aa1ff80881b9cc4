#include "server/cache/event_history.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

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

// Events at `versions`, oldest first, all at `time`.
std::vector<Event> AtEach(std::initializer_list<uint64_t> versions, absl::Time time) {
  std::vector<Event> events;
  for (uint64_t version : versions) events.push_back(At(version, time));
  return events;
}

TEST(EventHistory, PositionAfterFindsTheNextEvent) {
  absl::Time now = absl::UnixEpoch();
  EventHistory history({}, 10);
  history.Append(At(12, now), now);
  history.Append(At(15, now), now);
  const uint64_t p = history.first_position();
  EXPECT_EQ(history.PositionAfter(10).value(), p);
  EXPECT_EQ(history.PositionAfter(11).value(), p);
  EXPECT_EQ(history.PositionAfter(12).value(), p + 1);
  EXPECT_EQ(history.PositionAfter(15).value(), p + 2);
  EXPECT_EQ(history.PositionAfter(99).value(), p + 2);
  EXPECT_FALSE(history.PositionAfter(9).has_value());
  EXPECT_EQ(history.At(p + 1)->resource_version, 15u);
  EXPECT_EQ(history.At(p + 2), nullptr);
}

TEST(EventHistory, EvictsByCountAndWindowButKeepsMinimum) {
  absl::Time start = absl::UnixEpoch();
  HistoryLimits limits{.window = absl::Seconds(10), .min_events = 2, .max_events = 4};
  EventHistory history(limits, 0);
  const uint64_t p = history.first_position();
  for (uint64_t v = 1; v <= 6; ++v) history.Append(At(v, start), start);
  EXPECT_EQ(history.size(), 4u);
  EXPECT_EQ(history.oldest_version(), 2u);
  EXPECT_EQ(history.first_position(), p + 2);
  EXPECT_FALSE(history.PositionAfter(1).has_value());
  EXPECT_EQ(history.PositionAfter(2).value(), p + 2);
  EXPECT_EQ(history.At(p), nullptr);

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
  const uint64_t p = history.first_position();
  history.Append(At(1, now), now);
  history.Reset(100);
  EXPECT_EQ(history.first_position(), p + 1);
  EXPECT_EQ(history.At(p), nullptr);
  EXPECT_FALSE(history.PositionAfter(50).has_value());
  EXPECT_EQ(history.PositionAfter(100).value(), p + 1);
}

TEST(EventHistory, PrependedEventsComeBeforeAndKeepTakenPositions) {
  absl::Time now = absl::UnixEpoch();
  EventHistory history({}, 20);
  history.Append(At(25, now), now);
  const uint64_t taken = history.PositionAfter(20).value();
  EXPECT_FALSE(history.PositionAfter(12).has_value());
  ASSERT_TRUE(history.Prepend(AtEach({14, 20}, now), 12));
  EXPECT_EQ(history.oldest_version(), 12u);
  EXPECT_EQ(history.size(), 3u);
  EXPECT_EQ(history.At(taken)->resource_version, 25u);
  EXPECT_EQ(history.PositionAfter(20).value(), taken);
  const uint64_t from_12 = history.PositionAfter(12).value();
  EXPECT_EQ(from_12, taken - 2);
  EXPECT_EQ(history.At(from_12)->resource_version, 14u);
  EXPECT_EQ(history.At(from_12 + 1)->resource_version, 20u);
  EXPECT_EQ(history.PositionAfter(14).value(), taken - 1);
  EXPECT_FALSE(history.PositionAfter(11).has_value());
}

TEST(EventHistory, PrependBeyondMaxEventsChangesNothing) {
  absl::Time now = absl::UnixEpoch();
  HistoryLimits limits{.window = absl::Hours(1), .min_events = 1, .max_events = 2};
  EventHistory history(limits, 20);
  history.Append(At(25, now), now);
  EXPECT_FALSE(history.Prepend(AtEach({14, 20}, now), 12));
  EXPECT_EQ(history.oldest_version(), 20u);
  EXPECT_EQ(history.size(), 1u);
}

}  // namespace
}  // namespace informerd::cache
