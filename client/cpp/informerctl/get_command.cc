#include <iostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/cpp/informerctl/commands.h"
#include "client/cpp/informerctl/errors.h"
#include "client/cpp/informerctl/get_format.h"
#include "client/cpp/informerctl/json_text.h"
#include "client/cpp/informerctl/resource_lookup.h"

namespace informerd {
namespace informerctl {

namespace {

constexpr int64_t kPageSize = 500;

struct Listing {
  std::vector<informerd::v1::Object> items;
  std::string resource_version;
};

// Every page of the List, following continue tokens.
absl::StatusOr<Listing> ListAll(informerd::v1::Cache::Stub* stub,
                                const client::ConnectionOptions& options,
                                informerd::v1::ListRequest request) {
  Listing listing;
  request.set_limit(kPageSize);
  do {
    grpc::ClientContext context;
    absl::Status prepared =
        client::PrepareContext(options, &context, /*streaming=*/false);
    if (!prepared.ok()) return prepared;
    informerd::v1::ListResponse page;
    grpc::Status status = stub->List(&context, request, &page);
    if (!status.ok()) return FromGrpcStatus(status);
    // All pages come from the first page's snapshot.
    if (listing.resource_version.empty()) {
      listing.resource_version = page.resource_version();
    }
    for (informerd::v1::Object& object : *page.mutable_items()) {
      listing.items.push_back(std::move(object));
    }
    request.set_continue_token(page.continue_token());
  } while (!request.continue_token().empty());
  return listing;
}

int PrintObjects(const CommandLine& line,
                 const informerd::v1::ResourceStatus& resource,
                 const std::vector<informerd::v1::Object>& objects,
                 const std::string& resource_version, bool single) {
  switch (line.output) {
    case OutputFormat::kJson:
      if (single) {
        std::cout << ObjectJson(objects.front()) << "\n";
      } else {
        std::cout << FormatListJson(objects, resource_version);
      }
      break;
    case OutputFormat::kYaml: {
      absl::StatusOr<std::string> yaml =
          single ? FormatObjectYaml(objects.front())
                 : FormatListYaml(objects, resource_version);
      if (!yaml.ok()) return ReportError(yaml.status());
      std::cout << *yaml;
      break;
    }
    case OutputFormat::kName:
      std::cout << FormatObjectNames(objects, resource);
      break;
    case OutputFormat::kTable:
    case OutputFormat::kWide: {
      if (objects.empty()) {
        std::string namespace_name = RequestNamespace(line, resource.namespaced());
        std::cerr << (namespace_name.empty()
                          ? std::string("No resources found")
                          : absl::StrCat("No resources found in ",
                                         namespace_name, " namespace."))
                  << std::endl;
        break;
      }
      TableOptions options;
      options.with_namespace = resource.namespaced() && line.all_namespaces;
      options.wide = line.output == OutputFormat::kWide;
      options.now = absl::Now();
      std::cout << FormatObjectTable(resource.resource(), objects, options);
      break;
    }
  }
  std::cout << std::flush;
  return kExitOk;
}

int GetOne(const CommandLine& line, informerd::v1::Cache::Stub* stub,
           const informerd::v1::ResourceStatus& resource) {
  informerd::v1::GetRequest request;
  *request.mutable_resource() = resource.resource();
  request.set_namespace_(RequestNamespace(line, resource.namespaced()));
  request.set_name(line.name);
  grpc::ClientContext context;
  absl::Status prepared =
      client::PrepareContext(line.connection, &context, /*streaming=*/false);
  if (!prepared.ok()) return ReportError(prepared);
  informerd::v1::GetResponse response;
  grpc::Status status = stub->Get(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    std::cerr << "Error from server (NotFound): "
              << ResourceDisplayName(resource.resource()) << " \"" << line.name
              << "\" not found" << std::endl;
    return kExitError;
  }
  if (!status.ok()) return ReportError(FromGrpcStatus(status));
  return PrintObjects(line, resource, {response.object()},
                      response.resource_version(), /*single=*/true);
}

int ListObjects(const CommandLine& line, informerd::v1::Cache::Stub* stub,
                const informerd::v1::ResourceStatus& resource) {
  informerd::v1::ListRequest request;
  *request.mutable_resource() = resource.resource();
  request.set_namespace_(RequestNamespace(line, resource.namespaced()));
  request.set_label_selector(line.label_selector);
  request.set_field_selector(line.field_selector);
  absl::StatusOr<Listing> listing = ListAll(stub, line.connection, request);
  if (!listing.ok()) return ReportError(listing.status());
  return PrintObjects(line, resource, listing->items,
                      listing->resource_version, /*single=*/false);
}

}  // namespace

int RunGet(const CommandLine& line) {
  absl::StatusOr<ResourceTarget> target = ConnectToResource(line);
  if (!target.ok()) return ReportError(target.status());
  if (!line.name.empty()) return GetOne(line, target->stub.get(), target->resource);
  return ListObjects(line, target->stub.get(), target->resource);
}

}  // namespace informerctl
}  // namespace informerd
