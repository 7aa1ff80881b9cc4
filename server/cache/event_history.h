// EventHistory: the recent events of one resource, for watchers to resume
// from and to catch up from.
//
// Like the kube-apiserver's watch cache, the history keeps the events of a
// time window (default 75 s), never fewer than min_events nor more than
// max_events. Events are numbered by a sequence that only grows, so a
// watcher's position survives evictions: a position older than the oldest
// kept event has fallen off the history. Positions start high, so that
// events older than the first may still be put in front of it (Prepend:
// a backfill from the API server after a restart).
//
// Thread safety: none; the Informer serializes access.
#ifndef INFORMERD_SERVER_CACHE_EVENT_HISTORY_H_
#define INFORMERD_SERVER_CACHE_EVENT_HISTORY_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "server/cache/event.h"

namespace informerd::cache {

struct HistoryLimits {
  absl::Duration window = absl::Seconds(75);
  size_t min_events = 100;
  size_t max_events = 102400;
};

class EventHistory {
 public:
  // `start_version`: the version the history begins at (before any event).
  EventHistory(HistoryLimits limits, uint64_t start_version);

  // REQUIRES: event.resource_version is not below the last appended one.
  // Appends and evicts what the limits no longer keep (`now` is the clock).
  void Append(Event event, absl::Time now);

  // Forgets every event and starts over at `start_version`; positions taken
  // before fall off. Used when the resource is rebuilt from scratch.
  void Reset(uint64_t start_version);

  // Puts `older`, the events between `from_version` and oldest_version(),
  // before the oldest kept event, so that watchers may resume from
  // `from_version`; positions already taken keep their events. Returns false
  // and changes nothing when they would not fit: more than max_events in
  // all, or no room left below first_position().
  // REQUIRES: `older` ascends by resource_version, each within
  // (from_version, oldest_version()], and is every event of that range.
  bool Prepend(std::vector<Event> older, uint64_t from_version);

  // The position of the first event after `version`, or nullopt if events
  // after `version` were already evicted ("too old resource version").
  std::optional<uint64_t> PositionAfter(uint64_t version) const;

  // The event at `position`, or null if it was evicted or not yet appended.
  const Event* At(uint64_t position) const;

  // Position one past the newest event.
  uint64_t end_position() const { return first_position_ + events_.size(); }
  uint64_t first_position() const { return first_position_; }

  // The oldest version a watcher may resume from.
  uint64_t oldest_version() const { return oldest_version_; }
  size_t size() const { return events_.size(); }

 private:
  void Evict(absl::Time now);

  HistoryLimits limits_;
  std::deque<Event> events_;
  uint64_t first_position_ = uint64_t{1} << 48;
  // Version before the oldest kept event: resuming from it or later is safe.
  uint64_t oldest_version_;
};

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_EVENT_HISTORY_H_
