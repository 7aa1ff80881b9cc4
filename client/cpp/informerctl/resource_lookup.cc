#include "client/cpp/informerctl/resource_lookup.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/cpp/informerctl/errors.h"

namespace informerd {
namespace informerctl {

std::string ResourceDisplayName(const informerd::v1::ResourceName& resource) {
  if (resource.group().empty()) return resource.resource();
  return absl::StrCat(resource.resource(), ".", resource.group());
}

std::string ApiVersion(const informerd::v1::ResourceName& resource) {
  if (resource.group().empty()) return resource.version();
  return absl::StrCat(resource.group(), "/", resource.version());
}

absl::StatusOr<informerd::v1::ResourceStatus> ResolveResource(
    const std::string& input, const client::ResourceRef& ref,
    const informerd::v1::ListResourcesResponse& served) {
  std::vector<const informerd::v1::ResourceStatus*> candidates;
  for (const informerd::v1::ResourceStatus& status : served.resources()) {
    const informerd::v1::ResourceName& name = status.resource();
    if (name.resource() != ref.name.resource()) continue;
    if (ref.group_explicit && name.group() != ref.name.group()) continue;
    if (!ref.name.version().empty() && name.version() != ref.name.version()) {
      continue;
    }
    if (name.group().empty()) return status;
    candidates.push_back(&status);
  }
  if (candidates.empty()) {
    return absl::NotFoundError(
        absl::StrCat("the server doesn't serve resource \"", input, "\""));
  }
  if (candidates.size() > 1) {
    std::vector<std::string> qualified;
    for (const informerd::v1::ResourceStatus* status : candidates) {
      qualified.push_back(ResourceDisplayName(status->resource()));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("resource \"", input, "\" is served by several groups; ",
                     "name one of: ", absl::StrJoin(qualified, ", ")));
  }
  return *candidates[0];
}

absl::StatusOr<informerd::v1::ListResourcesResponse> FetchResources(
    informerd::v1::Cache::Stub* stub, const client::ConnectionOptions& options,
    const std::string& namespace_name) {
  grpc::ClientContext context;
  absl::Status prepared =
      client::PrepareContext(options, &context, /*streaming=*/false);
  if (!prepared.ok()) return prepared;
  informerd::v1::ListResourcesRequest request;
  request.set_namespace_(namespace_name);
  informerd::v1::ListResourcesResponse response;
  grpc::Status status = stub->ListResources(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<informerd::v1::ResourceStatus> LookUpResource(
    informerd::v1::Cache::Stub* stub, const client::ConnectionOptions& options,
    const std::string& input, const client::ResourceRef& ref,
    const std::string& namespace_name) {
  absl::StatusOr<informerd::v1::ListResourcesResponse> served =
      FetchResources(stub, options, namespace_name);
  if (!served.ok()) return served.status();
  return ResolveResource(input, ref, *served);
}

std::string RequestNamespace(const CommandLine& line, bool namespaced) {
  if (!namespaced || line.all_namespaces) return "";
  return line.namespace_name.empty() ? "default" : line.namespace_name;
}

absl::StatusOr<ResourceTarget> ConnectToResource(const CommandLine& line) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = client::Connect(line.connection);
  if (!channel.ok()) return channel.status();
  ResourceTarget target;
  target.stub = informerd::v1::Cache::NewStub(*channel);
  absl::StatusOr<informerd::v1::ResourceStatus> resource =
      LookUpResource(target.stub.get(), line.connection, line.resource_arg, line.resource,
                     RequestNamespace(line, /*namespaced=*/true));
  if (!resource.ok()) return resource.status();
  target.resource = *std::move(resource);
  return target;
}

}  // namespace informerctl
}  // namespace informerd
