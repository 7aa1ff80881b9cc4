// PendingListBudget: the bytes a leaf may hold, across all its resources, of
// its root's initial lists that have not reached their initial-events-end
// bookmark yet. A root that streams ADDED events and never that bookmark
// would otherwise grow the leaf's pending lists until it is killed.
//
// Each reader takes the bytes of every item it receives (its JSON and a
// fixed overhead per item) and gives them back when its list ends (its
// objects are then the cache's), when it abandons it, or when it stops. A
// take past the budget is refused, and the reader drops that list.
//
// Thread safety: thread-safe; shared by the readers of one upstream.
#ifndef INFORMERD_SERVER_TIER_PENDING_LIST_BUDGET_H_
#define INFORMERD_SERVER_TIER_PENDING_LIST_BUDGET_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace informerd::tier {

// What one initial list, and all of them together, may hold.
struct PendingListBounds {
  // Items of one resource's list (upstreamListMaxItems).
  size_t max_items = 1'000'000;
  // Bytes of all pending lists together (upstreamListMaxBytes, resolved).
  uint64_t max_bytes = uint64_t{4} << 30;
  // How max_bytes was chosen, for errors ("the flag", "half the memory
  // limit 1073741824 in /sys/fs/cgroup/memory.max").
  std::string why;
};

// What an item costs beyond its JSON: the cached Object, its key and
// index entries, the pending list's slot.
inline constexpr size_t kPendingItemOverhead = 256;

class PendingListBudget {
 public:
  explicit PendingListBudget(PendingListBounds bounds) : bounds_(std::move(bounds)) {}

  PendingListBudget(const PendingListBudget&) = delete;
  PendingListBudget& operator=(const PendingListBudget&) = delete;

  // Takes `bytes`; false (taking nothing) if that would pass max_bytes.
  bool TryTake(uint64_t bytes) {
    uint64_t held = held_.load(std::memory_order_relaxed);
    do {
      if (bytes > bounds_.max_bytes - std::min(held, bounds_.max_bytes)) return false;
    } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
    return true;
  }

  // Gives back bytes taken before.
  void Give(uint64_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }

  uint64_t held() const { return held_.load(std::memory_order_relaxed); }
  const PendingListBounds& bounds() const { return bounds_; }

 private:
  const PendingListBounds bounds_;
  std::atomic<uint64_t> held_{0};
};

}  // namespace informerd::tier

#endif  // INFORMERD_SERVER_TIER_PENDING_LIST_BUDGET_H_
