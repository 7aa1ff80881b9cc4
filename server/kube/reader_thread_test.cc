#include "server/kube/reader_thread.h"

#include <atomic>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace informerd::kube {
namespace {

// A reader waiting out a long backoff must stop at once, not at its end.
TEST(ReaderThreadTest, StopCutsAWaitBeforeRetryShort) {
  ReaderThread thread;
  absl::Notification waiting;
  std::atomic<bool> retry_due{true};
  thread.Start([&] {
    waiting.Notify();
    retry_due = thread.WaitBeforeRetry("test", "a failure", absl::Hours(1));
  });
  waiting.WaitForNotification();
  const absl::Time start = absl::Now();
  bool interrupted = false;
  thread.Stop([&] { interrupted = true; });
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_TRUE(interrupted);
  EXPECT_FALSE(retry_due);
  EXPECT_TRUE(thread.stopping());
}

TEST(ReaderThreadTest, AWaitEndsWithTheRetryDue) {
  ReaderThread thread;
  std::atomic<bool> retry_due{false};
  thread.Start([&] { retry_due = thread.WaitBeforeRetry("test", "a failure", absl::Milliseconds(1)); });
  // Stop joins: the loop has returned by then, its wait over.
  thread.Stop([] {});
  // The wait may have seen the stop first; run it again, stopped, to check
  // that side too.
  EXPECT_FALSE(thread.WaitBeforeRetry("test", "a failure", absl::Milliseconds(1)));
}

// The flag is set before the interrupt runs: a reader that checks
// stopping() before registering its call cannot miss the stop.
TEST(ReaderThreadTest, StoppingIsSetWhenTheInterruptRuns) {
  ReaderThread thread;
  bool stopping_seen = false;
  thread.Stop([&] { stopping_seen = thread.stopping(); });
  EXPECT_TRUE(stopping_seen);
}

}  // namespace
}  // namespace informerd::kube
