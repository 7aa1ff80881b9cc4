#include "server/server.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <tuple>
#include <utility>

#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"
#include "server/auth/kube_reviewer.h"
#include "server/config/validate.h"
#include "server/limits/descriptors.h"
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
  config::Placement placement;
  placement.grpc_address = options_.grpc_address;
  placement.kube_api_address = options_.kube_api_address;
  // The cluster is judged only where Start connects with it.
  const bool reads_cluster = options_.upstream == nullptr && options_.client == nullptr;
  const bool reviews_cluster =
      config.auth.mode == config::AuthMode::kKubernetes && options_.reviewer == nullptr;
  if (reads_cluster || reviews_cluster) placement.cluster = options_.cluster;
  absl::StatusOr<std::vector<std::string>> warnings = config::Validate(config, placement);
  if (!warnings.ok()) return warnings.status();
  for (const std::string& warning : *warnings) log::Warning(kComponent, warning);

  if (absl::Status status = MakeUpstream(); !status.ok()) return status;
  if (absl::Status status = MakeAuthorizer(); !status.ok()) return status;

  service::RegistryOptions registry_options;
  registry_options.resource.history = config.history;
  registry_options.resource.upstream_list = config.upstream_list;
  registry_options.resource.history_backfill = config.history_backfill;
  if (absl::Status status = registry_.Start(upstream_, config.resources, registry_options);
      !status.ok()) {
    return status;
  }

  if (absl::Status status = StartGrpc(); !status.ok()) return status;
  grpc_probe_ = std::make_unique<admin::ListenerProbe>("gRPC", options_.grpc_address, grpc_port_,
                                                       !tls_files_.cert_file.empty());
  grpc_probe_->Start();
  admin::AdminOptions admin_options;
  admin_options.limits.max_connections = limits::AdminConnectionBudget(
      limits::CurrentDescriptorLimit().soft, admin_options.limits.max_connections);
  admin_options.grpc_probe = grpc_probe_.get();
  admin_options.upstream_progress_timeout = config.upstream_progress_timeout;
  admin_ = std::make_unique<admin::AdminServer>(&registry_, &metrics_, &ready_, admin_options);
  if (absl::Status status =
          admin_->Start(options_.http_address, config.tls.http ? &tls_files_ : nullptr);
      !status.ok()) {
    return status;
  }
  log::Info(kComponent, absl::StrCat("HTTP on ", options_.http_address, " (port ",
                                     admin_->port(), ")"));
  if (absl::Status status = StartKubeApi(); !status.ok()) return status;

  // Last: the callback may run at once, and it needs both servers.
  registry_.OnReady([this] { MarkReady(); });
  return absl::OkStatus();
}

absl::Status Server::MakeUpstream() {
  const config::Config& config = options_.config;
  if (options_.upstream != nullptr) {
    upstream_ = options_.upstream;
    return absl::OkStatus();
  }
  if (!config.upstream.url.empty()) {
    absl::StatusOr<std::unique_ptr<tier::InformerdUpstream>> upstream =
        tier::InformerdUpstream::Create(config.upstream, config.tls.refresh_interval);
    if (!upstream.ok()) return upstream.status();
    log::Info(kComponent, absl::StrCat("upstream: the informerd at ", config.upstream.url));
    own_upstream_ = *std::move(upstream);
  } else {
    kube::RestClient* client = options_.client;
    if (client == nullptr) {
      absl::StatusOr<std::unique_ptr<kube::RestClient>> made =
          kube::RestClient::Create(options_.cluster);
      if (!made.ok()) return made.status();
      own_client_ = *std::move(made);
      client = own_client_.get();
    }
    own_upstream_ = std::make_unique<service::ApiServerUpstream>(client);
  }
  upstream_ = own_upstream_.get();
  return absl::OkStatus();
}

absl::Status Server::MakeAuthorizer() {
  const config::Config& config = options_.config;
  if (config.auth.mode != config::AuthMode::kKubernetes) return absl::OkStatus();
  reviewer_ = options_.reviewer;
  if (reviewer_ == nullptr) {
    // Reviews get a client of their own with a short timeout: they run
    // inside gRPC callbacks.
    kube::RestClientOptions review_options;
    review_options.connect_timeout = config.auth.review_timeout;
    review_options.request_timeout = config.auth.review_timeout;
    absl::StatusOr<std::unique_ptr<kube::RestClient>> made =
        kube::RestClient::Create(options_.cluster, review_options);
    if (!made.ok()) return made.status();
    review_client_ = *std::move(made);
    own_reviewer_ =
        std::make_unique<auth::KubeReviewer>(review_client_.get(), config.auth.token_audiences);
    reviewer_ = own_reviewer_.get();
    if (config.auth.verify_token_signatures) {
      jwt_verifier_ = std::make_unique<auth::JwtVerifier>(config.auth.token_audiences);
      issuer_keys_ = std::make_unique<auth::IssuerKeys>(review_client_.get(), jwt_verifier_.get());
    }
  }
  counting_reviewer_ = std::make_unique<auth::CountingReviewer>(
      reviewer_, [this](std::string_view kind, std::string_view outcome) {
        metrics_.ReviewSent(kind, outcome);
      });
  reviewer_ = counting_reviewer_.get();
  auth::AuthorizerOptions authorizer_options;
  authorizer_options.token_ttl = config.auth.token_ttl;
  authorizer_options.decision_ttl = config.auth.decision_ttl;
  authorizer_options.cache_capacity = config.auth.cache_size;
  authorizer_options.verifier = jwt_verifier_.get();
  if (issuer_keys_ != nullptr) {
    authorizer_options.unknown_key = [keys = issuer_keys_.get()] { keys->RequestRefetch(); };
  }
  authorizer_ = std::make_unique<auth::Authorizer>(reviewer_, authorizer_options);
  return absl::OkStatus();
}

absl::Status Server::StartGrpc() {
  const config::Config& config = options_.config;
  tls_files_ = tls::TlsFiles{config.tls.cert_file, config.tls.key_file, config.tls.client_ca_file,
                             config.tls.refresh_interval};
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      tls::MakeServerCredentials(tls_files_);
  if (!credentials.ok()) return credentials.status();

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
  builder.AddListeningPort(options_.grpc_address, *credentials, &grpc_port_);
  builder.RegisterService(cache_service_.get());
  service::ConfigureTransport(config.limits.transport, &builder);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(service::NewRequestLogFactory());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  grpc_server_ = builder.BuildAndStart();
  if (grpc_server_ == nullptr || grpc_port_ == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc-address: cannot listen on ", options_.grpc_address));
  }
  std::string transport = tls::Describe(tls_files_);
  std::string serving = absl::StrCat(
      "gRPC on ", options_.grpc_address, " (port ", grpc_port_, ") over ", transport,
      authorizer_ == nullptr
          ? ", without authentication (--auth-mode=none)"
          : ", with Kubernetes authentication and RBAC (--auth-mode=kubernetes)");
  if (authorizer_ == nullptr || transport == "plaintext") {
    log::Warning(kComponent, serving);
  } else {
    log::Info(kComponent, serving);
  }
  grpc_server_->GetHealthCheckService()->SetServingStatus(false);
  return absl::OkStatus();
}

absl::Status Server::StartKubeApi() {
  if (options_.kube_api_address.empty()) return absl::OkStatus();
  if (options_.kube_api_pass_through) {
    if (options_.cluster.server.empty()) {
      return absl::InvalidArgumentError(
          "--kube-api-pass-through: no apiserver to pass requests through to (no kubeconfig); "
          "set --kube-api-pass-through=false");
    }
    absl::StatusOr<std::unique_ptr<kubeapi::PassThrough>> pass_through =
        kubeapi::PassThrough::Create(options_.cluster, {});
    if (!pass_through.ok()) return pass_through.status();
    pass_through_ = *std::move(pass_through);
  }
  kubeapi::KubeApiOptions kube_options;
  kube_options.address = options_.kube_api_address;
  kube_options.trust_forwarded_for = options_.trust_forwarded_for;
  for (auto [path, pem, flag] :
       {std::tuple<const std::string*, std::string*, const char*>{
            &options_.config.tls.cert_file, &kube_options.tls_cert_pem, "--tls-cert-file"},
        {&options_.config.tls.key_file, &kube_options.tls_key_pem, "--tls-key-file"}}) {
    if (path->empty()) continue;
    std::ifstream file(*path, std::ios::binary);
    std::stringstream contents;
    contents << file.rdbuf();
    if (!file || contents.str().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read ", *path));
    }
    *pem = contents.str();
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  absl::StatusOr<std::unique_ptr<kubeapi::KubeApiServer>> kube_api =
      kubeapi::KubeApiServer::Start(kube_options, grpc_server_->InProcessChannel(arguments),
                                    &registry_, pass_through_.get());
  if (!kube_api.ok()) return kube_api.status();
  kube_api_ = *std::move(kube_api);
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
  // Before the Cache service it calls stops.
  if (kube_api_ != nullptr) kube_api_->Stop();
  if (grpc_server_ != nullptr) {
    cache_service_->EndWatches();
    grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }
  if (admin_ != nullptr) admin_->Stop();
  if (grpc_probe_ != nullptr) grpc_probe_->Stop();
  registry_.Stop();
  log::Info(kComponent, "stopped");
}

Server::~Server() { Drain(); }

}  // namespace informerd
