// informerd: one shared Kubernetes informer cache, served over gRPC.
//
// main parses the flags and the configuration file, starts a Server (see
// server/server.h for what it assembles and config/validate.h for what it
// refuses) and drains it on SIGTERM or SIGINT.
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "server/config/config.h"
#include "server/kube/kubeconfig.h"
#include "server/limits/descriptors.h"
#include "server/log/log.h"
#include "server/server.h"

ABSL_FLAG(std::string, kubeconfig, "",
          "kubeconfig file; empty: $KUBECONFIG, else the in-cluster service account");
ABSL_FLAG(std::string, context, "", "kubeconfig context; empty: current-context");
ABSL_FLAG(std::string, config, "", "YAML configuration file (see docs/CONFIGURATION.md)");
ABSL_FLAG(std::string, resources, "",
          "resources to serve with default settings, e.g. configmaps,pods,deployments.apps");
ABSL_FLAG(std::string, grpc_address, "127.0.0.1:50051",
          "gRPC listen address; one other hosts can reach (e.g. 0.0.0.0:50051) needs "
          "--auth-mode=kubernetes with TLS, or an --allow-... flag");
ABSL_FLAG(bool, trust_forwarded_for, false,
          "a proxy in front of --grpc-address (the chart's HAProxy) names each client in "
          "x-forwarded-for; believed from loopback peers only, for the per-caller limits");
ABSL_FLAG(std::string, http_address, "127.0.0.1:8080",
          "HTTP listen address for /healthz, /readyz and /metrics");
ABSL_FLAG(std::string, kube_api_address, "",
          "loopback HOST:PORT of the Kubernetes API port (plain HTTP): kubectl --server=http://HOST:PORT "
          "lists, gets and watches served resources from the cache; empty: off");
ABSL_FLAG(bool, kube_api_pass_through, true,
          "pass every other Kubernetes API request (discovery, writes, other resources) to the "
          "apiserver with the caller's own Authorization header");
ABSL_FLAG(std::string, auth_mode, "",
          "none (anyone may read what is served) or kubernetes (bearer token, TokenReview and "
          "SubjectAccessReview per read); empty: the config file's authMode, else none");
ABSL_FLAG(bool, allow_unauthenticated, false,
          "allow --auth-mode=none on a --grpc-address other hosts can reach: every caller reads "
          "every served object");
ABSL_FLAG(bool, allow_plaintext_tokens, false,
          "allow --auth-mode=kubernetes without TLS on a --grpc-address other hosts can reach: "
          "bearer tokens cross the network in clear text");
ABSL_FLAG(std::string, token_audiences, "",
          "comma-separated audiences for TokenReviews (--auth-mode=kubernetes): only tokens "
          "issued for one of them are accepted; empty: any token the API server accepts");
ABSL_FLAG(bool, behind_proxy, false,
          "a proxy with HTTP/2 limits (the chart's HAProxy, or the proxy image) fronts a "
          "--grpc-address other hosts can reach; without it or --allow-unproxied such an "
          "address is refused");
ABSL_FLAG(bool, allow_unproxied, false,
          "allow a --grpc-address other hosts can reach with no proxy in front: gRPC alone does "
          "not bound HTTP/2 abuse such as rapid reset (docs/SECURITY.md)");
ABSL_FLAG(bool, allow_insecure_upstream, false,
          "allow an http:// API server URL or insecure-skip-tls-verify in the kubeconfig");
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
ABSL_FLAG(std::string, upstream, "",
          "an upstream informerd to serve from instead of the API server (a tier's leaf): "
          "grpc://HOST:PORT (plaintext; loopback only without --allow-insecure-upstream) or "
          "grpcs://HOST:PORT (TLS)");
ABSL_FLAG(std::string, upstream_ca_file, "",
          "PEM CA bundle that signed the upstream informerd's certificate (grpcs://); empty: the "
          "system's roots");
ABSL_FLAG(std::string, upstream_cert_file, "",
          "PEM client certificate toward an upstream informerd with mTLS (grpcs://)");
ABSL_FLAG(std::string, upstream_key_file, "", "PEM private key for --upstream-cert-file");
ABSL_FLAG(std::string, upstream_token_file, "",
          "file holding this informerd's bearer token toward the upstream informerd (one with "
          "--auth-mode=kubernetes), re-read for every call");
ABSL_FLAG(uint64_t, upstream_list_max_items, 0,
          "a leaf: the most items of one initial list from the upstream informerd before its "
          "end; 0: the file's upstreamListMaxItems, else 1000000");
ABSL_FLAG(uint64_t, upstream_list_max_bytes, 0,
          "a leaf: the most bytes of all initial lists from the upstream informerd before their "
          "ends; 0: the file's upstreamListMaxBytes, else half the memory limit (cgroup), else "
          "4 GiB");
ABSL_FLAG(std::string, upstream_list, "auto",
          "how the state of each resource is read from the API server: auto (paged LISTs from "
          "Kubernetes 1.33, which encodes them as it streams them; stream before), stream (a WATCH "
          "with sendInitialEvents, falling back to paged LIST where the server refuses it) or "
          "paged");

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
  config.auth.allow_unauthenticated = absl::GetFlag(FLAGS_allow_unauthenticated);
  config.auth.allow_plaintext_tokens = absl::GetFlag(FLAGS_allow_plaintext_tokens);
  config.auth.behind_proxy = absl::GetFlag(FLAGS_behind_proxy);
  config.auth.allow_unproxied = absl::GetFlag(FLAGS_allow_unproxied);
  config.allow_insecure_upstream = absl::GetFlag(FLAGS_allow_insecure_upstream);
  for (absl::string_view audience :
       absl::StrSplit(absl::GetFlag(FLAGS_token_audiences), ',', absl::SkipWhitespace())) {
    config.auth.token_audiences.emplace_back(absl::StripAsciiWhitespace(audience));
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
    config.upstream_list = config::UpstreamList::kPaged;
  } else if (mode == "stream") {
    config.upstream_list = config::UpstreamList::kStream;
  } else if (mode != "auto") {
    Fatal(absl::StrCat("--upstream-list: \"", mode, "\" is not one of auto, stream, paged"));
  }
  for (auto [flag, target] :
       {std::pair{&FLAGS_upstream, &config.upstream.url},
        std::pair{&FLAGS_upstream_ca_file, &config.upstream.ca_file},
        std::pair{&FLAGS_upstream_cert_file, &config.upstream.cert_file},
        std::pair{&FLAGS_upstream_key_file, &config.upstream.key_file},
        std::pair{&FLAGS_upstream_token_file, &config.upstream.token_file}}) {
    if (std::string value = absl::GetFlag(*flag); !value.empty()) *target = value;
  }
  if (uint64_t items = absl::GetFlag(FLAGS_upstream_list_max_items); items != 0) {
    config.upstream.list_max_items = items;
  }
  if (uint64_t bytes = absl::GetFlag(FLAGS_upstream_list_max_bytes); bytes != 0) {
    config.upstream.list_max_bytes = bytes;
  }
  // Server::Start judges the result (config::Validate).
  return config;
}

// The signals that drain informerd; blocked in every thread (main blocks
// them before any thread starts) so that only Run's sigwait sees them.
sigset_t DrainSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  return signals;
}

int Run() {
  // Before anything opens descriptors: the admin port's share and every
  // other user's come out of this limit (limits/descriptors.h).
  if (absl::StatusOr<limits::DescriptorLimit> raised = limits::RaiseDescriptorLimit();
      raised.ok()) {
    log::Info(kComponent, absl::StrCat("file descriptors: soft limit ", raised->soft,
                                       " (hard limit ", raised->hard, ")"));
  } else {
    log::Warning(kComponent, std::string(raised.status().message()));
  }
  ServerOptions options;
  options.config = LoadConfig();
  if (config::UsesApiserver(options.config)) {
    absl::StatusOr<kube::ClusterConfig> cluster = LoadClusterConfig();
    if (!cluster.ok()) Fatal(std::string(cluster.status().message()));
    options.cluster = *std::move(cluster);
  }
  options.grpc_address = absl::GetFlag(FLAGS_grpc_address);
  options.http_address = absl::GetFlag(FLAGS_http_address);
  options.trust_forwarded_for = absl::GetFlag(FLAGS_trust_forwarded_for);
  options.kube_api_address = absl::GetFlag(FLAGS_kube_api_address);
  options.kube_api_pass_through = absl::GetFlag(FLAGS_kube_api_pass_through);
  if (!options.kube_api_address.empty() && options.kube_api_pass_through &&
      options.cluster.server.empty()) {
    absl::StatusOr<kube::ClusterConfig> cluster = LoadClusterConfig();
    if (!cluster.ok()) Fatal(std::string(cluster.status().message()));
    options.cluster = *std::move(cluster);
  }
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(std::move(options));
  if (!server.ok()) Fatal(std::string(server.status().message()));

  const sigset_t signals = DrainSignals();
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  log::Info(kComponent, absl::StrCat("signal ", signal_number, ": draining"));
  (*server)->Drain();
  return 0;
}

}  // namespace
}  // namespace informerd

int main(int argc, char** argv) {
  // Debian builds Abseil without NDEBUG, which leaves absl::Mutex's deadlock
  // detection on: every Lock and Unlock (gRPC's own locks included, as they
  // are absl::Mutex) updates a process-wide lock-order graph, about 3x the
  // cost of an uncontended lock. The tests keep it, to find lock-order
  // faults; the server runs without it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Every thread inherits the mask, so only sigwait in Run sees these.
  const sigset_t signals = informerd::DrainSignals();
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
