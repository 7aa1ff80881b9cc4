// ObjectStore: the current objects of one resource, ordered by key, with the
// indexes List uses instead of scanning: by namespace, by label (an inverted
// index: key and value to objects) and by each configured field.
//
// Index entries point at objects the store owns, ordered by key, so an index
// lookup yields a sorted run that pagination can resume inside.
//
// Thread safety: none; the Informer serializes writers and readers.
#ifndef INFORMERD_SERVER_CACHE_OBJECT_STORE_H_
#define INFORMERD_SERVER_CACHE_OBJECT_STORE_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "server/cache/object.h"

namespace informerd::cache {

struct KeyOrder {
  using is_transparent = void;
  bool operator()(const Object* a, const Object* b) const { return a->key() < b->key(); }
  bool operator()(const Object* a, std::string_view b) const { return a->key() < b; }
  bool operator()(std::string_view a, const Object* b) const { return a < b->key(); }
};

// Objects sharing one index value, in key order.
using IndexedObjects = absl::btree_set<const Object*, KeyOrder>;

class ObjectStore {
 public:
  using Map = absl::btree_map<std::string, ObjectPtr, std::less<>>;

  ObjectStore() = default;
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // The object stored under `key`, or null.
  ObjectPtr Get(std::string_view key) const;

  // Stores `object` under its key; returns what it replaced, or null.
  ObjectPtr Put(ObjectPtr object);

  // Removes the object under `key`; returns it, or null if absent.
  ObjectPtr Remove(std::string_view key);

  const Map& objects() const { return objects_; }
  size_t size() const { return objects_.size(); }
  // Sum of Object::ApproximateBytes over the stored objects.
  size_t bytes() const { return bytes_; }

  // Index lookups; null when no stored object has that value.
  const IndexedObjects* ByNamespace(std::string_view namespace_) const;
  const IndexedObjects* ByLabel(std::string_view key, std::string_view value) const;
  const IndexedObjects* ByField(std::string_view field, std::string_view value) const;

 private:
  // Index key -> objects; labels and fields are keyed "key\0value".
  using Index = absl::flat_hash_map<std::string, IndexedObjects>;

  void AddToIndexes(const Object* object);
  void RemoveFromIndexes(const Object* object);

  Map objects_;
  size_t bytes_ = 0;
  Index by_namespace_;
  Index by_label_;
  Index by_field_;
};

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_OBJECT_STORE_H_
