// SharedProcessor: an informer's cache writes and its handlers, as
// client-go's sharedProcessor. Each write changes the LocalCache and queues
// the change for every handler (ProcessorListener) under one lock, and a
// handler is registered under that same lock with a snapshot of the cache:
// so a handler added at any time is given every cached object as an add,
// then every later change, each exactly once and in order (the server's
// Informer does the same "check and register under one lock" for watchers).
//
// The writer never waits for a handler: each has its own queue and thread
// (see processor_listener.h for the queue's bound and what happens past it).
//
// Ownership: does not own the cache (it must outlive this); owns the
// listeners. Thread safety: thread-safe; the write methods are meant for
// one writer (the informer's thread), so that changes have one order.

#ifndef INFORMERD_CLIENT_CPP_SHARED_PROCESSOR_H_
#define INFORMERD_CLIENT_CPP_SHARED_PROCESSOR_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/cpp/event_handler.h"
#include "client/cpp/handler_registration.h"
#include "client/cpp/local_cache.h"
#include "client/cpp/processor_listener.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace client {

class SharedProcessor {
 public:
  // REQUIRES: cache outlives this; queue_limit >= 1.
  SharedProcessor(LocalCache* cache, size_t queue_limit);
  SharedProcessor(const SharedProcessor&) = delete;
  SharedProcessor& operator=(const SharedProcessor&) = delete;
  // Stop().
  ~SharedProcessor();

  // Stores object; handlers get an add for a new key, an update when the
  // resource_version differs from the stored one, nothing otherwise.
  void Upsert(informerd::v1::Object object);
  // Removes object's key; if it was cached, handlers get a delete carrying
  // `object` (the state the delete reported).
  void Remove(informerd::v1::Object object, bool final_state_unknown);
  // The informer's initial state is in the cache: handlers registered so
  // far become synced once they have been given it. Idempotent.
  void MarkSynced();

  // Registers handler (see the file comment). After Stop(), the handler is
  // never called and the registration never syncs.
  // REQUIRES: handler outlives its registration; resync_period >= 0.
  HandlerRegistration* AddHandler(EventHandler* handler,
                                  absl::Duration resync_period);

  // Unregisters and waits until the handler's running call, if any, has
  // returned; it is never called again, and registration is invalid.
  // NOT_FOUND if registration is not one of this processor's.
  // REQUIRES: not called from that handler.
  absl::Status RemoveHandler(HandlerRegistration* registration);

  // Stops every listener (dropping what they have queued) and waits until
  // no handler runs. Idempotent.
  // REQUIRES: not called from a handler.
  void Stop();

 private:
  Notification SnapshotLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void PushLocked(const Notification& n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  LocalCache* const cache_;
  const size_t queue_limit_;

  mutable absl::Mutex mu_;
  // Shared so that Stop() can stop them outside the lock while
  // RemoveHandler drops one.
  std::vector<std::shared_ptr<ProcessorListener>> listeners_
      ABSL_GUARDED_BY(mu_);
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_SHARED_PROCESSOR_H_
