#include "server/cache/object.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace informerd::cache {

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
  return bytes;
}

}  // namespace informerd::cache
