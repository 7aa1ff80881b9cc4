// Object: one cached Kubernetes object, immutable once built.
//
// An Object holds the object serialized as an informerd.v1.Object message
// (the transformed object as compact JSON plus the metadata clients route
// by), and, parsed out for matching, its labels and the values of the
// configured field indexes. The message is built once at ingest and the JSON
// is a view into it, so the bytes are held once; the store, the event history, every List page and
// every Watch delivery share it by reference (grpc::Slice is ref-counted), so
// no delivery re-serializes or copies the object.
//
// A metadata-only form (PROJECTION_METADATA: apiVersion, kind and metadata)
// is built from the JSON on first request and kept with the object, so it is
// serialized at most once per object version however many callers ask, and
// never for objects nobody asks it of.
//
// Masked forms (a request's field mask, FieldMaskProjection) are built on
// first request for each interned mask and kept with the object, at most
// kMaskedFormsPerObject of them (the least recently used one goes first), so
// each (object version, mask) is built once however many callers ask it,
// and an object's masked forms hold at most that many times its size.
//
// Likewise the protobuf form (ENCODING_PROTOBUF: the Kubernetes protobuf
// encoding in Object.protobuf instead of Object.json), for built-in types.
//
// Thread safety: immutable once built (the metadata-only and protobuf forms
// are built under once flags, masked forms under a mutex); share freely
// through ObjectPtr.
#ifndef INFORMERD_SERVER_CACHE_OBJECT_H_
#define INFORMERD_SERVER_CACHE_OBJECT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <grpcpp/support/slice.h>

#include "absl/base/call_once.h"
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include "selector/labels.h"
#include "server/cache/field_mask.h"

namespace informerd::cache {

// Values of configured field indexes, sorted by field path (e.g.
// {"spec.nodeName", "node-1"}). A field the object lacks is "".
using FieldValues = std::vector<std::pair<std::string, std::string>>;

class Object : public std::enable_shared_from_this<Object> {
 public:
  struct Metadata {
    std::string namespace_;
    std::string name;
    std::string uid;
    std::string resource_version;
    selector::Labels labels;
  };

  // REQUIRES: metadata.resource_version parses as resource_version_number;
  // `wire` is the serialized informerd.v1.Object of this object and
  // wire[json_offset, json_offset + json_size) is its json field.
  Object(Metadata metadata, uint64_t resource_version_number,
         FieldValues field_values, grpc::Slice wire, size_t json_offset,
         size_t json_size);

  // Frames `json` and the metadata as an informerd.v1.Object message in one
  // exactly sized buffer. REQUIRES: as for the constructor.
  static std::shared_ptr<const Object> Create(Metadata metadata, uint64_t resource_version_number,
                                              FieldValues field_values, std::string_view json);

  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  ~Object();

  // The masked forms one object version keeps (see above).
  static constexpr size_t kMaskedFormsPerObject = 4;

  // "namespace/name", or "name" for cluster-scoped objects: the store key.
  const std::string& key() const { return key_; }
  const std::string& namespace_() const { return metadata_.namespace_; }
  const std::string& name() const { return metadata_.name; }
  const std::string& uid() const { return metadata_.uid; }
  const std::string& resource_version() const { return metadata_.resource_version; }
  uint64_t resource_version_number() const { return resource_version_number_; }
  const selector::Labels& labels() const { return metadata_.labels; }
  const FieldValues& field_values() const { return field_values_; }
  std::string_view json() const {
    return std::string_view(reinterpret_cast<const char*>(wire_.begin()) + json_offset_, json_size_);
  }
  const grpc::Slice& wire() const { return wire_; }

  // The value of a field selector's field: metadata.name, metadata.namespace
  // or a configured field index; nullopt for any other field.
  std::optional<std::string_view> FieldValue(std::string_view field) const;

  // This object with json reduced to its apiVersion, kind and metadata
  // members (PROJECTION_METADATA); the other fields are the same. Built on
  // the first call.
  const Object& MetadataOnly() const;

  // This object with json reduced to what `mask` selects
  // (FieldMaskProjection); the other fields are the same. Built on the
  // first call for an interned mask (mask.id() != 0) and kept, as the
  // header says; built on every call for a mask that is not interned.
  // REQUIRES: !mask.empty().
  std::shared_ptr<const Object> Masked(const FieldMask& mask) const
      ABSL_LOCKS_EXCLUDED(masked_mu_);

  // The bytes held by masked forms kept by live objects (and their protobuf
  // forms), over the process: the /metrics gauge.
  static int64_t MaskedFormBytes();

  // The protobuf encoding of an object's JSON, or nullopt when it has none.
  using ProtobufEncoder = std::optional<std::string> (*)(std::string_view json);

  // This object with `encode`'s encoding of its JSON in the protobuf field
  // instead of json (ENCODING_PROTOBUF); the other fields are the same.
  // Built on the first call. For an object without a protobuf form (no
  // schema for its kind, or a field the schema does not know), this object
  // itself. REQUIRES: every call passes the same encoder (the first one's
  // result is kept).
  const Object& Protobuf(ProtobufEncoder encode) const;

  // Approximate heap bytes held by this object, for the memory metrics
  // (including a metadata-only form once built; masked forms, which come
  // and go, are counted in MaskedFormBytes instead).
  size_t ApproximateBytes() const;

 private:
  // Create, with the serialized metadata fields given.
  // Create, with the serialized metadata fields given; `payload` goes in
  // field `payload_field` (json, or protobuf for the protobuf form, whose
  // json() is then empty).
  static std::shared_ptr<const Object> Frame(Metadata metadata, uint64_t resource_version_number,
                                             FieldValues field_values, std::string_view payload,
                                             std::string_view tail, int payload_field);

  // This object's JSON with the metadata fields of its wire after `json`.
  std::shared_ptr<const Object> Reframed(std::string_view json) const;
  // Counts this object's bytes in MaskedFormBytes until it is destroyed.
  // REQUIRES: called once, before the object is shared.
  void CountAsMaskedForm() const;

  struct MaskedForm {
    uint64_t mask_id;
    std::shared_ptr<const Object> object;
  };

  Metadata metadata_;
  std::string key_;
  uint64_t resource_version_number_;
  FieldValues field_values_;
  grpc::Slice wire_;
  size_t json_offset_;
  size_t json_size_;
  mutable absl::once_flag metadata_only_once_;
  mutable std::shared_ptr<const Object> metadata_only_;
  mutable absl::once_flag protobuf_once_;
  // Null when the object has no protobuf form.
  mutable std::shared_ptr<const Object> protobuf_;
  mutable absl::Mutex masked_mu_;
  // Least recently used first.
  mutable std::vector<MaskedForm> masked_ ABSL_GUARDED_BY(masked_mu_);
  // Whether this object is a masked form (or a masked form's protobuf form),
  // counted in MaskedFormBytes.
  mutable bool counted_ = false;
};

using ObjectPtr = std::shared_ptr<const Object>;

// The store key for a namespace and name.
std::string ObjectKey(std::string_view namespace_, std::string_view name);

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_OBJECT_H_
