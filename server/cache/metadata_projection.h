// MetadataProjection: the metadata-only form of a cached object
// (PROJECTION_METADATA), as the apiserver's PartialObjectMetadata has it.
//
// It scans the object's compact JSON without parsing it and copies the
// apiVersion, kind and metadata members byte for byte, in their order: a
// pod's projection costs a scan of its text rather than a parse and a
// rewrite (bench/ingest_benchmark BM_MetadataProjection).
//
// Thread safety: pure function.
#ifndef INFORMERD_SERVER_CACHE_METADATA_PROJECTION_H_
#define INFORMERD_SERVER_CACHE_METADATA_PROJECTION_H_

#include <string>
#include <string_view>

namespace informerd::cache {

// REQUIRES: `json` is one JSON object as JsonWriter writes it (compact, no
// space between tokens), as Object::json() holds. Text that is not gives a
// shorter result, never a read outside `json`.
std::string MetadataProjection(std::string_view json);

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_METADATA_PROJECTION_H_
