#include "server/cache/object_builder.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/encodings.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/stringbuffer.h"
#include "server/cache/json_writer.h"
#include "server/cache/resource_version.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"

namespace informerd::cache {
namespace {

using json::AsString;
const rapidjson::Value* FindMember(const rapidjson::Value& object, std::string_view name) {
  return json::Member(object, name);
}

absl::Status Invalid(std::string_view field, std::string_view reason) {
  return absl::InvalidArgumentError(
      absl::StrCat("object ", std::string(field), ": ", std::string(reason)));
}

// The member `name` of `object` (null when absent or when `object` is not an
// object), refusing one given twice. JSON allows a name twice; RapidJSON's
// lookups read the first and Go's decoders the last, so for a member that
// decides an object's identity or what selects it, the cache and its
// clients would see different objects. `field` names it in the error.
absl::StatusOr<const rapidjson::Value*> OnlyMember(const rapidjson::Value* object,
                                                   std::string_view name,
                                                   std::string_view field) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  const rapidjson::Value* found = nullptr;
  for (const auto& member : object->GetObject()) {
    if (std::string_view(member.name.GetString(), member.name.GetStringLength()) != name) {
      continue;
    }
    if (found != nullptr) return Invalid(field, "is given twice");
    found = &member.value;
  }
  return found;
}

// The value at a dotted path, each step by OnlyMember.
absl::StatusOr<const rapidjson::Value*> FindPath(const rapidjson::Value& root,
                                                 std::string_view path) {
  const rapidjson::Value* value = &root;
  size_t end = 0;
  while (value != nullptr && end != std::string_view::npos) {
    const size_t begin = end == 0 ? 0 : end + 1;
    end = path.find('.', begin);
    const std::string_view step = path.substr(begin, end == std::string_view::npos ? end : end - begin);
    absl::StatusOr<const rapidjson::Value*> next =
        OnlyMember(value, step, path.substr(0, end));
    if (!next.ok()) return next.status();
    value = *next;
  }
  return value;
}

// Removes the field at `path` wherever it is: JSON allows a name twice in
// an object (RapidJSON keeps both, and a client decoding the cached JSON
// reads the last), so every member of that name is removed, under every
// parent of the path's name.
void RemovePath(rapidjson::Value& object, std::string_view path) {
  if (!object.IsObject()) return;
  const size_t dot = path.find('.');
  const std::string_view head = path.substr(0, dot);
  for (auto it = object.MemberBegin(); it != object.MemberEnd();) {
    if (std::string_view(it->name.GetString(), it->name.GetStringLength()) != head) {
      ++it;
    } else if (dot == std::string_view::npos) {
      it = object.EraseMember(it);
    } else {
      RemovePath(it->value, path.substr(dot + 1));
      ++it;
    }
  }
}

// Field selectors compare strings; the apiserver renders scalars the same way.
std::string ScalarText(const rapidjson::Value* value) {
  if (value == nullptr) return "";
  if (value->IsString()) return std::string(value->GetString(), value->GetStringLength());
  if (value->IsBool()) return value->GetBool() ? "true" : "false";
  if (value->IsInt64()) return std::to_string(value->GetInt64());
  if (value->IsUint64()) return std::to_string(value->GetUint64());
  if (value->IsDouble()) return std::to_string(value->GetDouble());
  return "";
}

// Whether `text` is well-formed UTF-8 (no overlong forms, no surrogates,
// nothing past U+10FFFF), as a proto3 string must be: RapidJSON's strict
// decoder, a code point at a time.
bool IsUtf8(std::string_view text) {
  struct Discard {
    void Put(char) {}
  } discard;
  rapidjson::MemoryStream bytes(text.data(), text.size());
  while (bytes.Tell() < text.size()) {
    if (!rapidjson::UTF8<char>::Validate(bytes, discard)) return false;
  }
  return true;
}

// `type` names what to write before the object's members: the apiVersion
// and kind it lacks (see ObjectSchema).
ObjectPtr Serialize(const rapidjson::Value& object, const ObjectSchema* type,
                    Object::Metadata meta, uint64_t version, FieldValues field_values);

}  // namespace

void NormalizeSchema(ObjectSchema* schema) {
  auto& fields = schema->field_indexes;
  std::sort(fields.begin(), fields.end());
  fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
}

absl::StatusOr<ObjectPtr> BuildObject(rapidjson::Value& object,
                                      const ObjectSchema& schema) {
  if (!object.IsObject()) return Invalid("", "is not a JSON object");
  // What a client decodes as the object's type.
  for (const char* member : {"apiVersion", "kind"}) {
    if (absl::StatusOr<const rapidjson::Value*> type = OnlyMember(&object, member, member);
        !type.ok()) {
      return type.status();
    }
  }
  absl::StatusOr<const rapidjson::Value*> metadata = OnlyMember(&object, "metadata", "metadata");
  if (!metadata.ok()) return metadata.status();
  if (*metadata == nullptr || !(*metadata)->IsObject()) {
    return Invalid("metadata", "missing or not an object");
  }
  // Its identity (the cache's key, the version that orders it) and its labels.
  const rapidjson::Value* identity[5];
  const char* const kIdentity[5] = {"name", "namespace", "uid", "resourceVersion", "labels"};
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<const rapidjson::Value*> member =
        OnlyMember(*metadata, kIdentity[i], absl::StrCat("metadata.", kIdentity[i]));
    if (!member.ok()) return member.status();
    identity[i] = *member;
  }
  Object::Metadata meta;
  meta.name = std::string(AsString(identity[0]));
  if (meta.name.empty()) return Invalid("metadata.name", "missing or empty");
  meta.namespace_ = std::string(AsString(identity[1]));
  meta.uid = std::string(AsString(identity[2]));
  meta.resource_version = std::string(AsString(identity[3]));
  std::optional<uint64_t> rv = ParseResourceVersion(meta.resource_version);
  if (!rv.has_value()) {
    return Invalid("metadata.resourceVersion",
                   absl::StrCat("\"", meta.resource_version, "\" is not a decimal integer"));
  }
  if (const rapidjson::Value* labels = identity[4]; labels != nullptr && labels->IsObject()) {
    meta.labels.reserve(labels->MemberCount());
    for (const auto& label : labels->GetObject()) {
      if (!label.value.IsString()) {
        return Invalid("metadata.labels", "values must be strings");
      }
      meta.labels.emplace_back(
          std::string(label.name.GetString(), label.name.GetStringLength()),
          std::string(label.value.GetString(), label.value.GetStringLength()));
    }
    std::sort(meta.labels.begin(), meta.labels.end());
    // JSON allows a key twice; selectors would see both values, the proto
    // map and a client decoding the JSON only one.
    if (std::adjacent_find(meta.labels.begin(), meta.labels.end(), [](const auto& a, const auto& b) {
          return a.first == b.first;
        }) != meta.labels.end()) {
      return Invalid("metadata.labels", "a key is given twice");
    }
  }
  // These go into the informerd.v1.Object's string fields, which a client
  // refuses to decode unless they are UTF-8: one such object would fail
  // every List page and Watch that carries it. (The apiserver's validation
  // keeps names and labels ASCII; this holds if it did not.)
  for (const auto& [field, text] : {std::pair<const char*, const std::string*>{"metadata.name", &meta.name},
                                    {"metadata.namespace", &meta.namespace_},
                                    {"metadata.uid", &meta.uid}}) {
    if (!IsUtf8(*text)) return Invalid(field, "is not UTF-8");
  }
  for (const auto& [key, value] : meta.labels) {
    if (!IsUtf8(key) || !IsUtf8(value)) return Invalid("metadata.labels", "are not UTF-8");
  }

  if (schema.strip_managed_fields) RemovePath(object, "metadata.managedFields");
  for (const std::string& path : schema.drop_fields) RemovePath(object, path);

  FieldValues field_values;
  field_values.reserve(schema.field_indexes.size());
  for (const std::string& path : schema.field_indexes) {
    absl::StatusOr<const rapidjson::Value*> value = FindPath(object, path);
    if (!value.ok()) return value.status();
    field_values.emplace_back(path, ScalarText(*value));
  }

  return Serialize(object, &schema, std::move(meta), *rv, std::move(field_values));
}

ObjectPtr WithResourceVersion(const Object& object, uint64_t resource_version) {
  // The cached JSON came through json::Parse* once, so it is within the
  // nesting limit and parses again; this bounds the re-parse if it did not.
  rapidjson::Document document;
  json::Parse(object.json(), &document).IgnoreError();
  Object::Metadata meta{object.namespace_(), object.name(), object.uid(),
                        std::to_string(resource_version), object.labels()};
  rapidjson::Value* metadata = const_cast<rapidjson::Value*>(FindMember(document, "metadata"));
  if (metadata != nullptr && metadata->IsObject()) {
    rapidjson::Value version(meta.resource_version.c_str(),
                             static_cast<rapidjson::SizeType>(meta.resource_version.size()),
                             document.GetAllocator());
    if (auto it = metadata->FindMember("resourceVersion"); it != metadata->MemberEnd()) {
      it->value = version;
    } else {
      metadata->AddMember("resourceVersion", version, document.GetAllocator());
    }
  }
  return Serialize(document, nullptr, std::move(meta), resource_version, object.field_values());
}

namespace {

ObjectPtr Serialize(const rapidjson::Value& object, const ObjectSchema* type,
                    Object::Metadata meta, uint64_t version, FieldValues field_values) {
  // Written into a scratch buffer reused by the thread; Object::Create
  // copies it once into the object's exactly sized buffer.
  thread_local rapidjson::StringBuffer scratch;
  scratch.Clear();
  JsonWriter writer(scratch);
  if (type == nullptr || !object.IsObject()) {
    object.Accept(writer);
  } else {
    // The apiserver leaves apiVersion and kind out of a LIST's items; written
    // first, where the apiserver puts them, so every cached object is whole.
    writer.StartObject();
    for (const auto& [member, value] : {std::pair<const char*, const std::string*>{"kind", &type->kind},
                                        {"apiVersion", &type->api_version}}) {
      if (value->empty() || FindMember(object, member) != nullptr) continue;
      writer.Key(member, static_cast<rapidjson::SizeType>(std::strlen(member)));
      writer.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
    }
    for (const auto& member : object.GetObject()) {
      writer.Key(member.name.GetString(), member.name.GetStringLength());
      member.value.Accept(writer);
    }
    writer.EndObject();
  }
  return Object::Create(std::move(meta), version, std::move(field_values),
                        std::string_view(scratch.GetString(), scratch.GetSize()));
}

}  // namespace

}  // namespace informerd::cache
