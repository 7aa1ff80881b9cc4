#include "client/cpp/informerctl/get_format.h"

#include "absl/strings/str_cat.h"
#include "client/cpp/informerctl/json_text.h"
#include "client/cpp/informerctl/table.h"

namespace informerd {
namespace informerctl {

std::string FormatObjectTable(const std::vector<informerd::v1::Object>& objects,
                              bool with_namespace) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(objects.size() + 1);
  if (with_namespace) {
    rows.push_back({"NAMESPACE", "NAME", "RESOURCE-VERSION"});
  } else {
    rows.push_back({"NAME", "RESOURCE-VERSION"});
  }
  for (const informerd::v1::Object& object : objects) {
    if (with_namespace) {
      rows.push_back(
          {object.namespace_(), object.name(), object.resource_version()});
    } else {
      rows.push_back({object.name(), object.resource_version()});
    }
  }
  return FormatTable(rows);
}

std::string FormatListJson(const std::vector<informerd::v1::Object>& objects,
                           const std::string& resource_version) {
  std::string json = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) json += ',';
    json += ObjectJson(objects[i]);
  }
  absl::StrAppend(&json, "],\"metadata\":{\"resourceVersion\":",
                  JsonString(resource_version), "}}\n");
  return json;
}

std::string FormatObjectNames(const std::vector<informerd::v1::Object>& objects,
                              const std::string& resource_display_name) {
  std::string names;
  for (const informerd::v1::Object& object : objects) {
    absl::StrAppend(&names, resource_display_name, "/", object.name(), "\n");
  }
  return names;
}

}  // namespace informerctl
}  // namespace informerd
