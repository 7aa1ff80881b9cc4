#include "server/server.h"

#include <chrono>
#include <utility>

#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"
#include "server/kube/resource_name.h"
#include "server/log/log.h"
#include "server/service/request_log.h"
#include "server/service/transport.h"
#include "server/tier/informerd_upstream.h"

namespace informerd {
namespace {

constexpr std::string_view kComponent = "main";

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Start(ServerOptions options) {
  std::unique_ptr<Server> server(new Server(std::move(options)));
  if (absl::Status status = server->StartAll(); !status.ok()) return status;
  return server;
}

absl::Status Server::StartAll() {
  const config::Config& config = options_.config;
  // Before anything connects or listens: an unsafe combination never runs.
  if (absl::Status status = config::CheckListener(config, options_.grpc_address); !status.ok()) {
    return status;
  }
  const bool tier_leaf = !config.upstream.url.empty();
  // A leaf needs the apiserver only to review its own callers.
  const bool needs_apiserver = !tier_leaf || config.auth.mode == config::AuthMode::kKubernetes;
  if (absl::Status status = config::CheckUpstream(config.upstream); !status.ok()) return status;
  if (tier_leaf) {
    absl::StatusOr<config::UpstreamAddress> address = config::ParseUpstreamUrl(config.upstream.url);
    if (!address.ok()) return address.status();
    if (!address->tls && !address->loopback) {
      if (!config.allow_insecure_upstream) {
        return absl::FailedPreconditionError(absl::StrCat(
            "refusing the upstream informerd ", config.upstream.url,
            ": plaintext to another host, so every object (and the leaf's token) travels "
            "unprotected, or to whoever poses as the root. Use --upstream=grpcs://... with "
            "--upstream-ca-file, or accept the risk with --allow-insecure-upstream"));
      }
      log::Warning(kComponent, absl::StrCat("plaintext upstream ", config.upstream.url,
                                            " (allowed by --allow-insecure-upstream)"));
    }
  }
  if (std::string insecure = needs_apiserver ? kube::InsecureTransport(options_.cluster) : "";
      !insecure.empty()) {
    if (!config.allow_insecure_upstream) {
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing the API server connection: ", insecure,
          ". Fix the kubeconfig (an https:// server and its certificate-authority), or accept "
          "the risk with --allow-insecure-upstream"));
    }
    log::Warning(kComponent, absl::StrCat(insecure, " (allowed by --allow-insecure-upstream)"));
  }
  if (config.auth.mode == config::AuthMode::kNone && config.auth.allow_unauthenticated &&
      !config::IsLoopbackAddress(options_.grpc_address)) {
    log::Warning(kComponent,
                 absl::StrCat("every caller that reaches ", options_.grpc_address,
                              " reads every served object (allowed by --allow-unauthenticated)"));
  }
  if (config.auth.mode == config::AuthMode::kKubernetes && config.tls.cert_file.empty() &&
      config.auth.allow_plaintext_tokens && !config::IsLoopbackAddress(options_.grpc_address)) {
    log::Warning(kComponent,
                 absl::StrCat("bearer tokens reach ", options_.grpc_address,
                              " in clear text (allowed by --allow-plaintext-tokens)"));
  }
  if (tier_leaf) {
    absl::StatusOr<std::unique_ptr<tier::InformerdUpstream>> upstream =
        tier::InformerdUpstream::Create(config.upstream, config.tls.refresh_interval);
    if (!upstream.ok()) return upstream.status();
    log::Info(kComponent, absl::StrCat("upstream: the informerd at ", config.upstream.url));
    upstream_ = *std::move(upstream);
  } else {
    absl::StatusOr<std::unique_ptr<kube::RestClient>> client =
        kube::RestClient::Create(options_.cluster);
    if (!client.ok()) return client.status();
    client_ = *std::move(client);
    upstream_ = std::make_unique<service::ApiServerUpstream>(client_.get());
  }

  tls_files_ = tls::TlsFiles{config.tls.cert_file, config.tls.key_file, config.tls.client_ca_file,
                             config.tls.refresh_interval};
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      tls::MakeServerCredentials(tls_files_);
  if (!credentials.ok()) return credentials.status();

  if (config.auth.mode == config::AuthMode::kKubernetes) {
    // Reviews get a client of their own with a short timeout: they run
    // inside gRPC callbacks.
    kube::RestClientOptions review_options;
    review_options.connect_timeout = config.auth.review_timeout;
    review_options.request_timeout = config.auth.review_timeout;
    absl::StatusOr<std::unique_ptr<kube::RestClient>> made =
        kube::RestClient::Create(options_.cluster, review_options);
    if (!made.ok()) return made.status();
    review_client_ = *std::move(made);
    reviewer_ =
        std::make_unique<auth::KubeReviewer>(review_client_.get(), config.auth.token_audiences);
    auth::AuthorizerOptions authorizer_options;
    authorizer_options.token_ttl = config.auth.token_ttl;
    authorizer_options.decision_ttl = config.auth.decision_ttl;
    authorizer_options.cache_capacity = config.auth.cache_size;
    authorizer_ = std::make_unique<auth::Authorizer>(reviewer_.get(), authorizer_options);
  }

  for (const config::ResourceConfig& wanted : config.resources) {
    if (config::IsSensitive(config, wanted)) {
      log::Warning(kComponent,
                   absl::StrCat("serving the sensitive resource ",
                                kube::KubectlName(wanted.group, wanted.resource),
                                " because the configuration names it",
                                authorizer_ == nullptr ? ", to every caller (--auth-mode=none)"
                                                       : ""));
    }
  }
  service::RegistryOptions registry_options;
  registry_options.resource.history = config.history;
  registry_options.resource.upstream_list = config.upstream_list;
  registry_options.resource.history_backfill = config.history_backfill;
  if (absl::Status status = registry_.Start(upstream_.get(), config.resources, registry_options);
      !status.ok()) {
    return status;
  }

  service::CacheServiceOptions service_options;
  service_options.version_wait = config.read_wait;
  service_options.bookmark_interval = config.bookmark_interval;
  service_options.max_page_bytes = config.max_page_bytes;
  service_options.max_list_snapshot_age = config.list_snapshot_max_age;
  service_options.stalled_stream_timeout = config.stalled_stream_timeout;
  service_options.initial_events_timeout = config.initial_events_timeout;
  service_options.authorizer = authorizer_.get();
  service_options.trust_forwarded_for = options_.trust_forwarded_for;
  service_options.auth_recheck_interval = config.auth.recheck_interval;
  service_options.auth_recheck_grace = config.auth.recheck_grace;
  service_options.limits = config.limits;
  cache_service_ = std::make_unique<service::CacheService>(&registry_, &metrics_, service_options);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(options_.grpc_address, *credentials, &bound_port);
  builder.RegisterService(cache_service_.get());
  service::ConfigureTransport(config.limits.transport, &builder);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(service::NewRequestLogFactory());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  grpc_server_ = builder.BuildAndStart();
  if (grpc_server_ == nullptr || bound_port == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc-address: cannot listen on ", options_.grpc_address));
  }
  std::string transport = tls::Describe(tls_files_);
  std::string serving = absl::StrCat(
      "gRPC on ", options_.grpc_address, " over ", transport,
      authorizer_ == nullptr
          ? ", without authentication (--auth-mode=none)"
          : ", with Kubernetes authentication and RBAC (--auth-mode=kubernetes)");
  if (authorizer_ == nullptr || transport == "plaintext") {
    log::Warning(kComponent, serving);
  } else {
    log::Info(kComponent, serving);
  }
  grpc_server_->GetHealthCheckService()->SetServingStatus(false);

  admin_ = std::make_unique<admin::AdminServer>(&registry_, &metrics_, &ready_);
  if (absl::Status status =
          admin_->Start(options_.http_address, config.tls.http ? &tls_files_ : nullptr);
      !status.ok()) {
    return status;
  }
  log::Info(kComponent, absl::StrCat("HTTP on ", options_.http_address));

  // Last: the callback may run at once, and it needs both servers.
  registry_.OnReady([this] { MarkReady(); });
  return absl::OkStatus();
}

void Server::MarkReady() {
  absl::MutexLock lock(&mu_);
  if (draining_) return;
  grpc_server_->GetHealthCheckService()->SetServingStatus(true);
  ready_ = true;
  log::Info(kComponent, "all resources synced; serving");
}

void Server::Drain() {
  {
    absl::MutexLock lock(&mu_);
    if (draining_) return;
    draining_ = true;
    ready_ = false;
    if (grpc_server_ != nullptr) grpc_server_->GetHealthCheckService()->SetServingStatus(false);
  }
  if (grpc_server_ != nullptr) {
    cache_service_->EndWatches();
    grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }
  if (admin_ != nullptr) admin_->Stop();
  registry_.Stop();
  log::Info(kComponent, "stopped");
}

Server::~Server() { Drain(); }

}  // namespace informerd
