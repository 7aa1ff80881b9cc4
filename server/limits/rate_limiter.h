// RateLimiter: token buckets that cap request rates per caller identity and
// in total, so one caller's request loop cannot starve the others.
//
// Each bucket refills continuously at its rate up to its burst. A refusal is
// RESOURCE_EXHAUSTED naming the limit and costs the caller nothing. Idle
// identities (full buckets) are forgotten once many are tracked, so memory
// stays bounded whatever identities callers present.
//
// Thread safety: thread-safe.
#ifndef INFORMERD_SERVER_LIMITS_RATE_LIMITER_H_
#define INFORMERD_SERVER_LIMITS_RATE_LIMITER_H_

#include <functional>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace informerd::limits {

struct RateLimits {
  double per_identity_per_second = 200;
  double per_identity_burst = 400;
  double total_per_second = 5000;
  double total_burst = 10000;
  // What is counted, for messages: "request rate of X is over its limit".
  std::string what = "request";
};

// The default bounds on TokenReviews for tokens not in the Authorizer's
// caches, per lane (tokens never accepted; tokens accepted before) and in
// total (RequestLimits::token_reviews).
inline RateLimits DefaultTokenReviewLimits() {
  return {.per_identity_per_second = 50,
          .per_identity_burst = 100,
          .total_per_second = 100,
          .total_burst = 200,
          .what = "TokenReview"};
}

// The default bounds on TokenReviews of tokens the service account issuer
// signed (checked locally), per subject (service account) and in total
// (RequestLimits::signed_token_reviews): after a rollout every client's
// token is new to the new pods, and each service account's clients are
// reviewed at once, whatever made-up tokens arrive beside them.
inline RateLimits DefaultSignedTokenReviewLimits() {
  return {.per_identity_per_second = 20,
          .per_identity_burst = 50,
          .total_per_second = 500,
          .total_burst = 1000,
          .what = "TokenReview"};
}

class RateLimiter {
 public:
  // `now` is the clock (tests inject one).
  // REQUIRES: every rate and burst > 0.
  explicit RateLimiter(RateLimits limits, std::function<absl::Time()> now = absl::Now);

  // Takes one request from `identity`'s bucket and the total bucket, or
  // RESOURCE_EXHAUSTED. `*per_identity_limited` (if given) says which one
  // refused.
  absl::Status Admit(const std::string& identity, bool* per_identity_limited = nullptr);

  size_t tracked_identities() const;

 private:
  struct Bucket {
    double tokens;
    absl::Time updated;
  };
  static void Refill(Bucket* bucket, double rate, double burst, absl::Time now);
  void ForgetIdleIdentities(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RateLimits limits_;
  const std::function<absl::Time()> now_;
  mutable absl::Mutex mu_;
  Bucket total_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<std::string, Bucket> by_identity_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::limits

#endif  // INFORMERD_SERVER_LIMITS_RATE_LIMITER_H_
