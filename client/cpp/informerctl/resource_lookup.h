// Learning from the server what a RESOURCE argument refers to, as kubectl
// learns it through discovery: which group serves a bare plural, whether the
// resource is namespaced, and so which namespace a request should name.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_RESOURCE_LOOKUP_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_RESOURCE_LOOKUP_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/cpp/connection.h"
#include "client/cpp/informerctl/args.h"
#include "client/cpp/resource_ref.h"
#include "informerd/v1/informerd.grpc.pb.h"

namespace informerd {
namespace informerctl {

// "deployments.apps", "pods": kubectl's name for a resource in messages and
// in -o name output.
std::string ResourceDisplayName(const informerd::v1::ResourceName& resource);

// "v1", "apps/v1".
std::string ApiVersion(const informerd::v1::ResourceName& resource);

// The served resource ref names. A ref without an explicit group matches any
// group, preferring the core group. NOT_FOUND if none is served;
// INVALID_ARGUMENT if several groups serve it. Messages quote input.
absl::StatusOr<informerd::v1::ResourceStatus> ResolveResource(
    const std::string& input, const client::ResourceRef& ref,
    const informerd::v1::ListResourcesResponse& served);

// ListResources, then ResolveResource.
absl::StatusOr<informerd::v1::ResourceStatus> LookUpResource(
    informerd::v1::Cache::Stub* stub, const client::ConnectionOptions& options,
    const std::string& input, const client::ResourceRef& ref,
    const std::string& namespace_name);

// The resources the caller may list, cluster-wide or (namespace_name set)
// in that namespace: a caller with a namespace's Role sees its resources.
absl::StatusOr<informerd::v1::ListResourcesResponse> FetchResources(
    informerd::v1::Cache::Stub* stub, const client::ConnectionOptions& options,
    const std::string& namespace_name);

// A stub on a channel to line.connection, and the resource line names as
// the server serves it: what get and watch start from.
struct ResourceTarget {
  std::unique_ptr<informerd::v1::Cache::Stub> stub;
  informerd::v1::ResourceStatus resource;
};
absl::StatusOr<ResourceTarget> ConnectToResource(const CommandLine& line);

// kubectl's rule: cluster-scoped resources and -A mean no namespace; else -n,
// defaulting to "default".
std::string RequestNamespace(const CommandLine& line, bool namespaced);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_RESOURCE_LOOKUP_H_
