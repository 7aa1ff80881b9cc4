#include "server/cache/test_objects.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"

namespace informerd::cache {

std::string TestObjectJson(const TestObjectSpec& spec) {
  std::string labels;
  for (const auto& [key, value] : spec.labels) {
    absl::StrAppend(&labels, labels.empty() ? "" : ",", "\"", key, "\":\"", value, "\"");
  }
  std::string uid = spec.uid.empty() ? "uid-" + spec.name : spec.uid;
  std::string ns = spec.namespace_.empty() ? "" : absl::StrCat("\"namespace\":\"", spec.namespace_, "\",");
  return absl::StrCat(
      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"", spec.name,
      "\",", ns, "\"uid\":\"", uid, "\",\"resourceVersion\":\"", spec.resource_version,
      "\",\"labels\":{", labels,
      "},\"managedFields\":[{\"manager\":\"test\",\"operation\":\"Update\"}]},"
      "\"spec\":{\"nodeName\":\"", spec.node_name, "\"},\"data\":{\"value\":\"", spec.data,
      "\"}}");
}

ObjectPtr MakeTestObject(const TestObjectSpec& spec, const ObjectSchema& schema) {
  ObjectSchema normalized = schema;
  NormalizeSchema(&normalized);
  rapidjson::Document document;
  std::string json = TestObjectJson(spec);
  document.Parse(json.data(), json.size());
  absl::StatusOr<ObjectPtr> object = BuildObject(document, normalized);
  if (!object.ok()) std::abort();
  return *std::move(object);
}

}  // namespace informerd::cache
