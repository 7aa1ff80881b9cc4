// ComputeRelistDiff: the events that turn the cache into a fresh list.
//
// After a 410 or a broken watch that cannot resume, the Reflector lists the
// resource again. Instead of cutting every watcher off (the apiserver cacher
// terminates them all), informerd emits exactly the events that explain the
// difference: kAdded for new keys, kModified for changed resourceVersions,
// and kDeleted with final_state_unknown and the last known object for keys
// that vanished. An object deleted and recreated under the same name (a new
// uid) is a kDeleted followed by a kAdded.
#ifndef INFORMERD_SERVER_CACHE_RELIST_DIFF_H_
#define INFORMERD_SERVER_CACHE_RELIST_DIFF_H_

#include <cstdint>
#include <vector>

#include "absl/time/time.h"
#include "server/cache/event.h"
#include "server/cache/object_store.h"

namespace informerd::cache {

// `listed`: the new list, any order, unique keys. The events are in key
// order; all carry resource_version = list_version, and resume_version =
// previous_version except the last, which carries list_version.
std::vector<Event> ComputeRelistDiff(const ObjectStore& store,
                                     const std::vector<ObjectPtr>& listed,
                                     uint64_t previous_version,
                                     uint64_t list_version, absl::Time now);

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_RELIST_DIFF_H_
