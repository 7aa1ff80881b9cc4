// LocalCache: a client's copy of the objects of one resource, keyed by
// namespace/name, with secondary indexes.
//
// Objects are immutable once stored and handed out as shared_ptr<const>, so a
// reader keeps a consistent object however long it holds it. Thread-safe:
// readers share a lock, writers are exclusive. A RemoteInformer is the writer;
// users read through RemoteInformer::Lister().

#ifndef INFORMERD_CLIENT_CPP_LOCAL_CACHE_H_
#define INFORMERD_CLIENT_CPP_LOCAL_CACHE_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace client {

struct CachedObject {
  informerd::v1::Object object;
};

using CachedObjectPtr = std::shared_ptr<const CachedObject>;

// The values an object is filed under in one index; may be empty.
using IndexFunc =
    std::function<std::vector<std::string>(const informerd::v1::Object&)>;

// "namespace/name", or "name" for a cluster-scoped object.
std::string ObjectKey(absl::string_view object_namespace,
                      absl::string_view name);

class LocalCache {
 public:
  // Built in: files each object under its namespace ("" if cluster-scoped).
  static constexpr char kNamespaceIndex[] = "namespace";

  LocalCache();
  LocalCache(const LocalCache&) = delete;
  LocalCache& operator=(const LocalCache&) = delete;

  // Adds an index and files the objects already stored under it.
  // ALREADY_EXISTS if the name is taken.
  // REQUIRES: index_func is deterministic (an object is removed from the
  // values it returns) and does not call back into this cache.
  absl::Status AddIndex(const std::string& index_name, IndexFunc index_func);

  // nullptr when absent.
  CachedObjectPtr Get(absl::string_view object_namespace,
                      absl::string_view name) const;

  // The objects whose labels match label_selector, ordered by key, in full
  // Kubernetes syntax (the server's own parser, selector).
  // INVALID_ARGUMENT names the position of a syntax error.
  absl::StatusOr<std::vector<CachedObjectPtr>> List(
      absl::string_view label_selector) const;

  // The objects filed under value in the named index, ordered by key (as
  // client-go's Indexer.ByIndex). NOT_FOUND if no index has that name.
  absl::StatusOr<std::vector<CachedObjectPtr>> ByIndex(
      absl::string_view index_name, absl::string_view value) const;

  // The keys of those objects, ordered (as client-go's Indexer.IndexKeys).
  // NOT_FOUND if no index has that name.
  absl::StatusOr<std::vector<std::string>> IndexKeys(
      absl::string_view index_name, absl::string_view value) const;

  // Every object, ordered by key.
  std::vector<CachedObjectPtr> All() const;

  size_t Size() const;

  // Stores object under its key; returns the object it replaced, or nullptr.
  CachedObjectPtr Upsert(informerd::v1::Object object);

  // Stores an object already shared (so that the caller can hand the same
  // pointer to handlers); returns the object it replaced, or nullptr.
  // REQUIRES: object != nullptr.
  CachedObjectPtr Store(CachedObjectPtr object);

  // Removes the object; returns it, or nullptr if it was absent.
  CachedObjectPtr Remove(absl::string_view object_namespace,
                         absl::string_view name);

 private:
  struct Index {
    IndexFunc index_func;
    std::map<std::string, std::set<std::string>, std::less<>> keys_by_value;
  };

  void FileLocked(const std::string& key, const informerd::v1::Object& object,
                  Index* index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The keys filed under value; nullptr if none. NOT_FOUND if no index.
  absl::StatusOr<const std::set<std::string>*> IndexedKeysLocked(
      absl::string_view index_name, absl::string_view value) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void UnfileLocked(const std::string& key, const informerd::v1::Object& object)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, CachedObjectPtr, std::less<>> objects_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, Index, std::less<>> indexes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_LOCAL_CACHE_H_
