#include "server/limits/rate_limiter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace informerd::limits {
namespace {

// Past this many tracked identities, idle ones are dropped.
constexpr size_t kMaxTrackedIdentities = 10000;

}  // namespace

RateLimiter::RateLimiter(RateLimits limits, std::function<absl::Time()> now)
    : limits_(limits), now_(std::move(now)), total_{limits.total_burst, now_()} {}

void RateLimiter::Refill(Bucket* bucket, double rate, double burst, absl::Time now) {
  double elapsed = absl::ToDoubleSeconds(now - bucket->updated);
  if (elapsed > 0) bucket->tokens = std::min(burst, bucket->tokens + elapsed * rate);
  bucket->updated = std::max(bucket->updated, now);
}

absl::Status RateLimiter::Admit(const std::string& identity, bool* per_identity_limited) {
  absl::Time now = now_();
  absl::MutexLock lock(&mu_);
  if (by_identity_.size() >= kMaxTrackedIdentities) ForgetIdleIdentities(now);
  auto [it, inserted] = by_identity_.try_emplace(identity, Bucket{limits_.per_identity_burst, now});
  Bucket& mine = it->second;
  Refill(&mine, limits_.per_identity_per_second, limits_.per_identity_burst, now);
  Refill(&total_, limits_.total_per_second, limits_.total_burst, now);
  if (mine.tokens < 1) {
    if (per_identity_limited != nullptr) *per_identity_limited = true;
    return absl::ResourceExhaustedError(
        absl::StrCat(limits_.what, " rate of ", identity, " is over its limit of ",
                     limits_.per_identity_per_second, "/s; slow down and retry"));
  }
  if (total_.tokens < 1) {
    if (per_identity_limited != nullptr) *per_identity_limited = false;
    return absl::ResourceExhaustedError(
        absl::StrCat("informerd's total ", limits_.what, " rate is over its limit of ",
                     limits_.total_per_second, "/s; retry shortly"));
  }
  mine.tokens -= 1;
  total_.tokens -= 1;
  return absl::OkStatus();
}

void RateLimiter::ForgetIdleIdentities(absl::Time now) {
  for (auto it = by_identity_.begin(); it != by_identity_.end();) {
    Refill(&it->second, limits_.per_identity_per_second, limits_.per_identity_burst, now);
    if (it->second.tokens >= limits_.per_identity_burst) {
      it = by_identity_.erase(it);
    } else {
      ++it;
    }
  }
}

size_t RateLimiter::tracked_identities() const {
  absl::MutexLock lock(&mu_);
  return by_identity_.size();
}

}  // namespace informerd::limits
