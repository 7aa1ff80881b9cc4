// ReaderThread: the life of an upstream reader's loop (kube::Reflector,
// tier::InformerdReader): one thread started once, stopped from any thread,
// with its waits between retries cut short by the stop.
//
// Stop sets the stopping flag before it interrupts the reader's call in
// progress, so a reader that registers its call after checking stopping()
// under its own lock either sees the flag or has its call interrupted.
//
// Thread safety: every method may be called from any thread.
#ifndef INFORMERD_SERVER_KUBE_READER_THREAD_H_
#define INFORMERD_SERVER_KUBE_READER_THREAD_H_

#include <functional>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace informerd::kube {

class ReaderThread {
 public:
  ReaderThread() = default;
  // REQUIRES: Stop() has returned, or Start() was never called.
  ~ReaderThread() = default;

  ReaderThread(const ReaderThread&) = delete;
  ReaderThread& operator=(const ReaderThread&) = delete;

  // Runs `loop` on the thread. REQUIRES: called at most once.
  void Start(std::function<void()> loop);

  // Marks the thread stopping, calls `interrupt` (which cancels the
  // reader's call in progress, if any) and waits for the loop to return.
  // Idempotent; `interrupt` runs on every call.
  void Stop(const std::function<void()>& interrupt);

  bool stopping() const;

  // Waits `delay` before a retry, logging `reason` as `component`'s
  // warning; returns early, false, when stopping. True when the retry is due.
  bool WaitBeforeRetry(std::string_view component, std::string_view reason,
                       absl::Duration delay);

 private:
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_READER_THREAD_H_
