// Typed lookups of one member of a parsed JSON object, for reading what the
// apiserver (or a tenant) sent: a member that is missing, or of another type,
// or looked up in something that is not an object, reads as absent (null,
// "" or false). Never an error and never RapidJSON's assertion on a
// non-object, since the input may be anything.
//
// Thread safety: pure functions over values the caller keeps alive.
#ifndef INFORMERD_SERVER_JSON_JSON_MEMBERS_H_
#define INFORMERD_SERVER_JSON_JSON_MEMBERS_H_

#include <string_view>

#include "rapidjson/document.h"

namespace informerd::json {

// The member `name` of `object`, of any type; null when absent.
inline const rapidjson::Value* Member(const rapidjson::Value* object, std::string_view name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  auto it = object->FindMember(rapidjson::Value(
      rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  return it == object->MemberEnd() ? nullptr : &it->value;
}
inline const rapidjson::Value* Member(const rapidjson::Value& object, std::string_view name) {
  return Member(&object, name);
}

// The member when it is an object (array); null otherwise.
inline const rapidjson::Value* ObjectMember(const rapidjson::Value& object, std::string_view name) {
  const rapidjson::Value* member = Member(object, name);
  return member != nullptr && member->IsObject() ? member : nullptr;
}
inline const rapidjson::Value* ArrayMember(const rapidjson::Value& object, std::string_view name) {
  const rapidjson::Value* member = Member(object, name);
  return member != nullptr && member->IsArray() ? member : nullptr;
}

// The value's text when it is a string; "" otherwise (null included). A view
// into the document.
inline std::string_view AsString(const rapidjson::Value* value) {
  if (value == nullptr || !value->IsString()) return {};
  return std::string_view(value->GetString(), value->GetStringLength());
}

// The member's text when it is a string; "" otherwise.
inline std::string_view StringMember(const rapidjson::Value* object, std::string_view name) {
  return AsString(Member(object, name));
}
inline std::string_view StringMember(const rapidjson::Value& object, std::string_view name) {
  return StringMember(&object, name);
}

// A Kubernetes object's metadata.<field> when it is a string; "" otherwise.
inline std::string_view MetadataString(const rapidjson::Value& object, std::string_view field) {
  return StringMember(ObjectMember(object, "metadata"), field);
}

// True only for a boolean member that is true.
inline bool BoolMember(const rapidjson::Value& object, std::string_view name) {
  const rapidjson::Value* member = Member(object, name);
  return member != nullptr && member->IsBool() && member->GetBool();
}

}  // namespace informerd::json

#endif  // INFORMERD_SERVER_JSON_JSON_MEMBERS_H_
