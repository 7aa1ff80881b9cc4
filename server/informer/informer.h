// Informer: the cache of one resource, fed by a Reflector, read by List, Get
// and Watch.
//
// The Informer owns the ObjectStore (current objects and indexes) and the
// EventHistory (recent events), and keeps them consistent: each upstream
// event updates both under one lock, so a reader sees a store and a history
// that agree on one resourceVersion. A relist is turned into the events that
// explain it (ComputeRelistDiff), so watchers are never cut off by one.
//
// Watchers pull: a watcher reads the history from its own position and, once
// caught up, registers a Waiter; a dispatcher thread wakes waiters when
// events arrive (and once a second, so they can send bookmarks). The history
// is the only buffer: a slow watcher holds a position, not a queue, and the
// upstream reader never waits for any watcher.
//
// Thread safety: all public methods are thread-safe. ListWatchSink methods
// are called from one Reflector thread. Lock order: mu_ before waiters_mu_;
// callers (WatchStream) may hold their own lock when calling in, never the
// reverse (see watch_stream.h). Waiters are woken with no lock held.
#ifndef INFORMERD_SERVER_INFORMER_INFORMER_H_
#define INFORMERD_SERVER_INFORMER_INFORMER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/cache/event_history.h"
#include "server/cache/filter.h"
#include "server/cache/object_builder.h"
#include "server/cache/object_store.h"
#include "server/kube/list_watch_sink.h"

namespace informerd::informer {

struct InformerOptions {
  cache::ObjectSchema schema;
  cache::HistoryLimits history;
  // How often waiting watchers are woken without events (for bookmarks).
  absl::Duration tick = absl::Seconds(1);
};

// A watcher waiting for events. Wake is called at most once per
// registration, from the dispatcher thread; it must not block.
class Waiter {
 public:
  virtual ~Waiter() = default;
  virtual void Wake() = 0;
};

struct InformerStats {
  bool synced = false;
  uint64_t resource_version = 0;
  uint64_t oldest_resource_version = 0;
  size_t objects = 0;
  size_t object_bytes = 0;
  size_t history_events = 0;
  uint64_t events_received = 0;
  uint64_t events_rejected = 0;
  uint64_t relists = 0;
  uint64_t relist_events = 0;
  size_t waiting_watchers = 0;
};

class Informer : public kube::ListWatchSink {
 public:
  explicit Informer(InformerOptions options);
  ~Informer() override;

  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // kube::ListWatchSink.
  void OnListStart() override;
  void OnListItem(rapidjson::Value& object) override;
  void OnListEnd(std::string_view resource_version) override;
  void OnWatchEvent(kube::WatchEventType type, rapidjson::Value& object) override;
  void OnBookmark(std::string_view resource_version) override;

  // True once the first full list is in the cache (client-go's HasSynced).
  bool synced() const;

  // Calls `callback` once the informer is synced: at once if it is, else on
  // the Reflector thread right after the first list is in the cache, with
  // no lock held. It must not call back into NotifyWhenSynced.
  void NotifyWhenSynced(std::function<void()> callback);
  uint64_t resource_version() const;
  InformerStats stats() const;

  // Blocks until the cache has reached `version` (and is synced); false if
  // `timeout` passed first.
  bool WaitForVersion(uint64_t version, absl::Duration timeout) const;

  // WaitForVersion without a thread: calls `reached` once the informer is
  // synced and at `version` at least, at once (on this thread) if it is,
  // else on the Reflector thread right after the change that reaches it,
  // with no lock held. `reached` must be quick and must not call back into
  // NotifyAtVersion or CancelVersionNotification. Returns 0 when called at
  // once, else an id for CancelVersionNotification.
  uint64_t NotifyAtVersion(uint64_t version, std::function<void()> reached);
  // Forgets a pending notification; nothing if it ran or was forgotten.
  void CancelVersionNotification(uint64_t id);

  // The object under `key` (null if absent) and the version it was read at.
  std::pair<cache::ObjectPtr, uint64_t> Get(std::string_view key) const;

  struct Page {
    std::vector<cache::ObjectPtr> items;
    uint64_t resource_version = 0;
    // Set when more matching objects follow the last item.
    bool more = false;
  };
  // Matching objects in key order after `after_key`, as of `at_version`
  // (0: the latest), stopping at `limit` items (0: no limit) or once
  // `max_bytes` of objects are collected (at least one item is returned).
  // OUT_OF_RANGE when `at_version` is older than the history.
  absl::StatusOr<Page> List(const cache::Filter& filter, uint64_t at_version,
                                std::string_view after_key, size_t limit,
                                size_t max_bytes) const;

  // The history position from which a watcher resuming after `version`
  // reads. OUT_OF_RANGE "too old resource version" when evicted.
  absl::StatusOr<uint64_t> WatchPosition(uint64_t version) const;

  // The matching objects and the version and history position they were
  // read at, atomically: WatchList's initial events.
  struct InitialState {
    std::vector<cache::ObjectPtr> objects;
    uint64_t resource_version = 0;
    uint64_t position = 0;
  };
  InitialState Snapshot(const cache::Filter& filter) const;

  // Copies of the events after `from_version` through `through_version`:
  // what a history backfill takes from the temporary Informer it fed from
  // the API server. OUT_OF_RANGE when the history no longer reaches back to
  // `from_version`.
  absl::StatusOr<std::vector<cache::Event>> EventsBetween(uint64_t from_version,
                                                          uint64_t through_version) const;

  // Puts `older`, every event of this resource after `from_version` through
  // `through_version` as the API server has them (EventsBetween of a
  // backfill), before the history's oldest event, so that watchers may
  // resume from `from_version`. Events the history holds already are
  // skipped. UNAVAILABLE when `through_version` falls short of the
  // history's oldest version (the events between would be missing) or the
  // history has no room for them.
  absl::Status PrependHistory(std::vector<cache::Event> older, uint64_t from_version,
                              uint64_t through_version);

  enum class ReadResult { kEvent, kCaughtUp, kTooOld };
  // Copies the event at `position` into `event`. When caught up (no event
  // there yet), sets `*version` to the cache's version and, if `waiter` is
  // set, registers it atomically with the check, so no event is missed.
  ReadResult Read(uint64_t position, cache::Event* event, uint64_t* version,
                  const std::shared_ptr<Waiter>& waiter) const;

 private:
  void Append(cache::Event event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Returns whether an event was appended to the history.
  bool ApplyWatchEvent(kube::WatchEventType type, absl::StatusOr<cache::ObjectPtr> built)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SignalDispatcher();
  // The version notifications now due, removed from version_waits_.
  std::vector<std::function<void()>> TakeReachedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DispatchLoop();
  absl::Status TooOld(uint64_t version) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const InformerOptions options_;

  mutable absl::Mutex mu_;
  cache::ObjectStore store_ ABSL_GUARDED_BY(mu_);
  cache::EventHistory history_ ABSL_GUARDED_BY(mu_);
  uint64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  InformerStats counters_ ABSL_GUARDED_BY(mu_);

  // Callbacks waiting for the first sync; run and cleared by OnListEnd.
  std::vector<std::function<void()>> on_synced_ ABSL_GUARDED_BY(mu_);
  struct VersionWait {
    uint64_t id;
    std::function<void()> reached;
  };
  // NotifyAtVersion's callbacks by the version they wait for. Few: every
  // caller bounds its waiting reads.
  std::multimap<uint64_t, VersionWait> version_waits_ ABSL_GUARDED_BY(mu_);
  uint64_t next_wait_id_ ABSL_GUARDED_BY(mu_) = 1;

  // Only the Reflector thread touches the list being assembled.
  std::vector<cache::ObjectPtr> pending_list_;

  mutable absl::Mutex waiters_mu_ ABSL_ACQUIRED_AFTER(mu_);
  mutable std::vector<std::weak_ptr<Waiter>> waiters_ ABSL_GUARDED_BY(waiters_mu_);
  bool wake_pending_ ABSL_GUARDED_BY(waiters_mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(waiters_mu_) = false;
  std::thread dispatcher_;
};

}  // namespace informerd::informer

#endif  // INFORMERD_SERVER_INFORMER_INFORMER_H_
