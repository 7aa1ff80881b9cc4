// Compiled by thread_safety_canary_test.sh: with THREAD_SAFETY_VIOLATION
// defined it writes a guarded member without its mutex, which the
// thread_safety build config must refuse.
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

class Counter {
 public:
  void Bump() {
#ifndef THREAD_SAFETY_VIOLATION
    absl::MutexLock lock(&mu_);
#endif
    ++value_;
  }

 private:
  absl::Mutex mu_;
  int value_ ABSL_GUARDED_BY(mu_) = 0;
};

int main() {
  Counter counter;
  counter.Bump();
}
