#include "client/cpp/backoff.h"

#include <algorithm>

namespace informerd {
namespace client {

Backoff::Backoff(absl::Duration initial, absl::Duration max)
    : initial_(initial), max_(max), current_(initial) {}

absl::Duration Backoff::NextDelay() {
  double fraction = absl::Uniform(absl::IntervalClosed, random_, 0.5, 1.0);
  absl::Duration delay = current_ * fraction;
  current_ = std::min(current_ * 2, max_);
  return delay;
}

void Backoff::Reset() { current_ = initial_; }

}  // namespace client
}  // namespace informerd
