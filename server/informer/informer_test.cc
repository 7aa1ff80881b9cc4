#include "server/informer/informer.h"

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "rapidjson/document.h"
#include "server/cache/test_objects.h"

namespace informerd::informer {
namespace {

using cache::EventType;
using cache::TestObjectSpec;

class InformerTest : public ::testing::Test {
 protected:
  void List(const std::vector<TestObjectSpec>& specs, uint64_t version) {
    informer_.OnListStart();
    for (const TestObjectSpec& spec : specs) {
      rapidjson::Document doc;
      doc.Parse(cache::TestObjectJson(spec).c_str());
      informer_.OnListItem(doc);
    }
    informer_.OnListEnd(std::to_string(version));
  }
  void Watch(kube::WatchEventType type, const TestObjectSpec& spec) {
    rapidjson::Document doc;
    doc.Parse(cache::TestObjectJson(spec).c_str());
    informer_.OnWatchEvent(type, doc);
  }
  std::vector<std::string> Keys(const Informer::Page& page) {
    std::vector<std::string> keys;
    for (const auto& object : page.items) keys.push_back(object->key());
    return keys;
  }
  std::vector<cache::Event> ReadAll(uint64_t position) {
    std::vector<cache::Event> events;
    cache::Event event;
    uint64_t version = 0;
    while (informer_.Read(position, &event, &version, nullptr) == Informer::ReadResult::kEvent) {
      events.push_back(event);
      ++position;
    }
    return events;
  }

  Informer informer_{InformerOptions{}};
};

TEST_F(InformerTest, SyncsAfterFirstListWithoutHistoryEvents) {
  EXPECT_FALSE(informer_.synced());
  List({{.name = "a", .resource_version = 3}, {.name = "b", .resource_version = 4}}, 10);
  EXPECT_TRUE(informer_.synced());
  InformerStats stats = informer_.stats();
  EXPECT_EQ(stats.objects, 2u);
  EXPECT_EQ(stats.resource_version, 10u);
  EXPECT_EQ(stats.history_events, 0u);
  EXPECT_EQ(informer_.Get("default/a").first->resource_version(), "3");
}

TEST_F(InformerTest, WatchEventsUpdateStoreAndHistory) {
  List({{.name = "a", .resource_version = 3}}, 10);
  Watch(kube::WatchEventType::kModified, {.name = "a", .resource_version = 11});
  Watch(kube::WatchEventType::kAdded, {.name = "b", .resource_version = 12});
  Watch(kube::WatchEventType::kDeleted, {.name = "a", .resource_version = 13});
  Watch(kube::WatchEventType::kDeleted, {.name = "never", .resource_version = 14});
  EXPECT_EQ(informer_.resource_version(), 14u);
  std::vector<cache::Event> events = ReadAll(informer_.WatchPosition(10).value());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::kModified);
  EXPECT_EQ(events[0].previous->resource_version(), "3");
  EXPECT_EQ(events[1].type, EventType::kAdded);
  EXPECT_EQ(events[2].type, EventType::kDeleted);
  EXPECT_FALSE(events[2].final_state_unknown);
  EXPECT_EQ(informer_.Get("default/a").first, nullptr);
  EXPECT_EQ(ReadAll(informer_.WatchPosition(12).value()).size(), 1u);
}

TEST_F(InformerTest, BackfilledPastLetsAWatcherResumeFromBeforeTheFirstList) {
  // What the API server had: a at 3, then a modified at 8 and b added at 9,
  // as a temporary informer that listed at 5 saw them.
  Informer past{InformerOptions{}};
  auto feed = [&past](const TestObjectSpec& spec, bool list) {
    rapidjson::Document doc;
    doc.Parse(cache::TestObjectJson(spec).c_str());
    if (list) {
      past.OnListItem(doc);
    } else {
      past.OnWatchEvent(spec.resource_version == 9 ? kube::WatchEventType::kAdded
                                                   : kube::WatchEventType::kModified,
                        doc);
    }
  };
  past.OnListStart();
  feed({.name = "a", .resource_version = 3}, true);
  past.OnListEnd("5");
  feed({.name = "a", .resource_version = 8}, false);
  feed({.name = "b", .resource_version = 9}, false);
  feed({.name = "a", .resource_version = 12}, false);  // past the served list

  List({{.name = "a", .resource_version = 8}, {.name = "b", .resource_version = 9}}, 10);
  Watch(kube::WatchEventType::kModified, {.name = "a", .resource_version = 12});
  EXPECT_FALSE(informer_.WatchPosition(5).ok());
  const uint64_t from_10 = informer_.WatchPosition(10).value();

  EXPECT_FALSE(past.EventsBetween(4, 10).ok()) << "before the past informer's list";
  absl::StatusOr<std::vector<cache::Event>> older = past.EventsBetween(5, 10);
  ASSERT_TRUE(older.ok()) << older.status();
  ASSERT_EQ(older->size(), 2u);
  EXPECT_EQ(informer_.PrependHistory(*older, 5, 9).code(), absl::StatusCode::kUnavailable)
      << "reaching 9 leaves the events up to 10 unknown";
  ASSERT_TRUE(informer_.PrependHistory(*std::move(older), 5, 10).ok());

  EXPECT_EQ(informer_.stats().oldest_resource_version, 5u);
  EXPECT_EQ(informer_.WatchPosition(10).value(), from_10);
  std::vector<cache::Event> events = ReadAll(informer_.WatchPosition(5).value());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::kModified);
  EXPECT_EQ(events[0].previous->resource_version(), "3");
  EXPECT_EQ(events[1].type, EventType::kAdded);
  EXPECT_EQ(events[1].object->name(), "b");
  EXPECT_EQ(events[2].resource_version, 12u);
  // Already covered: nothing to do.
  EXPECT_TRUE(informer_.PrependHistory({}, 7, 10).ok());
}

TEST_F(InformerTest, OlderEventsAndMalformedObjectsAreRejected) {
  List({{.name = "a", .resource_version = 3}}, 10);
  Watch(kube::WatchEventType::kModified, {.name = "a", .resource_version = 9});
  rapidjson::Document doc;
  doc.Parse("{\"metadata\":{\"name\":\"x\"}}");
  informer_.OnWatchEvent(kube::WatchEventType::kAdded, doc);
  EXPECT_EQ(informer_.stats().events_rejected, 2u);
  EXPECT_EQ(informer_.Get("default/a").first->resource_version(), "3");
}

TEST_F(InformerTest, RelistEmitsDiffAndKeepsWatchersPositions) {
  List({{.name = "a", .resource_version = 3}, {.name = "b", .resource_version = 4}}, 10);
  uint64_t position = informer_.WatchPosition(10).value();
  List({{.name = "b", .resource_version = 15}, {.name = "c", .resource_version = 16}}, 20);
  std::vector<cache::Event> events = ReadAll(position);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::kDeleted);
  EXPECT_TRUE(events[0].final_state_unknown);
  EXPECT_EQ(events[0].object->name(), "a");
  EXPECT_EQ(events[1].type, EventType::kModified);
  EXPECT_EQ(events[2].type, EventType::kAdded);
  EXPECT_EQ(events[2].resume_version, 20u);
  EXPECT_EQ(informer_.stats().relist_events, 3u);
}

TEST_F(InformerTest, ListPagesFromOneSnapshotEvenAfterChanges) {
  List({{.name = "a", .resource_version = 1}, {.name = "b", .resource_version = 2},
        {.name = "c", .resource_version = 3}},
       10);
  Informer::Page first = informer_.List({}, 0, "", 2, 1 << 20).value();
  EXPECT_EQ(Keys(first), (std::vector<std::string>{"default/a", "default/b"}));
  EXPECT_TRUE(first.more);
  EXPECT_EQ(first.resource_version, 10u);
  // Changes after the first page must not show in the next one.
  Watch(kube::WatchEventType::kDeleted, {.name = "c", .resource_version = 11});
  Watch(kube::WatchEventType::kAdded, {.name = "d", .resource_version = 12});
  Watch(kube::WatchEventType::kModified, {.name = "b", .resource_version = 13});
  Informer::Page second = informer_.List({}, 10, "default/b", 2, 1 << 20).value();
  EXPECT_EQ(Keys(second), (std::vector<std::string>{"default/c"}));
  EXPECT_EQ(second.items[0]->resource_version(), "3");
  EXPECT_FALSE(second.more);
  EXPECT_EQ(second.resource_version, 10u);
  Informer::Page latest = informer_.List({}, 0, "", 0, 1 << 20).value();
  EXPECT_EQ(Keys(latest), (std::vector<std::string>{"default/a", "default/b", "default/d"}));
}

TEST_F(InformerTest, ListUsesLabelIndexAndCapsBytes) {
  List({{.name = "a", .labels = {{"app", "x"}}}, {.name = "b", .labels = {{"app", "y"}}},
        {.name = "c", .labels = {{"app", "x"}}}},
       10);
  cache::Filter filter;
  filter.labels = selector::LabelSelector::Parse("app=x").value();
  EXPECT_EQ(Keys(informer_.List(filter, 0, "", 0, 1 << 20).value()),
            (std::vector<std::string>{"default/a", "default/c"}));
  Informer::Page tiny = informer_.List(filter, 0, "", 0, 1).value();
  EXPECT_EQ(tiny.items.size(), 1u);
  EXPECT_TRUE(tiny.more);
}

TEST_F(InformerTest, TooOldVersionsAreOutOfRange) {
  List({{.name = "a"}}, 10);
  EXPECT_EQ(informer_.WatchPosition(5).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(informer_.List({}, 5, "", 0, 1 << 20).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(informer_.WatchPosition(5).status().message().find("too old resource version: 5 (10)"),
            std::string::npos);
}

class NotifyingWaiter : public Waiter {
 public:
  void Wake() override { woken.Notify(); }
  absl::Notification woken;
};

TEST_F(InformerTest, CaughtUpWaiterIsWokenByTheNextEvent) {
  List({}, 10);
  auto waiter = std::make_shared<NotifyingWaiter>();
  cache::Event event;
  uint64_t version = 0;
  uint64_t position = informer_.WatchPosition(10).value();
  ASSERT_EQ(informer_.Read(position, &event, &version, waiter), Informer::ReadResult::kCaughtUp);
  EXPECT_EQ(version, 10u);
  Watch(kube::WatchEventType::kAdded, {.name = "a", .resource_version = 11});
  EXPECT_TRUE(waiter->woken.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(informer_.Read(position, &event, &version, nullptr), Informer::ReadResult::kEvent);
}

TEST_F(InformerTest, WaitForVersion) {
  EXPECT_FALSE(informer_.WaitForVersion(1, absl::Milliseconds(1)));
  List({}, 10);
  EXPECT_TRUE(informer_.WaitForVersion(10, absl::ZeroDuration()));
  EXPECT_FALSE(informer_.WaitForVersion(11, absl::Milliseconds(1)));
  informer_.OnBookmark("11");
  EXPECT_TRUE(informer_.WaitForVersion(11, absl::ZeroDuration()));
}

TEST_F(InformerTest, NotifyAtVersionCallsBackOnceThereAndForgetsWhenCancelled) {
  std::vector<std::string> calls;
  auto note = [&calls](std::string what) { return [&calls, what] { calls.push_back(what); }; };
  EXPECT_NE(informer_.NotifyAtVersion(0, note("synced")), 0u);  // waits for the first list
  EXPECT_NE(informer_.NotifyAtVersion(11, note("by event")), 0u);
  EXPECT_NE(informer_.NotifyAtVersion(12, note("by bookmark")), 0u);
  uint64_t cancelled = informer_.NotifyAtVersion(13, note("cancelled"));
  EXPECT_NE(informer_.NotifyAtVersion(20, note("by relist")), 0u);
  List({}, 10);
  EXPECT_EQ(calls, std::vector<std::string>{"synced"});
  Watch(kube::WatchEventType::kAdded, {.name = "a", .resource_version = 11});
  EXPECT_EQ(calls.back(), "by event");
  informer_.OnBookmark("12");
  EXPECT_EQ(calls.back(), "by bookmark");
  informer_.CancelVersionNotification(cancelled);
  informer_.CancelVersionNotification(cancelled);  // a second time: nothing
  informer_.OnBookmark("14");
  EXPECT_EQ(calls.size(), 3u);
  List({}, 20);
  EXPECT_EQ(calls.back(), "by relist");
  EXPECT_EQ(informer_.NotifyAtVersion(20, note("at once")), 0u);
  EXPECT_EQ(calls, (std::vector<std::string>{"synced", "by event", "by bookmark", "by relist",
                                             "at once"}));
}

TEST_F(InformerTest, SnapshotIsConsistentWithPosition) {
  List({{.name = "a", .labels = {{"k", "v"}}}, {.name = "b"}}, 10);
  cache::Filter filter;
  filter.labels = selector::LabelSelector::Parse("k=v").value();
  Informer::InitialState state = informer_.Snapshot(filter);
  ASSERT_EQ(state.objects.size(), 1u);
  EXPECT_EQ(state.resource_version, 10u);
  Watch(kube::WatchEventType::kAdded, {.name = "c", .resource_version = 11});
  EXPECT_EQ(ReadAll(state.position).size(), 1u);
}

}  // namespace
}  // namespace informerd::informer
