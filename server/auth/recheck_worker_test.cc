#include "server/auth/recheck_worker.h"

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"

namespace informerd::auth {
namespace {

TEST(RecheckWorkerTest, RunsTasksInOrderOnItsThread) {
  // What the tasks touch outlives the worker's thread (declared first).
  std::vector<int> order;
  absl::Notification done;
  std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  RecheckWorker worker;
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

TEST(RecheckWorkerTest, RefusesTasksBeyondTheQueueBound) {
  // Declared before the worker, so they outlive its thread: the task may
  // still be inside release.WaitForNotification() when the test body ends.
  absl::Notification started;
  absl::Notification release;
  RecheckWorker worker(/*max_queued=*/1);
  ASSERT_TRUE(worker.Submit([&] {
    started.Notify();
    release.WaitForNotification();
  }));
  started.WaitForNotification();
  EXPECT_TRUE(worker.Submit([] {}));
  EXPECT_FALSE(worker.Submit([] {}));
  release.Notify();
}

}  // namespace
}  // namespace informerd::auth
