// Test and fuzz oracle for MemberCut: what RapidJSON makes of a text with
// the member removed, to compare a cut text against.
#ifndef INFORMERD_SERVER_KUBE_MEMBER_CUT_ORACLE_H_
#define INFORMERD_SERVER_KUBE_MEMBER_CUT_ORACLE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace informerd::kube {

// `value` written compactly. Texts are compared this way rather than with
// RapidJSON's ==, which looks members up by name: an object with a repeated
// key can differ from itself.
inline std::string Written(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// `json` as RapidJSON reads it, less the member FindMember finds along
// `path` (erased so that the rest keeps its order), written compactly;
// nullopt when RapidJSON does not read `json`.
inline std::optional<std::string> WrittenWithoutMember(std::string_view json,
                                                       const std::vector<std::string>& path) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  if (document.HasParseError()) return std::nullopt;
  rapidjson::Value* object = &document;
  for (size_t i = 0; i < path.size() && object->IsObject(); ++i) {
    auto member = object->FindMember(path[i].c_str());
    if (member == object->MemberEnd()) break;
    if (i + 1 == path.size()) {
      object->EraseMember(member);
      break;
    }
    object = &member->value;
  }
  return Written(document);
}

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_MEMBER_CUT_ORACLE_H_
