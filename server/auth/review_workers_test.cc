#include "server/auth/review_workers.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"

namespace informerd::auth {
namespace {

TEST(ReviewWorkersTest, OneWorkerRunsTasksInOrderOnItsThread) {
  // What the tasks touch outlives the worker's thread (declared first).
  std::vector<int> order;
  absl::Notification done;
  std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  ReviewWorkers worker(/*max_queued=*/10, /*threads=*/1);
  ASSERT_TRUE(worker.Submit([&] { order.push_back(1); }));
  ASSERT_TRUE(worker.Submit([&] {
    order.push_back(2);
    ran_on = std::this_thread::get_id();
    done.Notify();
  }));
  done.WaitForNotification();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_NE(ran_on, caller);
}

TEST(ReviewWorkersTest, RefusesTasksBeyondTheQueueBound) {
  // Declared before the worker, so they outlive its thread: the task may
  // still be inside release.WaitForNotification() when the test body ends.
  absl::Notification started;
  absl::Notification release;
  ReviewWorkers worker(/*max_queued=*/1, /*threads=*/1);
  ASSERT_TRUE(worker.Submit([&] {
    started.Notify();
    release.WaitForNotification();
  }));
  started.WaitForNotification();
  EXPECT_TRUE(worker.Submit([] {}));
  EXPECT_FALSE(worker.Submit([] {}));
  release.Notify();
}

TEST(ReviewWorkersTest, ASlowTaskDelaysNoOtherWorker) {
  absl::Notification release;
  absl::Notification quick_ran;
  ReviewWorkers workers(/*max_queued=*/10, /*threads=*/2);
  ASSERT_TRUE(workers.Submit([&] { release.WaitForNotification(); }));
  ASSERT_TRUE(workers.Submit([&] { quick_ran.Notify(); }));
  EXPECT_TRUE(quick_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  release.Notify();
}

TEST(ReviewWorkersTest, DestructionRunsWhatWasDroppedInstead) {
  absl::Notification started;
  absl::Notification release;
  bool dropped = false;
  bool ran = false;
  {
    ReviewWorkers workers(/*max_queued=*/10, /*threads=*/1);
    ASSERT_TRUE(workers.Submit([&] {
      started.Notify();
      release.WaitForNotification();
    }));
    started.WaitForNotification();
    ASSERT_TRUE(workers.Submit([&] { ran = true; }, [&] { dropped = true; }));
    EXPECT_EQ(workers.queued(), 1u);
    // Lets the running task end only once destruction has begun: by then
    // the queued one has been taken away.
    std::thread releaser([&] { release.Notify(); });
    releaser.detach();
  }
  EXPECT_TRUE(dropped || ran);
  EXPECT_FALSE(dropped && ran);
}

}  // namespace
}  // namespace informerd::auth
