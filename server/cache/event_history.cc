#include "server/cache/event_history.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace informerd::cache {

EventHistory::EventHistory(HistoryLimits limits, uint64_t start_version)
    : limits_(limits), oldest_version_(start_version) {}

void EventHistory::Append(Event event, absl::Time now) {
  events_.push_back(std::move(event));
  Evict(now);
}

void EventHistory::Reset(uint64_t start_version) {
  first_position_ += events_.size();
  events_.clear();
  oldest_version_ = start_version;
}

bool EventHistory::Prepend(std::vector<Event> older, uint64_t from_version) {
  if (older.size() > first_position_ || events_.size() + older.size() > limits_.max_events) {
    return false;
  }
  first_position_ -= older.size();
  events_.insert(events_.begin(), std::make_move_iterator(older.begin()),
                 std::make_move_iterator(older.end()));
  oldest_version_ = std::min(oldest_version_, from_version);
  return true;
}

void EventHistory::Evict(absl::Time now) {
  while (!events_.empty()) {
    bool over_max = events_.size() > limits_.max_events;
    bool expired = events_.size() > limits_.min_events &&
                   now - events_.front().time > limits_.window;
    if (!over_max && !expired) break;
    // A relist batch shares one version: evicting part of it would leave a
    // resume point inside the batch that no longer sees all of it.
    uint64_t evicted_version = events_.front().resource_version;
    while (!events_.empty() && events_.front().resource_version == evicted_version) {
      events_.pop_front();
      ++first_position_;
    }
    oldest_version_ = evicted_version;
  }
}

std::optional<uint64_t> EventHistory::PositionAfter(uint64_t version) const {
  if (version < oldest_version_) return std::nullopt;
  auto it = std::upper_bound(
      events_.begin(), events_.end(), version,
      [](uint64_t v, const Event& event) { return v < event.resource_version; });
  return first_position_ + static_cast<uint64_t>(it - events_.begin());
}

const Event* EventHistory::At(uint64_t position) const {
  if (position < first_position_ || position >= end_position()) return nullptr;
  return &events_[position - first_position_];
}

}  // namespace informerd::cache
