#include "client/cpp/informerctl/json_fields.h"

namespace informerd {
namespace informerctl {

namespace {

const rapidjson::Value& EmptyArray() {
  static const rapidjson::Value* const empty =
      new rapidjson::Value(rapidjson::kArrayType);
  return *empty;
}

}  // namespace

const rapidjson::Value* FieldAt(const rapidjson::Value& value, FieldPath path) {
  const rapidjson::Value* current = &value;
  for (const char* step : path) {
    if (!current->IsObject()) return nullptr;
    rapidjson::Value::ConstMemberIterator member = current->FindMember(step);
    if (member == current->MemberEnd()) return nullptr;
    current = &member->value;
  }
  return current;
}

std::string StringAt(const rapidjson::Value& value, FieldPath path) {
  const rapidjson::Value* field = FieldAt(value, path);
  if (field == nullptr || !field->IsString()) return "";
  return std::string(field->GetString(), field->GetStringLength());
}

int64_t IntAt(const rapidjson::Value& value, FieldPath path) {
  const rapidjson::Value* field = FieldAt(value, path);
  if (field == nullptr || !field->IsInt64()) return 0;
  return field->GetInt64();
}

bool BoolAt(const rapidjson::Value& value, FieldPath path) {
  const rapidjson::Value* field = FieldAt(value, path);
  return field != nullptr && field->IsBool() && field->GetBool();
}

bool HasField(const rapidjson::Value& value, FieldPath path) {
  const rapidjson::Value* field = FieldAt(value, path);
  return field != nullptr && !field->IsNull();
}

rapidjson::Value::ConstArray ArrayAt(const rapidjson::Value& value,
                                     FieldPath path) {
  const rapidjson::Value* field = FieldAt(value, path);
  if (field == nullptr || !field->IsArray()) return EmptyArray().GetArray();
  return field->GetArray();
}

size_t MemberCountAt(const rapidjson::Value& value, FieldPath path) {
  const rapidjson::Value* field = FieldAt(value, path);
  if (field == nullptr || !field->IsObject()) return 0;
  return field->MemberCount();
}

}  // namespace informerctl
}  // namespace informerd
