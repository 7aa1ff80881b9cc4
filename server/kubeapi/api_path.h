// ApiPath: what a Kubernetes API request path names, parsed as the
// kube-apiserver's RequestInfoFactory parses it, so that informerd routes a
// request exactly where the apiserver would look for it.
//
//   /api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]
//   /apis/GROUP/VERSION[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]
//
// "namespaces/NS/status" and "namespaces/NS/finalize" are the namespace's
// own subresources, as at the apiserver. Anything else (discovery, /version,
// /openapi, the deprecated /watch/ prefix, deeper paths) is not a resource
// request.
//
// Thread safety: pure functions.
#ifndef INFORMERD_SERVER_KUBEAPI_API_PATH_H_
#define INFORMERD_SERVER_KUBEAPI_API_PATH_H_

#include <optional>
#include <string>
#include <string_view>

namespace informerd::kubeapi {

struct ApiPath {
  std::string group;  // empty for the core group (/api/v1)
  std::string version;
  // The namespace the request is in; empty for cluster-wide requests and
  // for the cluster-scoped "namespaces" resource itself.
  std::string ns;
  std::string resource;
  std::string name;
  std::string subresource;
};

// The resource request `path` names (without its query), or nullopt.
std::optional<ApiPath> ParseApiPath(std::string_view path);

}  // namespace informerd::kubeapi

#endif  // INFORMERD_SERVER_KUBEAPI_API_PATH_H_
