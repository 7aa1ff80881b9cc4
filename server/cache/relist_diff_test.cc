#include "server/cache/relist_diff.h"

#include <gtest/gtest.h>

#include "server/cache/test_objects.h"

namespace informerd::cache {
namespace {

TEST(RelistDiff, EmitsExactlyTheEventsThatExplainTheNewList) {
  ObjectStore store;
  store.Put(MakeTestObject({.name = "same", .resource_version = 5}));
  store.Put(MakeTestObject({.name = "changed", .resource_version = 6}));
  store.Put(MakeTestObject({.name = "gone", .resource_version = 7}));
  store.Put(MakeTestObject({.name = "recreated", .resource_version = 8, .uid = "old"}));

  std::vector<ObjectPtr> listed = {
      MakeTestObject({.name = "same", .resource_version = 5}),
      MakeTestObject({.name = "new", .resource_version = 20}),
      MakeTestObject({.name = "changed", .resource_version = 21}),
      MakeTestObject({.name = "recreated", .resource_version = 22, .uid = "new"}),
  };
  std::vector<Event> events = ComputeRelistDiff(store, listed, 10, 30, absl::UnixEpoch());
  ASSERT_EQ(events.size(), 5u);
  // Key order: changed, gone, new, recreated(delete, add).
  EXPECT_EQ(events[0].type, EventType::kModified);
  EXPECT_EQ(events[0].object->key(), "default/changed");
  EXPECT_EQ(events[0].previous->resource_version(), "6");
  EXPECT_EQ(events[1].type, EventType::kDeleted);
  EXPECT_EQ(events[1].object->key(), "default/gone");
  EXPECT_TRUE(events[1].final_state_unknown);
  EXPECT_EQ(events[2].type, EventType::kAdded);
  EXPECT_EQ(events[2].object->key(), "default/new");
  EXPECT_EQ(events[3].type, EventType::kDeleted);
  EXPECT_EQ(events[3].object->uid(), "old");
  EXPECT_TRUE(events[3].final_state_unknown);
  EXPECT_EQ(events[4].type, EventType::kAdded);
  EXPECT_EQ(events[4].object->uid(), "new");
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].resource_version, 30u);
    EXPECT_EQ(events[i].resume_version, i + 1 == events.size() ? 30u : 10u);
  }
}

TEST(RelistDiff, IdenticalListEmitsNothing) {
  ObjectStore store;
  store.Put(MakeTestObject({.name = "a", .resource_version = 5}));
  std::vector<ObjectPtr> listed = {MakeTestObject({.name = "a", .resource_version = 5})};
  EXPECT_TRUE(ComputeRelistDiff(store, listed, 5, 9, absl::UnixEpoch()).empty());
}

TEST(RelistDiff, EmptyListDeletesEverything) {
  ObjectStore store;
  store.Put(MakeTestObject({.name = "a"}));
  store.Put(MakeTestObject({.name = "b"}));
  std::vector<Event> events = ComputeRelistDiff(store, {}, 5, 9, absl::UnixEpoch());
  ASSERT_EQ(events.size(), 2u);
  for (const Event& e : events) {
    EXPECT_EQ(e.type, EventType::kDeleted);
    EXPECT_TRUE(e.final_state_unknown);
  }
}

}  // namespace
}  // namespace informerd::cache
