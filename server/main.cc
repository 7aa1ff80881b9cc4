// informerd: one shared Kubernetes informer cache, served over gRPC.
//
// Start-up: configuration (flags, optional YAML file), the API server
// client, then per resource discovery, an Informer and its Reflector; then
// the gRPC server (Cache service, health, reflection) and the admin HTTP
// server. SIGTERM or SIGINT drain: health turns NOT_SERVING, Watch streams
// end with UNAVAILABLE so clients resume elsewhere, the servers stop.
#include <csignal>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <algorithm>
#include <atomic>
#include <vector>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "server/admin/admin_server.h"
#include "server/auth/authorizer.h"
#include "server/auth/kube_reviewer.h"
#include "server/config/config.h"
#include "server/kube/kubeconfig.h"
#include "server/kube/rest_client.h"
#include "server/log/log.h"
#include "server/metrics/metrics.h"
#include "server/service/cache_service.h"
#include "server/service/served_resource.h"
#include "server/tls/server_credentials.h"
#include "server/kube/resource_name.h"

ABSL_FLAG(std::string, kubeconfig, "",
          "kubeconfig file; empty: $KUBECONFIG, else the in-cluster service account");
ABSL_FLAG(std::string, context, "", "kubeconfig context; empty: current-context");
ABSL_FLAG(std::string, config, "", "YAML configuration file (see docs/CONFIGURATION.md)");
ABSL_FLAG(std::string, resources, "",
          "resources to serve with default settings, e.g. configmaps,pods,deployments.apps");
ABSL_FLAG(std::string, grpc_address, "0.0.0.0:50051", "gRPC listen address");
ABSL_FLAG(std::string, http_address, "0.0.0.0:8080",
          "HTTP listen address for /healthz, /readyz and /metrics");
ABSL_FLAG(std::string, auth_mode, "",
          "none (anyone may read what is served) or kubernetes (bearer token, TokenReview and "
          "SubjectAccessReview per read); empty: the config file's authMode, else none");
ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM certificate chain for the gRPC port; with --tls-key-file enables TLS, re-read "
          "when it changes");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key for --tls-cert-file");
ABSL_FLAG(std::string, client_ca_file, "",
          "PEM CA bundle; set: gRPC clients must present a certificate it signed (mTLS)");
ABSL_FLAG(bool, http_tls, false,
          "serve --http-address over TLS with the gRPC port's certificate, key and client CA");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning or error");
ABSL_FLAG(bool, log_json, false, "log JSON lines");
ABSL_FLAG(std::string, upstream_list, "stream",
          "how the state of each resource is read from the API server: stream (a WATCH with "
          "sendInitialEvents, falling back to paged LIST where the server refuses it) or paged");

namespace informerd {
namespace {

constexpr std::string_view kComponent = "main";

[[noreturn]] void Fatal(const std::string& message) {
  log::Error(kComponent, message);
  std::exit(1);
}

absl::StatusOr<kube::ClusterConfig> LoadClusterConfig() {
  std::string path = absl::GetFlag(FLAGS_kubeconfig);
  if (path.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr) path = env;
  }
  if (!path.empty()) return kube::LoadKubeconfig(path, absl::GetFlag(FLAGS_context));
  return kube::LoadInClusterConfig();
}

config::Config LoadConfig() {
  config::Config config;
  if (std::string path = absl::GetFlag(FLAGS_config); !path.empty()) {
    absl::StatusOr<config::Config> loaded = config::LoadConfigFile(path);
    if (!loaded.ok()) Fatal(std::string(loaded.status().message()));
    config = *std::move(loaded);
  }
  absl::StatusOr<std::vector<config::ResourceConfig>> extra =
      config::ParseResourceList(absl::GetFlag(FLAGS_resources));
  if (!extra.ok()) Fatal(std::string(extra.status().message()));
  for (config::ResourceConfig& resource : *extra) config.resources.push_back(std::move(resource));
  if (std::string mode = absl::GetFlag(FLAGS_auth_mode); !mode.empty()) {
    absl::StatusOr<config::AuthMode> parsed = config::ParseAuthMode(mode);
    if (!parsed.ok()) Fatal(absl::StrCat("--auth-mode: ", parsed.status().message()));
    config.auth.mode = *parsed;
  }
  if (std::string file = absl::GetFlag(FLAGS_tls_cert_file); !file.empty()) {
    config.tls.cert_file = file;
  }
  if (std::string file = absl::GetFlag(FLAGS_tls_key_file); !file.empty()) {
    config.tls.key_file = file;
  }
  if (std::string file = absl::GetFlag(FLAGS_client_ca_file); !file.empty()) {
    config.tls.client_ca_file = file;
  }
  if (absl::GetFlag(FLAGS_http_tls)) config.tls.http = true;
  if (std::string mode = absl::GetFlag(FLAGS_upstream_list); mode == "paged") {
    config.streaming_list = false;
  } else if (mode != "stream") {
    Fatal(absl::StrCat("--upstream-list: \"", mode, "\" is neither stream nor paged"));
  }
  if (config.tls.http && config.tls.cert_file.empty()) {
    Fatal("--http-tls: needs --tls-cert-file and --tls-key-file");
  }
  if (config.resources.empty()) {
    Fatal("nothing to serve: name resources with --resources=configmaps,pods or in --config");
  }
  return config;
}

std::string KubectlName(const config::ResourceConfig& wanted) {
  return kube::KubectlName(wanted.group, wanted.resource);
}

// Discovery retries while the API server is unreachable (it may start after
// informerd). nullopt when the API server does not serve the resource (yet:
// its CRD may be installed later); any other refusal is fatal.
std::optional<kube::ResourceInfo> Discover(kube::RestClient& client,
                                           const config::ResourceConfig& wanted,
                                           absl::Duration retry_for) {
  absl::Duration delay = absl::Milliseconds(500);
  absl::Time deadline = absl::Now() + retry_for;
  while (true) {
    absl::StatusOr<kube::ResourceInfo> info =
        kube::Discover(client, wanted.group, wanted.version, wanted.resource);
    if (info.ok()) return *std::move(info);
    if (info.status().code() == absl::StatusCode::kNotFound) return std::nullopt;
    bool transient = info.status().code() == absl::StatusCode::kUnavailable ||
                     info.status().code() == absl::StatusCode::kDeadlineExceeded;
    if (!transient || absl::Now() > deadline) {
      Fatal(absl::StrCat("resource ", KubectlName(wanted), ": ", info.status().message()));
    }
    log::Warning(kComponent, absl::StrCat("discovery of ", KubectlName(wanted),
                                          " failed, retrying: ", info.status().message()));
    absl::SleepFor(delay);
    delay = std::min(delay * 2, absl::Seconds(10));
  }
}

std::unique_ptr<service::ServedResource> StartResource(kube::RestClient& client,
                                                       const config::Config& config,
                                                       const config::ResourceConfig& wanted,
                                                       kube::ResourceInfo info) {
  service::ServedResourceOptions options;
  options.history = config.history;
  options.streaming_list = config.streaming_list;
  std::unique_ptr<service::ServedResource> served =
      service::StartServedResource(&client, std::move(info), wanted, options);
  log::Info(kComponent, absl::StrCat("serving ", served->DisplayName(), " (", served->info.kind,
                                     ", ", served->info.version, ")"));
  return served;
}

int Run() {
  config::Config config = LoadConfig();
  absl::StatusOr<kube::ClusterConfig> cluster = LoadClusterConfig();
  if (!cluster.ok()) Fatal(std::string(cluster.status().message()));
  absl::StatusOr<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(*cluster);
  if (!client.ok()) Fatal(std::string(client.status().message()));

  tls::TlsFiles tls_files{config.tls.cert_file, config.tls.key_file, config.tls.client_ca_file,
                          config.tls.refresh_interval};
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      tls::MakeServerCredentials(tls_files);
  if (!credentials.ok()) Fatal(std::string(credentials.status().message()));

  // Reviews get a client of their own with a short timeout: they run inside
  // gRPC callbacks.
  std::unique_ptr<kube::RestClient> review_client;
  std::unique_ptr<auth::KubeReviewer> reviewer;
  std::unique_ptr<auth::Authorizer> authorizer;
  if (config.auth.mode == config::AuthMode::kKubernetes) {
    kube::RestClientOptions review_options;
    review_options.connect_timeout = config.auth.review_timeout;
    review_options.request_timeout = config.auth.review_timeout;
    absl::StatusOr<std::unique_ptr<kube::RestClient>> made =
        kube::RestClient::Create(*cluster, review_options);
    if (!made.ok()) Fatal(std::string(made.status().message()));
    review_client = *std::move(made);
    reviewer = std::make_unique<auth::KubeReviewer>(review_client.get());
    auth::AuthorizerOptions authorizer_options;
    authorizer_options.token_ttl = config.auth.token_ttl;
    authorizer_options.decision_ttl = config.auth.decision_ttl;
    authorizer_options.cache_capacity = config.auth.cache_size;
    authorizer = std::make_unique<auth::Authorizer>(reviewer.get(), authorizer_options);
  }

  service::ResourceRegistry registry;
  std::vector<config::ResourceConfig> pending;
  for (const config::ResourceConfig& wanted : config.resources) {
    if (config::IsSensitive(config, wanted)) {
      log::Warning(kComponent,
                   absl::StrCat("serving the sensitive resource ", KubectlName(wanted),
                                " because the configuration names it",
                                authorizer == nullptr ? ", to every caller (--auth-mode=none)"
                                                      : ""));
    }
    if (std::optional<kube::ResourceInfo> info = Discover(**client, wanted, absl::Minutes(2))) {
      registry.Add(StartResource(**client, config, wanted, *std::move(info)));
    } else {
      log::Warning(kComponent, absl::StrCat("resource ", KubectlName(wanted),
                                            " is not served by the API server yet (is its "
                                            "CustomResourceDefinition installed?); waiting for it"));
      registry.AddPending(wanted.group, wanted.resource);
      pending.push_back(wanted);
    }
  }

  metrics::Metrics metrics;
  service::CacheServiceOptions service_options;
  service_options.version_wait = config.read_wait;
  service_options.bookmark_interval = config.bookmark_interval;
  service_options.max_page_bytes = config.max_page_bytes;
  service_options.authorizer = authorizer.get();
  service_options.auth_recheck_interval = config.auth.recheck_interval;
  service_options.max_watches = config.limits.max_watches;
  service_options.max_watches_per_identity = config.limits.max_watches_per_identity;
  service_options.max_lists = config.limits.max_lists;
  service_options.max_lists_per_identity = config.limits.max_lists_per_identity;
  service_options.rates = config.limits.rates;
  service::CacheService cache_service(&registry, &metrics, service_options);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  std::string grpc_address = absl::GetFlag(FLAGS_grpc_address);
  int bound_port = 0;
  builder.AddListeningPort(grpc_address, *credentials, &bound_port);
  builder.RegisterService(&cache_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || bound_port == 0) Fatal(absl::StrCat("--grpc-address: cannot listen on ", grpc_address));
  std::string transport = tls::Describe(tls_files);
  std::string serving = absl::StrCat(
      "gRPC on ", grpc_address, " over ", transport,
      authorizer == nullptr ? ", without authentication (--auth-mode=none)"
                            : ", with Kubernetes authentication and RBAC (--auth-mode=kubernetes)");
  if (authorizer == nullptr || transport == "plaintext") {
    log::Warning(kComponent, serving);
  } else {
    log::Info(kComponent, serving);
  }
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  health->SetServingStatus(false);

  std::atomic<bool> ready{false};
  admin::AdminServer admin(&registry, &metrics, &ready);
  if (absl::Status status = admin.Start(absl::GetFlag(FLAGS_http_address),
                                       config.tls.http ? &tls_files : nullptr);
      !status.ok()) {
    Fatal(std::string(status.message()));
  }
  log::Info(kComponent, absl::StrCat("HTTP on ", absl::GetFlag(FLAGS_http_address)));

  absl::Notification stopping;
  // Resources whose CRD is not installed yet are looked up again until they
  // appear, so they are served like built-in types once they exist.
  std::thread discoverer([&] {
    while (!pending.empty() && !stopping.WaitForNotificationWithTimeout(absl::Seconds(5))) {
      for (auto it = pending.begin(); it != pending.end();) {
        absl::StatusOr<kube::ResourceInfo> info =
            kube::Discover(**client, it->group, it->version, it->resource);
        if (!info.ok()) {
          if (info.status().code() != absl::StatusCode::kNotFound) {
            log::Warning(kComponent, absl::StrCat("discovery of ", KubectlName(*it),
                                                  " failed, retrying: ", info.status().message()));
          }
          ++it;
          continue;
        }
        registry.Add(StartResource(**client, config, *it, *std::move(info)));
        it = pending.erase(it);
      }
    }
  });
  // Polled often: time to ready is what a rollout waits for, and the check
  // is a load of one flag per resource.
  std::thread readiness([&] {
    do {
      if (registry.AllSynced()) {
        health->SetServingStatus(true);
        ready = true;
        log::Info(kComponent, "all resources synced; serving");
        return;
      }
    } while (!stopping.WaitForNotificationWithTimeout(absl::Milliseconds(5)));
  });

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  log::Info(kComponent, absl::StrCat("signal ", signal_number, ": draining"));
  stopping.Notify();
  readiness.join();
  discoverer.join();
  ready = false;
  health->SetServingStatus(false);
  cache_service.EndWatches();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  admin.Stop();
  for (service::ServedResource* served : registry.all()) served->reflector->Stop();
  log::Info(kComponent, "stopped");
  return 0;
}

}  // namespace
}  // namespace informerd

int main(int argc, char** argv) {
  // Every thread inherits the mask, so only sigwait in Run sees these.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  absl::SetProgramUsageMessage(
      "informerd --kubeconfig FILE --resources=configmaps,pods [--config FILE]");
  // Flags are spelled with dashes (--grpc-address) as Kubernetes tools spell
  // them; Abseil's flag names use underscores.
  std::vector<std::string> normalized(argv, argv + argc);
  for (std::string& arg : normalized) {
    if (arg.rfind("--", 0) != 0) continue;
    size_t end = std::min(arg.find('='), arg.size());
    for (size_t i = 2; i < end; ++i) {
      if (arg[i] == '-') arg[i] = '_';
    }
  }
  std::vector<char*> args;
  for (std::string& arg : normalized) args.push_back(arg.data());
  absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  absl::StatusOr<informerd::log::Level> level =
      informerd::log::ParseLevel(absl::GetFlag(FLAGS_log_level));
  if (!level.ok()) {
    informerd::log::Error("main", absl::StrCat("--log-level: ", level.status().message()));
    return 2;
  }
  informerd::log::SetLevel(*level);
  informerd::log::SetJson(absl::GetFlag(FLAGS_log_json));
  return informerd::Run();
}
