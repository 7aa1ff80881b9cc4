// TtlCache: a bounded map from string keys to values that expire.
//
// Entries are found until their expiry time; when full, inserting a new key
// evicts the least recently used entry, so the size never exceeds the
// capacity. Callers pass the current time, which keeps tests free of clocks.
//
// Thread safety: thread-safe.
#ifndef INFORMERD_SERVER_AUTH_TTL_CACHE_H_
#define INFORMERD_SERVER_AUTH_TTL_CACHE_H_

#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace informerd::auth {

template <typename Value>
class TtlCache {
 public:
  // REQUIRES: capacity > 0.
  explicit TtlCache(size_t capacity) : capacity_(capacity) {}

  // The value stored for `key` if it has not expired at `now`.
  std::optional<Value> Get(const std::string& key, absl::Time now) {
    absl::MutexLock lock(&mu_);
    auto found = entries_.find(key);
    if (found == entries_.end()) return std::nullopt;
    if (found->second.expires <= now) {
      recency_.erase(found->second.recency);
      entries_.erase(found);
      return std::nullopt;
    }
    recency_.splice(recency_.begin(), recency_, found->second.recency);
    return found->second.value;
  }

  // Stores `value` for `key` until `expires`, replacing any earlier value.
  void Put(const std::string& key, Value value, absl::Time expires) {
    absl::MutexLock lock(&mu_);
    auto found = entries_.find(key);
    if (found != entries_.end()) {
      found->second.value = std::move(value);
      found->second.expires = expires;
      recency_.splice(recency_.begin(), recency_, found->second.recency);
      return;
    }
    if (entries_.size() >= capacity_) {
      entries_.erase(recency_.back());
      recency_.pop_back();
    }
    recency_.push_front(key);
    entries_.emplace(key, Entry{std::move(value), expires, recency_.begin()});
  }

  // Forgets `key`, if stored.
  void Erase(const std::string& key) {
    absl::MutexLock lock(&mu_);
    auto found = entries_.find(key);
    if (found == entries_.end()) return;
    recency_.erase(found->second.recency);
    entries_.erase(found);
  }

  size_t size() const {
    absl::MutexLock lock(&mu_);
    return entries_.size();
  }

 private:
  struct Entry {
    Value value;
    absl::Time expires;
    std::list<std::string>::iterator recency;
  };

  const size_t capacity_;
  mutable absl::Mutex mu_;
  // Most recently used first.
  std::list<std::string> recency_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_TTL_CACHE_H_
