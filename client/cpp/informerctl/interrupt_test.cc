// The watcher in a test process: the test's own thread is the only one when
// the watcher is built (gtest starts none), as InterruptWatcher requires.
#include "client/cpp/informerctl/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

TEST(InterruptWatcherTest, WaitForInterruptReturnsAfterTheSignalAndRunsTheCallback) {
  InterruptWatcher watcher;
  absl::Notification called;
  watcher.SetOnInterrupt([&called] { called.Notify(); });
  EXPECT_FALSE(watcher.interrupted());
  // To the process, so the watcher's sigwait takes it (this thread blocks it).
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  watcher.WaitForInterrupt();
  EXPECT_TRUE(watcher.interrupted());
  EXPECT_TRUE(called.HasBeenNotified());
  watcher.SetOnInterrupt(nullptr);
  // Once interrupted, it stays so: a later wait returns at once.
  watcher.WaitForInterrupt();
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
