#include "retry/backoff.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/random/random.h"
#include "absl/time/clock.h"

namespace informerd::retry {
namespace {

std::function<double()> RealUniform01() {
  auto bitgen = std::make_shared<absl::BitGen>();
  return [bitgen] { return absl::Uniform<double>(*bitgen, 0.0, 1.0); };
}

}  // namespace

Backoff::Backoff(BackoffPolicy policy, std::function<absl::Time()> now,
                 std::function<double()> uniform01)
    : policy_(policy),
      now_(now ? std::move(now) : std::function<absl::Time()>(&absl::Now)),
      uniform01_(uniform01 ? std::move(uniform01) : RealUniform01()),
      base_(std::min(policy.initial, policy.cap)) {}

absl::Duration Backoff::NextDelay() {
  const absl::Time now = now_();
  if (policy_.reset_after != absl::InfiniteDuration() &&
      now - last_failure_ > policy_.reset_after) {
    Reset();
  }
  last_failure_ = now;
  const absl::Duration base = base_;
  base_ = std::min(base_ * policy_.factor, policy_.cap);
  return base - base * (policy_.jitter * uniform01_());
}

void Backoff::Reset() { base_ = std::min(policy_.initial, policy_.cap); }

}  // namespace informerd::retry
