#include "client/cpp/informerctl/json_text.h"

#include "absl/strings/str_cat.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace informerd {
namespace informerctl {

std::string JsonString(absl::string_view text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string ObjectJson(const informerd::v1::Object& object) {
  if (!object.json().empty()) return object.json();
  std::string metadata = absl::StrCat("\"name\":", JsonString(object.name()));
  if (!object.namespace_().empty()) {
    absl::StrAppend(&metadata, ",\"namespace\":", JsonString(object.namespace_()));
  }
  if (!object.uid().empty()) {
    absl::StrAppend(&metadata, ",\"uid\":", JsonString(object.uid()));
  }
  absl::StrAppend(&metadata, ",\"resourceVersion\":",
                  JsonString(object.resource_version()));
  return absl::StrCat("{\"metadata\":{", metadata, "}}");
}

}  // namespace informerctl
}  // namespace informerd
