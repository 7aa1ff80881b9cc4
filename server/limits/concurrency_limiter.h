// ConcurrencyLimiter: caps how many of one kind of call (open Watch streams,
// in-flight Lists) run at once, per caller identity and in total, so one
// caller cannot starve the others.
//
// A Permit holds its slots (one, or `weight` for things counted in bytes,
// such as the initial events a WatchList holds) until it is destroyed; a
// caller's first permit is granted whatever its weight, so one request
// larger than the per-caller limit stays possible. A refusal is
// RESOURCE_EXHAUSTED naming the limit; it never affects calls already
// admitted or other identities below their own limit.
//
// Thread safety: thread-safe. Permits must not outlive their limiter.
#ifndef INFORMERD_SERVER_LIMITS_CONCURRENCY_LIMITER_H_
#define INFORMERD_SERVER_LIMITS_CONCURRENCY_LIMITER_H_

#include <string>
#include <unordered_map>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace informerd::limits {

class ConcurrencyLimiter {
 public:
  class Permit {
   public:
    Permit() = default;
    Permit(Permit&& other) noexcept;
    Permit& operator=(Permit&& other) noexcept;
    ~Permit();

   private:
    friend class ConcurrencyLimiter;
    Permit(ConcurrencyLimiter* limiter, std::string identity, size_t weight);
    void Release();

    ConcurrencyLimiter* limiter_ = nullptr;
    std::string identity_;
    size_t weight_ = 0;
  };

  // `what` names the calls in messages, e.g. "concurrent Watch streams".
  // REQUIRES: per_identity > 0, total > 0.
  ConcurrencyLimiter(std::string what, size_t per_identity, size_t total);

  // A slot for `identity`, or RESOURCE_EXHAUSTED. `*per_identity_limited`
  // (if given) says which limit refused.
  absl::StatusOr<Permit> Acquire(const std::string& identity,
                                 bool* per_identity_limited = nullptr, size_t weight = 1);

  size_t in_use() const;

 private:
  void Release(const std::string& identity, size_t weight);

  const std::string what_;
  const size_t per_identity_;
  const size_t total_;
  mutable absl::Mutex mu_;
  size_t in_use_ ABSL_GUARDED_BY(mu_) = 0;
  std::unordered_map<std::string, size_t> by_identity_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::limits

#endif  // INFORMERD_SERVER_LIMITS_CONCURRENCY_LIMITER_H_
