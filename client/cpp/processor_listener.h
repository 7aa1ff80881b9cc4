// ProcessorListener: one handler's own queue and thread, as client-go's
// processorListener, so that a slow handler delays neither the other
// handlers nor the informer's reading of its stream.
//
// The SharedProcessor pushes each change of the cache (and the moment the
// informer synced) under its lock; Push never waits for the handler. The
// listener's thread calls the handler, one call at a time, in push order.
//
// The queue is bounded (SharedProcessor's queue_limit). Past the bound the
// listener does not block the informer and does not lose a change: its
// queue is replaced by one snapshot of the cache, taken under the same lock
// as the change that overflowed it, and the thread turns the snapshot into
// the difference from what this handler was last told (its view): adds,
// updates (old = the version this handler last saw), and deletes with
// final_state_unknown, in key order. The handler then misses intermediate
// versions, exactly as after a relist, which handlers must tolerate anyway.
// A handler added late starts the same way, from an empty view, so it is
// given every cached object as an add before any live change.
//
// Resync: resync_period after this handler has synced, and then
// resync_period after each resync ends, it is called with OnUpdate(obj, obj)
// for every object of its view (the cache as of the last change it was
// given), between two queued changes; nothing is listed, and no other
// handler sees it. (client-go's resync sends the indexer's current objects;
// the view is the same cache at this handler's position in the stream, so
// old is always what this handler was last told.)
//
// Memory: the view holds one key and one shared pointer per object (the
// objects themselves are shared with the cache), plus at most queue_limit
// queued changes and one snapshot.
//
// Thread safety: thread-safe. Lock order: the SharedProcessor's lock before
// this listener's.

#ifndef INFORMERD_CLIENT_CPP_PROCESSOR_LISTENER_H_
#define INFORMERD_CLIENT_CPP_PROCESSOR_LISTENER_H_

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/cpp/event_handler.h"
#include "client/cpp/handler_registration.h"
#include "client/cpp/local_cache.h"

namespace informerd {
namespace client {

// The cache's objects (ordered by key) and whether the informer had synced
// when they were taken.
struct CacheSnapshot {
  std::vector<CachedObjectPtr> objects;
  bool informer_synced = false;
};

// One entry of a listener's queue.
struct Notification {
  enum class Type { kAdd, kUpdate, kDelete, kSnapshot, kSynced };
  Type type;
  // kUpdate, kDelete: the object before (kDelete: as the delete carried it).
  CachedObjectPtr old_object;
  // kAdd, kUpdate: the object stored.
  CachedObjectPtr new_object;
  // kDelete.
  bool final_state_unknown = false;
  // kSnapshot.
  std::shared_ptr<const CacheSnapshot> snapshot;
};

class ProcessorListener : public HandlerRegistration {
 public:
  // Starts the thread, with `first` (a kSnapshot) queued.
  // REQUIRES: handler outlives this listener; queue_limit >= 1;
  // resync_period >= 0 (zero: no resync).
  ProcessorListener(EventHandler* handler, absl::Duration resync_period,
                    size_t queue_limit, Notification first);
  ProcessorListener(const ProcessorListener&) = delete;
  ProcessorListener& operator=(const ProcessorListener&) = delete;
  // Stop().
  ~ProcessorListener() override;

  // Queues n; false, queueing nothing, if the queue is at its limit (the
  // caller then calls Reset with a snapshot).
  bool TryPush(Notification n);
  // Replaces the queue with n (a kSnapshot).
  void Reset(Notification n);

  // Drops what is queued and waits until the handler call running, if any,
  // has returned; the handler is never called again. Idempotent.
  // REQUIRES: not called from this listener's handler.
  void Stop();

  bool HasSynced() const override;
  bool WaitForSynced(absl::Duration timeout) const override;

 private:
  void Run();
  void Deliver(const Notification& n);
  void DeliverSnapshot(const CacheSnapshot& snapshot);
  void Resync();
  bool Stopping() const;
  void MarkSynced();

  EventHandler* const handler_;
  const absl::Duration resync_period_;
  const size_t queue_limit_;

  // What the handler has been told: only the listener's thread uses it.
  std::map<std::string, CachedObjectPtr, std::less<>> view_;

  mutable absl::Mutex mu_;
  std::deque<Notification> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time next_resync_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();

  std::thread thread_;
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_PROCESSOR_LISTENER_H_
