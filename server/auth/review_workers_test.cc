#include "server/auth/review_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace informerd::auth {
namespace {

ReviewWorkersOptions Options(size_t threads, size_t max_queued, size_t max_per_key = 100,
                             size_t max_running_per_key = 100) {
  return {threads, max_queued, max_per_key, max_running_per_key};
}

// Tasks that block until released, counting those that started.
class Gate {
 public:
  std::function<void()> Task() {
    return [this] {
      absl::MutexLock lock(&mu_);
      ++started_;
      mu_.Await(absl::Condition(&open_));
    };
  }
  bool AwaitStarted(int n) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return started_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }
  int started() {
    absl::MutexLock lock(&mu_);
    return started_;
  }
  void Open() {
    absl::MutexLock lock(&mu_);
    open_ = true;
  }

 private:
  absl::Mutex mu_;
  int started_ ABSL_GUARDED_BY(mu_) = 0;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
};

// The order tasks ran in.
class Order {
 public:
  std::function<void()> Task(std::string name) {
    return [this, name] {
      absl::MutexLock lock(&mu_);
      ran_.push_back(name);
    };
  }
  bool AwaitCount(size_t n) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ran_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }
  std::vector<std::string> ran() {
    absl::MutexLock lock(&mu_);
    return ran_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> ran_ ABSL_GUARDED_BY(mu_);
};

TEST(ReviewWorkersTest, OneWorkerRunsAKeysTasksInOrderOnItsThread) {
  // What the tasks touch outlives the worker's thread (declared first).
  std::vector<int> order;
  absl::Notification done;
  std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  ReviewWorkers worker(Options(/*threads=*/1, /*max_queued=*/10));
  ASSERT_TRUE(worker.Submit("a", [&] { order.push_back(1); }).ok());
  ASSERT_TRUE(worker
                  .Submit("a",
                          [&] {
                            order.push_back(2);
                            ran_on = std::this_thread::get_id();
                            done.Notify();
                          })
                  .ok());
  done.WaitForNotification();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_NE(ran_on, caller);
}

TEST(ReviewWorkersTest, RefusesTasksBeyondTheQueueBound) {
  Gate gate;
  ReviewWorkers worker(Options(/*threads=*/1, /*max_queued=*/1));
  ASSERT_TRUE(worker.Submit("a", gate.Task()).ok());
  ASSERT_TRUE(gate.AwaitStarted(1));
  EXPECT_TRUE(worker.Submit("b", [] {}).ok());
  absl::Status refused = worker.Submit("c", [] {});
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
  gate.Open();
}

// A key past its quota is refused at once (RESOURCE_EXHAUSTED, counting its
// running tasks too), while other keys are still queued.
TEST(ReviewWorkersTest, RefusesAKeyPastItsQuotaAndNoOneElse) {
  Gate gate;
  ReviewWorkers workers(Options(/*threads=*/1, /*max_queued=*/100, /*max_per_key=*/3));
  ASSERT_TRUE(workers.Submit("flood", gate.Task()).ok());
  ASSERT_TRUE(gate.AwaitStarted(1));
  EXPECT_TRUE(workers.Submit("flood", [] {}).ok());
  EXPECT_TRUE(workers.Submit("flood", [] {}).ok());
  absl::Status refused = workers.Submit("flood", [] {});
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_NE(refused.message().find("at most 3"), std::string::npos) << refused;
  EXPECT_TRUE(workers.Submit("alice", [] {}).ok());
  gate.Open();
}

TEST(ReviewWorkersTest, AQuotaOfItsOwnOverridesTheDefault) {
  Gate gate;
  ReviewWorkers workers(Options(/*threads=*/1, /*max_queued=*/100, /*max_per_key=*/1));
  ASSERT_TRUE(workers.Submit("shared", gate.Task(), nullptr, /*quota=*/3).ok());
  ASSERT_TRUE(gate.AwaitStarted(1));
  EXPECT_TRUE(workers.Submit("shared", [] {}, nullptr, 3).ok());
  EXPECT_TRUE(workers.Submit("shared", [] {}, nullptr, 3).ok());
  EXPECT_EQ(workers.Submit("shared", [] {}, nullptr, 3).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(workers.Submit("alice", [] {}).ok());
  EXPECT_EQ(workers.Submit("alice", [] {}).code(), absl::StatusCode::kResourceExhausted);
  gate.Open();
}

// Keys take turns: alice's task, queued after many of the flood's, runs
// after one of them, not after all.
TEST(ReviewWorkersTest, KeysTakeTurns) {
  Gate gate;
  Order order;
  ReviewWorkers workers(Options(/*threads=*/1, /*max_queued=*/100));
  ASSERT_TRUE(workers.Submit("blocker", gate.Task()).ok());
  ASSERT_TRUE(gate.AwaitStarted(1));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(workers.Submit("flood", order.Task("flood")).ok());
  ASSERT_TRUE(workers.Submit("alice", order.Task("alice")).ok());
  gate.Open();
  ASSERT_TRUE(order.AwaitCount(6));
  EXPECT_EQ(order.ran(),
            (std::vector<std::string>{"flood", "alice", "flood", "flood", "flood", "flood"}));
}

// One key never holds every worker: with its running quota taken, an idle
// worker runs someone else's task.
TEST(ReviewWorkersTest, OneKeyLeavesWorkersToOthers) {
  Gate gate;
  absl::Notification alice_ran;
  ReviewWorkers workers(Options(/*threads=*/3, /*max_queued=*/100, /*max_per_key=*/100,
                                /*max_running_per_key=*/2));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(workers.Submit("flood", gate.Task()).ok());
  ASSERT_TRUE(gate.AwaitStarted(2));
  ASSERT_TRUE(workers.Submit("alice", [&] { alice_ran.Notify(); }).ok());
  EXPECT_TRUE(alice_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(gate.started(), 2);
  gate.Open();
}

// Re-checks are never refused for the callers' queue and run before the
// callers' tasks.
TEST(ReviewWorkersTest, RechecksGoFirstAndAreNeverRefusedForTheQueue) {
  Gate gate;
  Order order;
  ReviewWorkers workers(Options(/*threads=*/1, /*max_queued=*/2));
  ASSERT_TRUE(workers.Submit("blocker", gate.Task()).ok());
  ASSERT_TRUE(gate.AwaitStarted(1));
  ASSERT_TRUE(workers.Submit("flood", order.Task("flood")).ok());
  ASSERT_TRUE(workers.Submit("other", order.Task("other")).ok());
  ASSERT_FALSE(workers.Submit("third", [] {}).ok());
  EXPECT_TRUE(workers.SubmitRecheck(order.Task("recheck")));
  EXPECT_EQ(workers.queued(), 3u);
  gate.Open();
  ASSERT_TRUE(order.AwaitCount(3));
  EXPECT_EQ(order.ran().front(), "recheck");
}

TEST(ReviewWorkersTest, ASlowTaskDelaysNoOtherWorker) {
  absl::Notification release;
  absl::Notification quick_ran;
  ReviewWorkers workers(Options(/*threads=*/2, /*max_queued=*/10));
  ASSERT_TRUE(workers.Submit("a", [&] { release.WaitForNotification(); }).ok());
  ASSERT_TRUE(workers.Submit("a", [&] { quick_ran.Notify(); }).ok());
  EXPECT_TRUE(quick_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  release.Notify();
}

TEST(ReviewWorkersTest, DestructionRunsWhatWasDroppedInstead) {
  absl::Notification started;
  absl::Notification release;
  bool dropped = false;
  bool ran = false;
  bool recheck_dropped = false;
  bool recheck_ran = false;
  {
    ReviewWorkers workers(Options(/*threads=*/1, /*max_queued=*/10));
    ASSERT_TRUE(workers
                    .Submit("a",
                            [&] {
                              started.Notify();
                              release.WaitForNotification();
                            })
                    .ok());
    started.WaitForNotification();
    ASSERT_TRUE(workers.Submit("b", [&] { ran = true; }, [&] { dropped = true; }).ok());
    ASSERT_TRUE(
        workers.SubmitRecheck([&] { recheck_ran = true; }, [&] { recheck_dropped = true; }));
    EXPECT_EQ(workers.queued(), 2u);
    // Lets the running task end only once destruction has begun: by then
    // the queued ones have been taken away.
    std::thread releaser([&] { release.Notify(); });
    releaser.detach();
  }
  EXPECT_TRUE(dropped != ran);
  EXPECT_TRUE(recheck_dropped != recheck_ran);
}

}  // namespace
}  // namespace informerd::auth
