// Event: one change to the cache, as kept in the history and sent to
// watchers.
#ifndef INFORMERD_SERVER_CACHE_EVENT_H_
#define INFORMERD_SERVER_CACHE_EVENT_H_

#include <cstdint>
#include <memory>

#include "absl/base/call_once.h"
#include "absl/time/time.h"
#include "server/cache/object.h"

namespace informerd::cache {

enum class EventType { kAdded, kModified, kDeleted };

// The previous object stamped with an event's version, built on first use
// and shared by every watcher that needs it (see WithResourceVersion).
class RestampedObject {
 public:
  RestampedObject(ObjectPtr source, uint64_t resource_version)
      : source_(std::move(source)), resource_version_(resource_version) {}
  const Object& Get();

 private:
  ObjectPtr source_;
  uint64_t resource_version_;
  absl::once_flag once_;
  ObjectPtr result_;
};

struct Event {
  EventType type = EventType::kAdded;
  // The object after the change; for kDeleted, its last known state.
  ObjectPtr object;
  // The object before the change; null for kAdded.
  ObjectPtr previous;
  // The cache's version once this event is applied. The events of one relist
  // all carry the list's version: they are applied together.
  uint64_t resource_version = 0;
  // What a watcher that has received this event may resume from. Equal to
  // resource_version, except inside a relist batch, where all but the last
  // event carry the version before the batch: a watcher cut off inside the
  // batch then receives the whole batch again rather than losing its tail.
  uint64_t resume_version = 0;
  // kModified only: `previous` as a watcher whose selector stops matching
  // sees it deleted.
  std::shared_ptr<RestampedObject> previous_as_deleted;
  // kDeleted learnt from a relist: `object` may not be the final state.
  bool final_state_unknown = false;
  absl::Time time;
};

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_EVENT_H_
