#include "server/limits/concurrency_limiter.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace informerd::limits {

ConcurrencyLimiter::Permit::Permit(ConcurrencyLimiter* limiter, std::string identity)
    : limiter_(limiter), identity_(std::move(identity)) {}

ConcurrencyLimiter::Permit::Permit(Permit&& other) noexcept
    : limiter_(std::exchange(other.limiter_, nullptr)), identity_(std::move(other.identity_)) {}

ConcurrencyLimiter::Permit& ConcurrencyLimiter::Permit::operator=(Permit&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = std::exchange(other.limiter_, nullptr);
    identity_ = std::move(other.identity_);
  }
  return *this;
}

ConcurrencyLimiter::Permit::~Permit() { Release(); }

void ConcurrencyLimiter::Permit::Release() {
  if (limiter_ != nullptr) std::exchange(limiter_, nullptr)->Release(identity_);
}

ConcurrencyLimiter::ConcurrencyLimiter(std::string what, size_t per_identity, size_t total)
    : what_(std::move(what)), per_identity_(per_identity), total_(total) {}

absl::StatusOr<ConcurrencyLimiter::Permit> ConcurrencyLimiter::Acquire(
    const std::string& identity, bool* per_identity_limited) {
  absl::MutexLock lock(&mu_);
  size_t& mine = by_identity_[identity];
  if (mine >= per_identity_) {
    if (per_identity_limited != nullptr) *per_identity_limited = true;
    return absl::ResourceExhaustedError(absl::StrCat("too many ", what_, " for \"", identity,
                                                     "\": the limit is ", per_identity_,
                                                     " per caller; close some and retry"));
  }
  if (in_use_ >= total_) {
    if (mine == 0) by_identity_.erase(identity);
    if (per_identity_limited != nullptr) *per_identity_limited = false;
    return absl::ResourceExhaustedError(absl::StrCat(
        "too many ", what_, " on this server: the limit is ", total_, "; retry later"));
  }
  ++mine;
  ++in_use_;
  return Permit(this, identity);
}

void ConcurrencyLimiter::Release(const std::string& identity) {
  absl::MutexLock lock(&mu_);
  --in_use_;
  auto found = by_identity_.find(identity);
  if (--found->second == 0) by_identity_.erase(found);
}

size_t ConcurrencyLimiter::in_use() const {
  absl::MutexLock lock(&mu_);
  return in_use_;
}

}  // namespace informerd::limits
