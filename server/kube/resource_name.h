// How informerd names a resource to people (logs, errors, configuration):
// as kubectl does, "configmaps" for the core group and "deployments.apps"
// otherwise.
//
// Thread safety: pure function.
#ifndef INFORMERD_SERVER_KUBE_RESOURCE_NAME_H_
#define INFORMERD_SERVER_KUBE_RESOURCE_NAME_H_

#include <string>
#include <string_view>

namespace informerd::kube {

std::string KubectlName(std::string_view group, std::string_view resource);

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_RESOURCE_NAME_H_
