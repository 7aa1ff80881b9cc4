// Backoff: how long to wait before retrying a failed LIST or WATCH.
//
// Follows client-go's reflector backoff so informerd loads an unhealthy API
// server the way operators expect: the base delay starts at `initial`, is
// multiplied by `factor` per failure up to `cap`, and each wait adds a random
// jitter of up to `jitter` times the base. If `reset_after` passes between two
// failures the component is considered healthy again and the base resets.
//
// Not thread-safe: one Backoff belongs to one retry loop.
#ifndef INFORMERD_SERVER_KUBE_BACKOFF_H_
#define INFORMERD_SERVER_KUBE_BACKOFF_H_

#include <functional>

#include "absl/time/time.h"

namespace informerd::kube {

struct BackoffPolicy {
  absl::Duration initial = absl::Milliseconds(800);
  double factor = 2.0;
  absl::Duration cap = absl::Seconds(30);
  double jitter = 1.0;
  absl::Duration reset_after = absl::Minutes(2);
};

class Backoff {
 public:
  // `now` and `uniform01` (a random double in [0, 1)) default to the real
  // clock and a real random source; tests inject their own.
  explicit Backoff(BackoffPolicy policy,
                   std::function<absl::Time()> now = nullptr,
                   std::function<double()> uniform01 = nullptr);

  // Records a failure and returns how long to wait before the next attempt.
  absl::Duration NextDelay();

 private:
  const BackoffPolicy policy_;
  const std::function<absl::Time()> now_;
  const std::function<double()> uniform01_;
  absl::Duration base_;
  absl::Time last_failure_ = absl::InfinitePast();
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_BACKOFF_H_
