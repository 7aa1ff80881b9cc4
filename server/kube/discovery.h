// Discovery: what the API server says about a resource before informerd
// lists and watches it (its kind, scope and verbs), and the URL to use; and
// what version of Kubernetes it is (its /version), which decides how a
// resource's state is best read from it.
#ifndef INFORMERD_SERVER_KUBE_DISCOVERY_H_
#define INFORMERD_SERVER_KUBE_DISCOVERY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
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

// GETs a discovery document (a path such as "/apis").
using DiscoveryGet =
    absl::FunctionRef<absl::StatusOr<HttpResponse>(const std::string& path)>;

// Discover, with the documents from `get`: the reading of what the API
// server answers, apart from asking it, so it can be fuzzed.
absl::StatusOr<ResourceInfo> DiscoverFrom(DiscoveryGet get,
                                          std::string_view group,
                                          std::string_view version,
                                          std::string_view resource);

// Looks up `resource` (plural name) in `group` at `version`, or at the
// group's preferred version when `version` is empty. Fails with NOT_FOUND if
// the server does not serve it, FAILED_PRECONDITION if it cannot be listed
// and watched, UNAVAILABLE (or the server's error) if discovery itself fails.
inline absl::StatusOr<ResourceInfo> Discover(RestClient& client,
                                             std::string_view group,
                                             std::string_view version,
                                             std::string_view resource) {
  return DiscoverFrom(
      [&client](const std::string& path) { return client.Get(path); }, group,
      version, resource);
}

// The collection URL path, e.g. /apis/apps/v1/namespaces/ns/deployments;
// `namespace_` empty means all namespaces. Cluster-scoped resources ignore
// `namespace_`.
std::string CollectionPath(const ResourceInfo& info,
                           std::string_view namespace_);

// The release of the API server, from /version: {"major":"1","minor":"37"}.
// Providers append to the minor ("37+"); only its leading digits count.
struct ServerVersion {
  int major = 0;
  int minor = 0;

  // True from 1.33, which encodes a LIST response item by item as it writes
  // it (KEP-5116, beta and on by default in 1.33; GA in 1.34) instead of
  // building it whole, so the first list (resourceVersion=0, served whole
  // from the watch cache) no longer costs the memory that streaming lists
  // (KEP-3157) were made to save; from 1.34 the relists' pages come from
  // watch-cache snapshots too (KEP-4988). A streaming list, which encodes
  // every object as a watch event of its own, then costs the apiserver
  // more (docs/BENCHMARKS.md, "Upstream cost of a sync").
  bool StreamsListEncoding() const { return major > 1 || (major == 1 && minor >= 33); }
};

// Reads a /version document. INVALID_ARGUMENT, naming the field, when major
// or minor is missing or does not start with a number.
absl::StatusOr<ServerVersion> ParseServerVersion(std::string_view body);

// Reads the answer to GET /version: the server's error (UNAVAILABLE when
// it could not be reached), or ParseServerVersion's. Apart from asking, so
// it can be fuzzed without a client.
absl::StatusOr<ServerVersion> ServerVersionFrom(const absl::StatusOr<HttpResponse>& response);

// GETs and reads /version.
inline absl::StatusOr<ServerVersion> GetServerVersion(RestClient& client) {
  return ServerVersionFrom(client.Get("/version"));
}

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_DISCOVERY_H_
