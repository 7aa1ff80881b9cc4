#include "client/cpp/informerctl/interrupt.h"

#include <pthread.h>

#include <cstdlib>
#include <utility>

namespace informerd {
namespace informerctl {

InterruptWatcher::InterruptWatcher() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_mask_);
  thread_ = std::thread([this] { Run(); });
}

InterruptWatcher::~InterruptWatcher() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  // Wakes sigwait; the thread sees stopping_ and ends.
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void InterruptWatcher::SetOnInterrupt(std::function<void()> on_interrupt) {
  // The callback runs under mu_, so replacing it waits for a running one.
  absl::MutexLock lock(&mu_);
  on_interrupt_ = std::move(on_interrupt);
  if (interrupted_ && on_interrupt_) on_interrupt_();
}

bool InterruptWatcher::interrupted() const {
  absl::MutexLock lock(&mu_);
  return interrupted_;
}

void InterruptWatcher::WaitForInterrupt() const {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&interrupted_));
}

void InterruptWatcher::Run() {
  while (true) {
    int signal_number = 0;
    if (sigwait(&signals_, &signal_number) != 0) continue;
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    if (interrupted_) std::_Exit(130);
    interrupted_ = true;
    if (on_interrupt_) on_interrupt_();
  }
}

}  // namespace informerctl
}  // namespace informerd
