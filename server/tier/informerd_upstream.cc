#include "server/tier/informerd_upstream.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <utility>

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/kube/resource_name.h"
#include "server/log/log.h"
#include "server/service/grpc_status.h"

namespace informerd::tier {
namespace {

constexpr absl::Duration kDiscoveryTimeout = absl::Seconds(10);

absl::StatusOr<std::string> ReadFile(const std::string& path, const std::string& flag) {
  std::ifstream file(path);
  if (!file) {
    return absl::FailedPreconditionError(absl::StrCat(flag, " ", path, ": cannot read the file"));
  }
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Adds the bearer token in `token_file` to `context`, read now.
absl::Status AddBearerToken(const std::string& token_file, grpc::ClientContext* context) {
  absl::StatusOr<std::string> token = ReadFile(token_file, "--upstream-token-file");
  if (!token.ok()) return token.status();
  const std::string stripped(absl::StripAsciiWhitespace(*token));
  if (stripped.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--upstream-token-file ", token_file, ": the file is empty"));
  }
  context->AddMetadata("authorization", absl::StrCat("Bearer ", stripped));
  return absl::OkStatus();
}


}  // namespace

absl::StatusOr<std::unique_ptr<InformerdUpstream>> InformerdUpstream::Create(
    const config::UpstreamConfig& config, absl::Duration refresh_interval) {
  if (absl::Status status = config::CheckUpstream(config); !status.ok()) return status;
  absl::StatusOr<config::UpstreamAddress> address = config::ParseUpstreamUrl(config.url);
  if (!address.ok()) return address.status();
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (!address->tls) {
    credentials = grpc::InsecureChannelCredentials();
  } else if (config.ca_file.empty() && config.cert_file.empty()) {
    credentials = grpc::SslCredentials(grpc::SslCredentialsOptions());  // the system's roots
  } else {
    // As the server's own port (tls::MakeServerCredentials): gRPC's file
    // watcher re-reads the CA and the client certificate, so rotated files
    // reach new connections. It only logs unreadable files, so they are
    // reported here, at start.
    for (auto [path, flag] : {std::pair{&config.ca_file, "--upstream-ca-file"},
                              std::pair{&config.cert_file, "--upstream-cert-file"},
                              std::pair{&config.key_file, "--upstream-key-file"}}) {
      if (path->empty()) continue;
      if (absl::StatusOr<std::string> read = ReadFile(*path, flag); !read.ok()) {
        return read.status();
      }
    }
    const unsigned int refresh_seconds = static_cast<unsigned int>(
        std::max<int64_t>(1, absl::ToInt64Seconds(refresh_interval)));
    std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider;
    if (config.cert_file.empty()) {
      provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
          config.ca_file, refresh_seconds);
    } else if (config.ca_file.empty()) {
      provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
          config.key_file, config.cert_file, refresh_seconds);
    } else {
      provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
          config.key_file, config.cert_file, config.ca_file, refresh_seconds);
    }
    grpc::experimental::TlsChannelCredentialsOptions options;
    options.set_certificate_provider(provider);
    if (!config.ca_file.empty()) options.watch_root_certs();  // else the system's roots
    if (!config.cert_file.empty()) options.watch_identity_key_cert_pairs();
    // The root's certificate must name the host of --upstream.
    options.set_certificate_verifier(
        std::make_shared<grpc::experimental::HostNameCertificateVerifier>());
    credentials = grpc::experimental::TlsCredentials(options);
  }
  if (!config.token_file.empty()) {
    // Fails early on a path that cannot be read; later reads pick up
    // rotations.
    absl::StatusOr<std::string> token = ReadFile(config.token_file, "--upstream-token-file");
    if (!token.ok()) return token.status();
  }
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  // One event carries one object; Kubernetes objects stay far below this.
  args.SetMaxReceiveMessageSize(64 << 20);
  // A restarted root is found again within a second or two, as the
  // clients' channels do.
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(address->target, credentials, args);
  PendingListBounds bounds = ListBounds(config, limits::ProcessMemoryLimit());
  log::Info("upstream", absl::StrCat("initial lists from ", config.url, ": at most ",
                                     bounds.max_items, " items each and ", bounds.max_bytes,
                                     " bytes together before their ends (", bounds.why, ")"));
  return std::unique_ptr<InformerdUpstream>(
      new InformerdUpstream(config.url, config.token_file, std::move(channel),
                            std::make_shared<PendingListBudget>(std::move(bounds))));
}

PendingListBounds InformerdUpstream::ListBounds(
    const config::UpstreamConfig& config, const std::optional<limits::MemoryLimit>& memory_limit) {
  PendingListBounds bounds;
  bounds.max_items = config.list_max_items;
  if (config.list_max_bytes != 0) {
    bounds.max_bytes = config.list_max_bytes;
    bounds.why = "set";
  } else if (memory_limit.has_value()) {
    // The cache holds a resource's objects while its next list arrives:
    // a list larger than half the memory cannot be taken anyway.
    bounds.max_bytes = memory_limit->bytes / 2;
    bounds.why = absl::StrCat("half the memory limit ", memory_limit->bytes, " in ",
                              memory_limit->source);
  } else {
    bounds.max_bytes = uint64_t{4} << 30;
    bounds.why = "no memory limit found; the default";
  }
  return bounds;
}

absl::Status InformerdUpstream::SetUpCall(grpc::ClientContext* context) const {
  if (token_file_.empty()) return absl::OkStatus();
  return AddBearerToken(token_file_, context);
}

absl::StatusOr<kube::ResourceInfo> InformerdUpstream::Discover(
    const config::ResourceConfig& wanted) {
  const std::string name = kube::KubectlName(wanted.group, wanted.resource);
  const std::string what = absl::StrCat("ListResources on the upstream informerd ", url_);
  grpc::ClientContext context;
  if (absl::Status status = SetUpCall(&context); !status.ok()) return status;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(absl::ToInt64Milliseconds(kDiscoveryTimeout)));
  auto stub = v1::Cache::NewStub(channel_);
  v1::ListResourcesRequest request;
  // A leaf allowed to read one namespace only is told about the resources
  // it may read there.
  request.set_namespace_(wanted.namespace_);
  v1::ListResourcesResponse response;
  grpc::Status status = stub->ListResources(&context, request, &response);
  if (!status.ok()) return service::FromGrpc(status, what);
  for (const v1::ResourceStatus& served : response.resources()) {
    if (served.resource().group() != wanted.group ||
        served.resource().resource() != wanted.resource) {
      continue;
    }
    if (!wanted.version.empty() && served.resource().version() != wanted.version) {
      return absl::FailedPreconditionError(
          absl::StrCat(name, ": the upstream informerd serves version ",
                       served.resource().version(), ", not ", wanted.version));
    }
    kube::ResourceInfo info;
    info.group = served.resource().group();
    info.version = served.resource().version();
    info.resource = served.resource().resource();
    info.kind = served.kind();
    info.namespaced = served.namespaced();
    info.verbs = {"get", "list", "watch"};
    return info;
  }
  return absl::NotFoundError(
      absl::StrCat(name, " is not served by the upstream informerd ", url_,
                   " (or it does not let this informerd list it)"));
}

std::unique_ptr<kube::UpstreamReader> InformerdUpstream::NewReader(
    const kube::ResourceInfo& info, const config::ResourceConfig& wanted,
    const service::ServedResourceOptions& options, kube::ListWatchSink* sink) {
  v1::ResourceName resource;
  resource.set_group(info.group);
  resource.set_version(info.version);
  resource.set_resource(info.resource);
  InformerdReaderOptions reader_options;
  reader_options.upstream = url_;
  reader_options.namespace_ = wanted.namespace_;
  reader_options.label_selector = wanted.label_selector;
  reader_options.field_selector = wanted.field_selector;
  reader_options.pending_lists = pending_lists_;
  if (!token_file_.empty()) {
    // The reader may outlive this upstream: it keeps its own copy.
    reader_options.call_setup = [token_file = token_file_](grpc::ClientContext* context) {
      return AddBearerToken(token_file, context);
    };
  }
  return std::make_unique<InformerdReader>(channel_, std::move(resource),
                                           std::move(reader_options), sink);
}

}  // namespace informerd::tier
