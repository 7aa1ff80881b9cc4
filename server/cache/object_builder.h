// Builds cached Objects from objects the API server served.
//
// BuildObject validates the metadata a cache needs (name, resourceVersion),
// applies the configured transforms (by default dropping
// metadata.managedFields, about 40% of a typical object), extracts labels and
// field index values, and serializes the result once as compact JSON inside
// an informerd.v1.Object message.
//
// Thread safety: BuildObject is a pure function; ObjectSchema is a value.
#ifndef INFORMERD_SERVER_CACHE_OBJECT_BUILDER_H_
#define INFORMERD_SERVER_CACHE_OBJECT_BUILDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "server/cache/object.h"

namespace informerd::cache {

struct ObjectSchema {
  // The resource's apiVersion ("v1", "apps/v1") and kind ("Pod"), written
  // into objects that lack them (the items of a LIST do), so that an object
  // decodes the same way whichever path brought it in. Empty: left as is.
  std::string api_version;
  std::string kind;
  // Remove metadata.managedFields before caching.
  bool strip_managed_fields = true;
  // Further fields removed before caching, as dotted paths from the object
  // root (e.g. "metadata.annotations"). A missing field is not an error.
  std::vector<std::string> drop_fields;
  // Fields indexed for field selectors and index lookups, as dotted paths
  // (e.g. "spec.nodeName"). Kept sorted and unique by BuildObject's callers
  // through NormalizeSchema.
  std::vector<std::string> field_indexes;
};

// Sorts and de-duplicates schema->field_indexes.
void NormalizeSchema(ObjectSchema* schema);

// REQUIRES: NormalizeSchema(&schema) was applied.
// `object` is modified (transforms are applied in place). Errors are
// INVALID_ARGUMENT naming the missing or malformed metadata field, or a
// member given twice of those that decide what a client decodes the object
// as: apiVersion, kind, metadata, metadata's name, namespace, uid,
// resourceVersion and labels, and each step of a field index's path (JSON
// allows a name twice; RapidJSON reads the first, Go's decoders the last).
absl::StatusOr<ObjectPtr> BuildObject(rapidjson::Value& object,
                                      const ObjectSchema& schema);

// `object` with metadata.resourceVersion set to `resource_version`: what a
// watcher whose selector stops matching receives as DELETED, as the
// apiserver stamps the previous state with the event's version.
ObjectPtr WithResourceVersion(const Object& object, uint64_t resource_version);

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_OBJECT_BUILDER_H_
