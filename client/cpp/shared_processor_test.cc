// The handler side of an informer without a server: a SharedProcessor over
// a LocalCache, written to as the informer's thread would.
#include "client/cpp/shared_processor.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "client/cpp/recording_handler.h"
#include "client/cpp/test_objects.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd {
namespace client {
namespace {

using ::testing::ElementsAre;

constexpr absl::Duration kWait = absl::Seconds(10);

std::map<std::string, std::string> CacheState(const LocalCache& cache) {
  std::map<std::string, std::string> state;
  for (const CachedObjectPtr& o : cache.All()) {
    state[ObjectKey(o->object.namespace_(), o->object.name())] =
        o->object.resource_version();
  }
  return state;
}

// For RecordingHandler::WaitUntil: whether `want` has been recorded.
auto HasLine(std::string want) {
  return [want = std::move(want)](const std::vector<std::string>& lines) {
    return std::find(lines.begin(), lines.end(), want) != lines.end();
  };
}

// Handlers are declared before the processor in every test: they must
// outlive it (its destructor stops their threads).

TEST(SharedProcessorTest, HandlerAddedBeforeSyncSyncsOnceGivenTheInitialState) {
  RecordingHandler handler;
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  HandlerRegistration* registration = processor.AddHandler(&handler, absl::ZeroDuration());
  processor.Upsert(MakeTestObject("ns", "a", "1"));
  processor.Upsert(MakeTestObject("ns", "b", "2"));
  ASSERT_TRUE(handler.WaitForCount(2, kWait));
  EXPECT_FALSE(registration->HasSynced());
  processor.MarkSynced();
  EXPECT_TRUE(registration->WaitForSynced(kWait));
  EXPECT_THAT(handler.Texts(), ElementsAre("ADD ns/a 1", "ADD ns/b 2"));
}

TEST(SharedProcessorTest, LateHandlerGetsTheCacheAsAddsThenLiveChangesInOrder) {
  // The late handler is held in its first call, so HasSynced can be seen
  // false while the initial adds are still being given.
  absl::Notification release;
  std::atomic<bool> first{true};
  RecordingHandler late([&] {
    if (first.exchange(false)) release.WaitForNotification();
  });
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  processor.Upsert(MakeTestObject("ns", "c", "3"));
  processor.Upsert(MakeTestObject("ns", "a", "1"));
  processor.Upsert(MakeTestObject("ns", "b", "2"));
  processor.MarkSynced();

  HandlerRegistration* registration = processor.AddHandler(&late, absl::ZeroDuration());
  processor.Upsert(MakeTestObject("ns", "d", "4"));
  processor.Upsert(MakeTestObject("ns", "a", "5"));
  processor.Remove(MakeTestObject("ns", "b", "6"), /*final_state_unknown=*/false);
  EXPECT_FALSE(registration->HasSynced());
  release.Notify();
  EXPECT_TRUE(registration->WaitForSynced(kWait));
  ASSERT_TRUE(late.WaitForCount(6, kWait));
  EXPECT_THAT(late.Texts(), ElementsAre("ADD ns/a 1", "ADD ns/b 2", "ADD ns/c 3",
                                        "ADD ns/d 4", "UPDATE ns/a 1 5",
                                        "DELETE ns/b 6"));
}

// A handler added while the writer is busy is registered under the writer's
// lock: whatever the interleaving, its lines replay to the cache exactly
// (no change missed, none given twice).
TEST(SharedProcessorTest, LateHandlersAddedDuringWritesMissNothing) {
  std::vector<std::unique_ptr<RecordingHandler>> handlers;
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  processor.MarkSynced();
  std::thread writer([&] {
    for (int i = 0; i < 2000; ++i) {
      std::string name = absl::StrCat("o", i % 50);
      if (i % 7 == 0) {
        processor.Remove(MakeTestObject("ns", name, absl::StrCat(i + 1)), false);
      } else {
        processor.Upsert(MakeTestObject("ns", name, absl::StrCat(i + 1)));
      }
    }
  });
  for (int i = 0; i < 20; ++i) {
    handlers.push_back(std::make_unique<RecordingHandler>());
    processor.AddHandler(handlers.back().get(), absl::ZeroDuration());
  }
  writer.join();
  std::map<std::string, std::string> want = CacheState(cache);
  for (auto& handler : handlers) {
    std::string error;
    EXPECT_TRUE(handler->WaitUntil(
        [&](const std::vector<std::string>& lines) {
          std::string e;
          return ReplayLines(lines, &e) == want;
        },
        kWait));
    ReplayLines(handler->Texts(), &error);
    EXPECT_EQ(error, "");
  }
}

TEST(SharedProcessorTest, RemovedHandlerIsNeverCalledAgain) {
  RecordingHandler removed, kept;
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  HandlerRegistration* registration = processor.AddHandler(&removed, absl::ZeroDuration());
  processor.AddHandler(&kept, absl::ZeroDuration());
  processor.Upsert(MakeTestObject("ns", "a", "1"));
  ASSERT_TRUE(removed.WaitForCount(1, kWait));
  ASSERT_TRUE(processor.RemoveHandler(registration).ok());
  processor.Upsert(MakeTestObject("ns", "b", "2"));
  ASSERT_TRUE(kept.WaitForCount(2, kWait));
  EXPECT_THAT(removed.Texts(), ElementsAre("ADD ns/a 1"));
  EXPECT_EQ(processor.RemoveHandler(registration).code(),
            absl::StatusCode::kNotFound);
}

// A handler blocked in a call holds up neither the writer nor the others.
TEST(SharedProcessorTest, BlockedHandlerDelaysNeitherWriterNorOthers) {
  absl::Notification release;
  RecordingHandler blocked([&] { release.WaitForNotification(); });
  RecordingHandler fast;
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  processor.AddHandler(&blocked, absl::ZeroDuration());
  processor.AddHandler(&fast, absl::ZeroDuration());
  for (int i = 0; i < 100; ++i) {
    processor.Upsert(MakeTestObject("ns", absl::StrCat("o", i), "1"));
  }
  EXPECT_TRUE(fast.WaitForCount(100, kWait));
  EXPECT_TRUE(blocked.Texts().empty());
  release.Notify();
  EXPECT_TRUE(blocked.WaitForCount(100, kWait));
}

// Past its queue limit a handler is given the difference between what it
// was told and the cache: fewer calls, the same end state, deletes of
// objects it knew marked final_state_unknown.
TEST(SharedProcessorTest, OverflowCollapsesIntoTheDifferenceFromTheHandlersView) {
  absl::Notification entered, release;
  std::atomic<int> calls{0};
  RecordingHandler slow([&] {
    if (calls++ == 1) {
      entered.Notify();
      release.WaitForNotification();
    }
  });
  LocalCache cache;
  SharedProcessor processor(&cache, /*queue_limit=*/2);
  processor.AddHandler(&slow, absl::ZeroDuration());
  processor.Upsert(MakeTestObject("ns", "a", "1"));
  processor.Upsert(MakeTestObject("ns", "b", "2"));
  entered.WaitForNotification();  // in ADD b; the queue is empty
  processor.Upsert(MakeTestObject("ns", "a", "3"));
  processor.Upsert(MakeTestObject("ns", "a", "4"));
  processor.Upsert(MakeTestObject("ns", "c", "5"));  // overflows
  processor.Upsert(MakeTestObject("ns", "d", "6"));
  processor.Remove(MakeTestObject("ns", "d", "7"), false);  // overflows
  processor.Remove(MakeTestObject("ns", "b", "8"), false);
  processor.Upsert(MakeTestObject("ns", "e", "9"));  // overflows
  release.Notify();
  std::map<std::string, std::string> want = CacheState(cache);
  ASSERT_TRUE(slow.WaitUntil(
      [&](const std::vector<std::string>& lines) {
        std::string e;
        return ReplayLines(lines, &e) == want;
      },
      kWait));
  EXPECT_THAT(slow.Texts(), ElementsAre("ADD ns/a 1", "ADD ns/b 2",
                                        "UPDATE ns/a 1 4",
                                        "DELETE ns/b 2 final-state-unknown",
                                        "ADD ns/c 5", "ADD ns/e 9"));
}

// Resync: synthetic updates (old and new the same object) from the cache,
// only for the handler that asked, at its own period.
TEST(SharedProcessorTest, ResyncReachesOnlyTheHandlerThatAskedAtItsPeriod) {
  RecordingHandler often, rarely, never;
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  processor.Upsert(MakeTestObject("ns", "a", "1"));
  processor.Upsert(MakeTestObject("ns", "b", "2"));
  processor.MarkSynced();
  processor.AddHandler(&often, absl::Milliseconds(50));
  processor.AddHandler(&rarely, absl::Hours(1));
  processor.AddHandler(&never, absl::ZeroDuration());
  // Two adds, then three resyncs of two objects each.
  ASSERT_TRUE(often.WaitForCount(8, kWait));
  std::vector<std::string> lines = often.Texts();
  EXPECT_THAT(std::vector<std::string>(lines.begin(), lines.begin() + 4),
              ElementsAre("ADD ns/a 1", "ADD ns/b 2", "UPDATE ns/a 1 1",
                          "UPDATE ns/b 2 2"));
  // A change after resyncs started: the next resync carries the new version.
  processor.Upsert(MakeTestObject("ns", "a", "3"));
  ASSERT_TRUE(often.WaitUntil(HasLine("UPDATE ns/a 3 3"), kWait));
  ASSERT_TRUE(rarely.WaitForCount(3, kWait));
  ASSERT_TRUE(never.WaitForCount(3, kWait));
  EXPECT_THAT(rarely.Texts(), ElementsAre("ADD ns/a 1", "ADD ns/b 2", "UPDATE ns/a 1 3"));
  EXPECT_THAT(never.Texts(), ElementsAre("ADD ns/a 1", "ADD ns/b 2", "UPDATE ns/a 1 3"));
}

// A resync that takes longer than the period still lets queued changes
// through between two resyncs.
TEST(SharedProcessorTest, SlowResyncDoesNotStarveChanges) {
  // Stands for a handler's work: each call takes 1 ms, a resync 20 ms.
  RecordingHandler handler([] { absl::SleepFor(absl::Milliseconds(1)); });
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  for (int i = 0; i < 20; ++i) {
    processor.Upsert(MakeTestObject("ns", absl::StrCat("o", i), "1"));
  }
  processor.MarkSynced();
  processor.AddHandler(&handler, absl::Milliseconds(1));
  ASSERT_TRUE(handler.WaitForCount(60, kWait));  // resyncs are running
  processor.Upsert(MakeTestObject("ns", "o0", "2"));
  EXPECT_TRUE(handler.WaitUntil(HasLine("UPDATE ns/o0 1 2"), kWait));
}

TEST(SharedProcessorTest, StopWaitsForTheRunningCallAndEndsDelivery) {
  absl::Notification entered, release;
  std::atomic<bool> returned{false};
  RecordingHandler handler([&] {
    if (!entered.HasBeenNotified()) {
      entered.Notify();
      release.WaitForNotification();
      returned = true;
    }
  });
  RecordingHandler after;
  LocalCache cache;
  SharedProcessor processor(&cache, 1024);
  processor.AddHandler(&handler, absl::ZeroDuration());
  processor.Upsert(MakeTestObject("ns", "a", "1"));
  processor.Upsert(MakeTestObject("ns", "b", "2"));
  entered.WaitForNotification();
  std::thread stopper([&] { processor.Stop(); });
  release.Notify();
  stopper.join();
  EXPECT_TRUE(returned);
  // Whether ADD b was still queued when Stop began depends on timing; once
  // Stop returned, nothing more is delivered.
  std::vector<std::string> at_stop = handler.Texts();
  ASSERT_GE(at_stop.size(), 1u);
  EXPECT_EQ(at_stop[0], "ADD ns/a 1");
  processor.Upsert(MakeTestObject("ns", "c", "3"));
  HandlerRegistration* registration = processor.AddHandler(&after, absl::ZeroDuration());
  EXPECT_FALSE(registration->HasSynced());
  EXPECT_EQ(handler.Texts(), at_stop);
  EXPECT_TRUE(after.Texts().empty());
}

}  // namespace
}  // namespace client
}  // namespace informerd
