#include "client/cpp/informerctl/get_format.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "client/cpp/informerctl/json_text.h"
#include "client/cpp/informerctl/table.h"
#include "client/cpp/informerctl/yaml_text.h"

namespace informerd {
namespace informerctl {

std::string FormatObjectTable(const informerd::v1::ResourceName& resource,
                              const std::vector<informerd::v1::Object>& objects,
                              const TableOptions& options) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(objects.size() + 1);
  rows.push_back(TableHeader(resource, options));
  for (const informerd::v1::Object& object : objects) {
    rows.push_back(TableRow(resource, object, options));
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

absl::StatusOr<std::string> FormatObjectYaml(const informerd::v1::Object& object) {
  return JsonToYaml(ObjectJson(object));
}

absl::StatusOr<std::string> FormatListYaml(
    const std::vector<informerd::v1::Object>& objects,
    const std::string& resource_version) {
  return JsonToYaml(FormatListJson(objects, resource_version));
}

std::string FormatObjectNames(const std::vector<informerd::v1::Object>& objects,
                              const informerd::v1::ResourceStatus& resource) {
  std::string prefix = resource.kind().empty()
                           ? resource.resource().resource()
                           : absl::AsciiStrToLower(resource.kind());
  if (!resource.resource().group().empty()) {
    absl::StrAppend(&prefix, ".", resource.resource().group());
  }
  std::string names;
  for (const informerd::v1::Object& object : objects) {
    absl::StrAppend(&names, prefix, "/", object.name(), "\n");
  }
  return names;
}

}  // namespace informerctl
}  // namespace informerd
