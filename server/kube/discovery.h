// Discovery: what the API server says about a resource before informerd
// lists and watches it (its kind, scope and verbs), and the URL to use.
#ifndef INFORMERD_SERVER_KUBE_DISCOVERY_H_
#define INFORMERD_SERVER_KUBE_DISCOVERY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/kube/rest_client.h"

namespace informerd::kube {

struct ResourceInfo {
  std::string group;     // "" for the core group
  std::string version;   // e.g. "v1"
  std::string resource;  // plural name, e.g. "deployments"
  std::string kind;      // e.g. "Deployment"
  bool namespaced = false;
  std::vector<std::string> verbs;
};

// Looks up `resource` (plural name) in `group` at `version`, or at the
// group's preferred version when `version` is empty. Fails with NOT_FOUND if
// the server does not serve it, FAILED_PRECONDITION if it cannot be listed
// and watched, UNAVAILABLE (or the server's error) if discovery itself fails.
absl::StatusOr<ResourceInfo> Discover(RestClient& client,
                                      std::string_view group,
                                      std::string_view version,
                                      std::string_view resource);

// The collection URL path, e.g. /apis/apps/v1/namespaces/ns/deployments;
// `namespace_` empty means all namespaces. Cluster-scoped resources ignore
// `namespace_`.
std::string CollectionPath(const ResourceInfo& info,
                           std::string_view namespace_);

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_DISCOVERY_H_
