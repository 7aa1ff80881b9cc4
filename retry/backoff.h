// Backoff: how long to wait before retrying a failed call; the one retry
// policy of informerd's C++ code (the Reflector and the tier reader toward
// their upstream, the C++ client toward informerd). The Go, Java and Python
// clients implement the same policy (docs/ARCHITECTURE.md, "Retries").
//
// The n-th delay since the last reset is drawn uniformly from
// [b * (1 - jitter), b] with b = min(initial * factor^n, cap): the jitter
// keeps many callers that lost the same server from returning in lock step,
// and no delay exceeds `cap`. The base returns to `initial` when the caller
// calls Reset() (it saw the other side healthy, e.g. an event arrived) or
// when more than `reset_after` passed since the previous failure.
//
// Not thread-safe: one Backoff belongs to one retry loop.
#ifndef INFORMERD_RETRY_BACKOFF_H_
#define INFORMERD_RETRY_BACKOFF_H_

#include <functional>

#include "absl/time/time.h"

namespace informerd::retry {

// REQUIRES: ZeroDuration() < initial <= cap, factor >= 1, 0 <= jitter <= 1.
struct BackoffPolicy {
  absl::Duration initial = absl::Milliseconds(200);
  double factor = 2.0;
  absl::Duration cap = absl::Seconds(1);
  double jitter = 0.5;
  // InfiniteDuration(): only Reset() resets.
  absl::Duration reset_after = absl::InfiniteDuration();
};

class Backoff {
 public:
  // `now` and `uniform01` (a random double in [0, 1)) default to the real
  // clock and a real random source; tests inject their own.
  explicit Backoff(BackoffPolicy policy, std::function<absl::Time()> now = nullptr,
                   std::function<double()> uniform01 = nullptr);

  // Records a failure and returns how long to wait before the next attempt.
  absl::Duration NextDelay();

  // The next delay is drawn from the initial base again.
  void Reset();

 private:
  const BackoffPolicy policy_;
  const std::function<absl::Time()> now_;
  const std::function<double()> uniform01_;
  absl::Duration base_;
  absl::Time last_failure_ = absl::InfinitePast();
};

}  // namespace informerd::retry

#endif  // INFORMERD_RETRY_BACKOFF_H_
