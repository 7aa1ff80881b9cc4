// DiffRelist: what changed between a client's cache and a fresh full listing.
//
// After a watch is cut (history exceeded, too old resource version) the
// informer lists again. Replaying every listed object as an add would tell
// handlers about objects they already know and never about the ones that
// vanished meanwhile; the diff tells them exactly what changed. Pure, so the
// informer's reconcile step can be tested without a server.

#ifndef INFORMERD_CLIENT_CPP_RELIST_DIFF_H_
#define INFORMERD_CLIENT_CPP_RELIST_DIFF_H_

#include <vector>

#include "client/cpp/local_cache.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace client {

struct CacheChange {
  enum class Type { kAdd, kUpdate, kDelete };
  Type type;
  // kUpdate, kDelete: the cached object. kAdd: nullptr.
  CachedObjectPtr old_object;
  // kAdd, kUpdate: the listed object. kDelete: unset.
  informerd::v1::Object new_object;
};

// Adds for listed keys not cached, updates for listed keys whose
// resource_version differs from the cached one (both in listed order), then
// deletes for cached keys not listed (in cached order). Unchanged objects
// yield nothing. If a key is listed twice, the later listing wins. A listed
// key whose uid differs from the cached one was deleted and recreated while
// the watch was down: a kDelete of the cached object, then a kAdd, never a
// kUpdate between two different objects (as informerd reports it).
std::vector<CacheChange> DiffRelist(const std::vector<CachedObjectPtr>& cached,
                                    std::vector<informerd::v1::Object> listed);

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_RELIST_DIFF_H_
