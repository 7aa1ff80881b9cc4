// Reading fields of an object the server sent, parsed by RapidJSON. A field
// that is absent or of another type reads as empty, zero or false: printers
// show what an object has and never fail on what it lacks.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_JSON_FIELDS_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_JSON_FIELDS_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "rapidjson/document.h"

namespace informerd {
namespace informerctl {

using FieldPath = std::initializer_list<const char*>;

// The value at path (object members, one per step); nullptr if any step is
// missing or not an object.
const rapidjson::Value* FieldAt(const rapidjson::Value& value, FieldPath path);

std::string StringAt(const rapidjson::Value& value, FieldPath path);
int64_t IntAt(const rapidjson::Value& value, FieldPath path);
bool BoolAt(const rapidjson::Value& value, FieldPath path);
bool HasField(const rapidjson::Value& value, FieldPath path);

// The array at path, or an empty array.
rapidjson::Value::ConstArray ArrayAt(const rapidjson::Value& value,
                                     FieldPath path);

// Members of the object at path; 0 if it is not an object.
size_t MemberCountAt(const rapidjson::Value& value, FieldPath path);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_JSON_FIELDS_H_
