#include "client/cpp/test_objects.h"

namespace informerd {
namespace client {

informerd::v1::Object MakeTestObject(
    const std::string& ns, const std::string& name, const std::string& version,
    const std::vector<std::pair<std::string, std::string>>& labels) {
  informerd::v1::Object object;
  object.set_namespace_(ns);
  object.set_name(name);
  object.set_resource_version(version);
  for (const auto& [key, value] : labels) (*object.mutable_labels())[key] = value;
  object.set_json("{\"metadata\":{\"name\":\"" + name + "\"}}");
  return object;
}

}  // namespace client
}  // namespace informerd
