// InterruptWatcher: turns SIGINT and SIGTERM into a callback on an ordinary
// thread, where it may cancel a gRPC call (a signal handler may not).
//
// The signals are blocked in the constructing thread and so in every thread
// it starts later, then awaited with sigwait on a dedicated thread. A second
// signal ends the process at once (exit status 130), in case the first one
// could not end it cleanly.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_INTERRUPT_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_INTERRUPT_H_

#include <csignal>
#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace informerd {
namespace informerctl {

class InterruptWatcher {
 public:
  // REQUIRES: no other thread exists yet (gRPC starts threads on first use),
  // else a signal could be delivered to a thread that does not block it.
  InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;
  ~InterruptWatcher();

  // Runs on_interrupt on the watcher's thread at the first signal, or right
  // away if one has arrived already. Replaces the previous callback; nullptr
  // clears it. Once this returns, the previous callback is not running and
  // will not run.
  void SetOnInterrupt(std::function<void()> on_interrupt);

  bool interrupted() const;

  // Blocks until the first signal has arrived (returns at once if it has).
  // For a program that only has to wait for its end, without a callback.
  void WaitForInterrupt() const;

 private:
  void Run();

  sigset_t signals_;
  sigset_t previous_mask_;
  std::thread thread_;

  mutable absl::Mutex mu_;
  bool interrupted_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> on_interrupt_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_INTERRUPT_H_
