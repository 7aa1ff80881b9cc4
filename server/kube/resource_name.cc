#include "server/kube/resource_name.h"

namespace informerd::kube {

std::string KubectlName(std::string_view group, std::string_view resource) {
  if (group.empty()) return std::string(resource);
  std::string name;
  name.reserve(resource.size() + 1 + group.size());
  return name.append(resource).append(".").append(group);
}

}  // namespace informerd::kube
