#include "server/cache/object.h"

#include <algorithm>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "informerd/v1/informerd.pb.h"
#include "server/cache/field_mask_projection.h"
#include "server/cache/metadata_projection.h"

namespace informerd::cache {
namespace {

size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

void DeleteString(void* user_data) { delete static_cast<std::string*>(user_data); }

std::atomic<int64_t> masked_form_bytes{0};

}  // namespace

std::string ObjectKey(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  return key;
}

Object::Object(Metadata metadata, uint64_t resource_version_number,
               FieldValues field_values, grpc::Slice wire, size_t json_offset,
               size_t json_size)
    : metadata_(std::move(metadata)),
      key_(ObjectKey(metadata_.namespace_, metadata_.name)),
      resource_version_number_(resource_version_number),
      field_values_(std::move(field_values)),
      wire_(std::move(wire)),
      json_offset_(json_offset),
      json_size_(json_size) {}

Object::~Object() {
  if (counted_) masked_form_bytes.fetch_sub(static_cast<int64_t>(wire_.size()));
}

int64_t Object::MaskedFormBytes() { return masked_form_bytes.load(); }

void Object::CountAsMaskedForm() const {
  counted_ = true;
  masked_form_bytes.fetch_add(static_cast<int64_t>(wire_.size()));
}

std::shared_ptr<const Object> Object::Create(Metadata metadata, uint64_t resource_version_number,
                                            FieldValues field_values, std::string_view json) {
  v1::Object fields;
  fields.set_namespace_(metadata.namespace_);
  fields.set_name(metadata.name);
  fields.set_uid(metadata.uid);
  fields.set_resource_version(metadata.resource_version);
  for (const auto& [key, value] : metadata.labels) (*fields.mutable_labels())[key] = value;
  return Frame(std::move(metadata), resource_version_number, std::move(field_values), json,
               fields.SerializeAsString(), v1::Object::kJsonFieldNumber);
}

std::shared_ptr<const Object> Object::Frame(Metadata metadata, uint64_t resource_version_number,
                                           FieldValues field_values, std::string_view json,
                                           std::string_view tail, int payload_field) {
  // Framed by hand (the payload, then the metadata fields): going through the
  // generated message would copy the JSON twice more, and an exactly sized
  // buffer keeps memory at the JSON's size.
  const size_t header_size = 1 + VarintSize(json.size());
  auto* buffer = new std::string();
  buffer->reserve(header_size + json.size() + tail.size());
  buffer->push_back(static_cast<char>((payload_field << 3) | 2));
  for (uint64_t length = json.size();; length >>= 7) {
    if (length < 0x80) {
      buffer->push_back(static_cast<char>(length));
      break;
    }
    buffer->push_back(static_cast<char>((length & 0x7f) | 0x80));
  }
  buffer->append(json);
  buffer->append(tail);
  grpc::Slice wire(buffer->data(), buffer->size(), &DeleteString, buffer);
  const bool is_json = payload_field == v1::Object::kJsonFieldNumber;
  return std::make_shared<const Object>(std::move(metadata), resource_version_number,
                                        std::move(field_values), std::move(wire), header_size,
                                        is_json ? json.size() : 0);
}

std::shared_ptr<const Object> Object::Reframed(std::string_view json) const {
  // The metadata fields after the JSON are the same: reused as framed.
  const size_t tail_offset = json_offset_ + json_size_;
  std::string_view tail(reinterpret_cast<const char*>(wire_.begin()) + tail_offset,
                        wire_.size() - tail_offset);
  return Frame(metadata_, resource_version_number_, field_values_, json, tail,
               v1::Object::kJsonFieldNumber);
}

const Object& Object::MetadataOnly() const {
  absl::call_once(metadata_only_once_, [this] {
    std::atomic_store(&metadata_only_, Reframed(MetadataProjection(json())));
  });
  return *std::atomic_load(&metadata_only_);
}

std::shared_ptr<const Object> Object::Masked(const FieldMask& mask) const {
  if (mask.id() == 0) return Reframed(FieldMaskProjection(json(), mask));
  // Built under the lock: callers asking the same mask at once wait for one
  // build rather than each making their own.
  absl::MutexLock lock(&masked_mu_);
  for (size_t i = 0; i < masked_.size(); ++i) {
    if (masked_[i].mask_id != mask.id()) continue;
    std::rotate(masked_.begin() + i, masked_.begin() + i + 1, masked_.end());
    return masked_.back().object;
  }
  std::shared_ptr<const Object> form = Reframed(FieldMaskProjection(json(), mask));
  form->CountAsMaskedForm();
  if (masked_.size() == kMaskedFormsPerObject) masked_.erase(masked_.begin());
  masked_.push_back({mask.id(), form});
  return form;
}

const Object& Object::Protobuf(ProtobufEncoder encode) const {
  absl::call_once(protobuf_once_, [this, encode] {
    std::optional<std::string> encoded = encode(json());
    // Without a protobuf form the object is served as JSON (see the header).
    if (!encoded.has_value()) return;
    const size_t tail_offset = json_offset_ + json_size_;
    std::string_view tail(reinterpret_cast<const char*>(wire_.begin()) + tail_offset,
                          wire_.size() - tail_offset);
    std::shared_ptr<const Object> form = Frame(metadata_, resource_version_number_, field_values_,
                                               *encoded, tail, v1::Object::kProtobufFieldNumber);
    if (counted_) form->CountAsMaskedForm();
    std::atomic_store(&protobuf_, std::move(form));
  });
  std::shared_ptr<const Object> protobuf = std::atomic_load(&protobuf_);
  return protobuf ? *protobuf : *this;
}

std::optional<std::string_view> Object::FieldValue(std::string_view field) const {
  if (field == "metadata.name") return std::string_view(metadata_.name);
  if (field == "metadata.namespace") return std::string_view(metadata_.namespace_);
  auto it = std::lower_bound(
      field_values_.begin(), field_values_.end(), field,
      [](const auto& entry, std::string_view f) { return entry.first < f; });
  if (it == field_values_.end() || it->first != field) return std::nullopt;
  return std::string_view(it->second);
}

size_t Object::ApproximateBytes() const {
  size_t bytes = sizeof(Object) + wire_.size() +
                 key_.capacity() + metadata_.namespace_.capacity() +
                 metadata_.name.capacity() + metadata_.uid.capacity() +
                 metadata_.resource_version.capacity();
  for (const auto& [k, v] : metadata_.labels) bytes += k.capacity() + v.capacity() + 2 * sizeof(std::string);
  for (const auto& [k, v] : field_values_) bytes += k.capacity() + v.capacity() + 2 * sizeof(std::string);
  // Read without the once flag: a form still being built is counted next time.
  if (std::shared_ptr<const Object> projected = std::atomic_load(&metadata_only_)) {
    bytes += projected->ApproximateBytes();
  }
  if (std::shared_ptr<const Object> encoded = std::atomic_load(&protobuf_)) {
    bytes += encoded->ApproximateBytes();
  }
  return bytes;
}

}  // namespace informerd::cache
