#include <iostream>

#include "absl/strings/str_cat.h"
#include "client/cpp/informerctl/commands.h"
#include "client/cpp/informerctl/errors.h"
#include "client/cpp/informerctl/resource_lookup.h"
#include "client/cpp/informerctl/table.h"

namespace informerd {
namespace informerctl {

int RunResources(const CommandLine& line) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client::Connect(line.connection);
  if (!channel.ok()) return ReportError(channel.status());
  std::unique_ptr<informerd::v1::Cache::Stub> stub =
      informerd::v1::Cache::NewStub(*channel);
  absl::StatusOr<informerd::v1::ListResourcesResponse> served =
      FetchResources(stub.get(), line.connection,
                     line.all_namespaces ? "" : line.namespace_name);
  if (!served.ok()) return ReportError(served.status());

  std::vector<std::vector<std::string>> rows = {
      {"RESOURCE", "KIND", "NAMESPACED", "SYNCED", "OBJECTS", "RV"}};
  for (const informerd::v1::ResourceStatus& status : served->resources()) {
    rows.push_back({ResourceDisplayName(status.resource()), status.kind(),
                    status.namespaced() ? "true" : "false",
                    status.synced() ? "true" : "false",
                    absl::StrCat(status.object_count()),
                    status.resource_version()});
  }
  std::cout << FormatTable(rows) << std::flush;
  return kExitOk;
}

}  // namespace informerctl
}  // namespace informerd
