#include "server/limits/concurrency_limiter.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace informerd::limits {

ConcurrencyLimiter::Permit::Permit(ConcurrencyLimiter* limiter, std::string identity,
                                   size_t weight)
    : limiter_(limiter), identity_(std::move(identity)), weight_(weight) {}

ConcurrencyLimiter::Permit::Permit(Permit&& other) noexcept
    : limiter_(std::exchange(other.limiter_, nullptr)),
      identity_(std::move(other.identity_)),
      weight_(other.weight_) {}

ConcurrencyLimiter::Permit& ConcurrencyLimiter::Permit::operator=(Permit&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = std::exchange(other.limiter_, nullptr);
    identity_ = std::move(other.identity_);
    weight_ = other.weight_;
  }
  return *this;
}

ConcurrencyLimiter::Permit::~Permit() { Release(); }

void ConcurrencyLimiter::Permit::Release() {
  if (limiter_ != nullptr) std::exchange(limiter_, nullptr)->Release(identity_, weight_);
}

ConcurrencyLimiter::ConcurrencyLimiter(std::string what, size_t per_identity, size_t total)
    : what_(std::move(what)), per_identity_(per_identity), total_(total) {}

absl::StatusOr<ConcurrencyLimiter::Permit> ConcurrencyLimiter::Acquire(
    const std::string& identity, bool* per_identity_limited, size_t weight) {
  // Nothing to count (an empty list of initial events): a permit that
  // holds nothing, so no identity is tracked with a count of zero.
  if (weight == 0) return Permit();
  absl::MutexLock lock(&mu_);
  size_t& mine = by_identity_[identity];
  // Whatever its weight, a caller's first permit is granted (if the total
  // allows): one request larger than the budget must still be possible.
  if (mine > 0 && mine + weight > per_identity_) {
    if (per_identity_limited != nullptr) *per_identity_limited = true;
    return absl::ResourceExhaustedError(absl::StrCat("too many ", what_, " for \"", identity,
                                                     "\": the limit is ", per_identity_,
                                                     " per caller; close some and retry"));
  }
  if (in_use_ > 0 && in_use_ + weight > total_) {
    if (mine == 0) by_identity_.erase(identity);
    if (per_identity_limited != nullptr) *per_identity_limited = false;
    return absl::ResourceExhaustedError(absl::StrCat(
        "too many ", what_, " on this server: the limit is ", total_, "; retry later"));
  }
  mine += weight;
  in_use_ += weight;
  return Permit(this, identity, weight);
}

void ConcurrencyLimiter::Release(const std::string& identity, size_t weight) {
  absl::MutexLock lock(&mu_);
  in_use_ -= weight;
  auto found = by_identity_.find(identity);
  found->second -= weight;
  if (found->second == 0) by_identity_.erase(found);
}

size_t ConcurrencyLimiter::in_use() const {
  absl::MutexLock lock(&mu_);
  return in_use_;
}

}  // namespace informerd::limits
