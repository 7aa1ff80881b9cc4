#include "server/auth/recheck_worker.h"

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"

namespace informerd::auth {
namespace {

TEST(RecheckWorkerTest, RunsTasksInOrderOnItsThread) {
  RecheckWorker worker;
  std::vector<int> order;
  absl::Notification done;
  std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
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
  RecheckWorker worker(/*max_queued=*/1);
  absl::Notification started;
  absl::Notification release;
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
