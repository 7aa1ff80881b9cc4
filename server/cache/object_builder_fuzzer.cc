// libFuzzer target: BuildObject must take any JSON value (a tenant writes
// most of an object, the apiserver serves it) without crashing, fail only
// with INVALID_ARGUMENT, and build only an object whose parts agree: the
// cached JSON is an object carrying apiVersion and kind, without the fields
// the schema drops; the key, labels and field index values are what that
// JSON says; the wire form parses as an informerd.v1.Object with the same
// metadata and JSON; WithResourceVersion changes nothing but the version.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "informerd/v1/informerd.pb.h"
#include "rapidjson/document.h"
#include "server/cache/object_builder.h"
#include "server/cache/resource_version.h"

namespace {

using informerd::cache::ObjectPtr;
using informerd::cache::ObjectSchema;

const rapidjson::Value* Find(const rapidjson::Value& object, std::string_view name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::Value(
      rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

const rapidjson::Value* FindPath(const rapidjson::Value& root, std::string_view path) {
  const rapidjson::Value* value = &root;
  for (size_t dot; value != nullptr; path.remove_prefix(dot + 1)) {
    dot = path.find('.');
    value = Find(*value, path.substr(0, dot));
    if (dot == std::string_view::npos) break;
  }
  return value;
}

// Whether any member chain spells `path` (a name may be in an object twice).
bool AnyAt(const rapidjson::Value& value, std::string_view path) {
  if (!value.IsObject()) return false;
  const size_t dot = path.find('.');
  for (const auto& member : value.GetObject()) {
    if (std::string_view(member.name.GetString(), member.name.GetStringLength()) !=
        path.substr(0, dot)) {
      continue;
    }
    if (dot == std::string_view::npos || AnyAt(member.value, path.substr(dot + 1))) return true;
  }
  return false;
}

std::string Text(const rapidjson::Value* value) {
  return value != nullptr && value->IsString()
             ? std::string(value->GetString(), value->GetStringLength())
             : std::string();
}

// The object's metadata as a client reads it from the cached JSON, against
// what the Object says.
// `typed`: apiVersion and kind must be there (given or filled in).
void CheckJson(const informerd::cache::Object& object, const ObjectSchema& schema, bool typed) {
  const std::string& resource_version = object.resource_version();
  rapidjson::Document json;
  json.Parse(object.json().data(), object.json().size());
  if (json.HasParseError() || !json.IsObject()) abort();
  if (typed && (Find(json, "kind") == nullptr || Find(json, "apiVersion") == nullptr)) abort();
  const rapidjson::Value* metadata = Find(json, "metadata");
  if (metadata == nullptr || !metadata->IsObject()) abort();
  if (Text(Find(*metadata, "name")) != object.name() ||
      Text(Find(*metadata, "namespace")) != object.namespace_() ||
      Text(Find(*metadata, "uid")) != object.uid() ||
      Text(Find(*metadata, "resourceVersion")) != resource_version) {
    abort();
  }
  for (const std::string& dropped : schema.drop_fields) {
    if (AnyAt(json, dropped)) abort();
  }
  if (schema.strip_managed_fields && AnyAt(json, "metadata.managedFields")) abort();
  // Labels: sorted, and each the JSON's value for its key.
  const auto& labels = object.labels();
  const rapidjson::Value* json_labels = Find(*metadata, "labels");
  if (!labels.empty() && json_labels == nullptr) abort();
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0 && labels[i - 1] > labels[i]) abort();
    if (Text(Find(*json_labels, labels[i].first)) != labels[i].second) abort();
  }
  const auto& values = object.field_values();
  if (values.size() != schema.field_indexes.size()) abort();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].first != schema.field_indexes[i]) abort();
    const rapidjson::Value* value = FindPath(json, values[i].first);
    if (value != nullptr && value->IsString() && values[i].second != Text(value)) abort();
    if ((value == nullptr || value->IsObject() || value->IsArray() || value->IsNull()) &&
        !values[i].second.empty()) {
      abort();
    }
  }
}

// The wire form: an informerd.v1.Object with the same JSON and metadata.
void CheckWire(const informerd::cache::Object& object) {
  const std::string wire(reinterpret_cast<const char*>(object.wire().begin()),
                         object.wire().size());
  informerd::v1::Object message;
  if (!message.ParseFromString(wire)) abort();
  if (message.json() != object.json() || message.name() != object.name() ||
      message.namespace_() != object.namespace_() || message.uid() != object.uid() ||
      message.resource_version() != object.resource_version() ||
      static_cast<size_t>(message.labels().size()) != object.labels().size()) {
    abort();
  }
  for (const auto& [key, value] : object.labels()) {
    auto it = message.labels().find(key);
    if (it == message.labels().end() || it->second != value) abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the schema's options; the rest is the object.
  ObjectSchema schema;
  if (data[0] & 1) {
    schema.api_version = "v1";
    schema.kind = "Pod";
  }
  schema.strip_managed_fields = data[0] & 2;
  if (data[0] & 4) schema.drop_fields = {"metadata.annotations", "status", "spec.a.b"};
  schema.field_indexes = {"spec.nodeName", "status.phase", "metadata.name", "spec.a.b", "spec",
                          "spec.n"};
  if (data[0] & 8) schema.field_indexes.push_back("spec.nodeName");
  informerd::cache::NormalizeSchema(&schema);

  rapidjson::Document document;
  document.Parse(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (document.HasParseError()) return 0;
  const bool had_kind = document.IsObject() && document.HasMember("kind") &&
                        document.HasMember("apiVersion");
  absl::StatusOr<ObjectPtr> object = informerd::cache::BuildObject(document, schema);
  if (!object.ok()) {
    if (object.status().code() != absl::StatusCode::kInvalidArgument) abort();
    return 0;
  }
  if ((*object)->name().empty() ||
      informerd::cache::ParseResourceVersion((*object)->resource_version()) !=
          (*object)->resource_version_number()) {
    abort();
  }
  CheckJson(**object, schema, !schema.kind.empty() || had_kind);
  CheckWire(**object);

  const uint64_t next = (*object)->resource_version_number() + 1;
  if (next == 0) return 0;
  ObjectPtr stamped = informerd::cache::WithResourceVersion(**object, next);
  if (stamped->resource_version_number() != next ||
      stamped->resource_version() != std::to_string(next) || stamped->key() != (*object)->key() ||
      stamped->labels() != (*object)->labels() ||
      stamped->field_values() != (*object)->field_values()) {
    abort();
  }
  CheckJson(*stamped, schema, !schema.kind.empty() || had_kind);
  CheckWire(*stamped);
  return 0;
}
