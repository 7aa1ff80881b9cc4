#include "server/config/validate.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/kube/resource_name.h"

namespace informerd::config {
namespace {

// Coherence: combinations that cannot mean what the operator wanted.
absl::Status CheckCoherent(const Config& config) {
  if (config.resources.empty()) {
    return absl::InvalidArgumentError(
        "nothing to serve: name resources with --resources=configmaps,pods or in --config");
  }
  if (!config.auth.token_audiences.empty() && config.auth.mode != AuthMode::kKubernetes) {
    return absl::InvalidArgumentError("--token-audiences: needs --auth-mode=kubernetes");
  }
  if (config.tls.http && config.tls.cert_file.empty()) {
    return absl::InvalidArgumentError("--http-tls: needs --tls-cert-file and --tls-key-file");
  }
  return CheckUpstream(config.upstream);
}

// The connection to an upstream informerd (a tier's leaf).
absl::Status CheckUpstreamTransport(const Config& config, std::vector<std::string>* warnings) {
  if (config.upstream.url.empty()) return absl::OkStatus();
  absl::StatusOr<UpstreamAddress> address = ParseUpstreamUrl(config.upstream.url);
  if (!address.ok()) return address.status();
  if (address->tls || address->loopback) return absl::OkStatus();
  if (!config.allow_insecure_upstream) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing the upstream informerd ", config.upstream.url,
        ": plaintext to another host, so every object (and the leaf's token) travels "
        "unprotected, or to whoever poses as the root. Use --upstream=grpcs://... with "
        "--upstream-ca-file, or accept the risk with --allow-insecure-upstream"));
  }
  warnings->push_back(absl::StrCat("plaintext upstream ", config.upstream.url,
                                   " (allowed by --allow-insecure-upstream)"));
  return absl::OkStatus();
}

// The Kubernetes API port: plain HTTP or unauthenticated callers on
// loopback only (no --allow-... flag accepts either: the gRPC port's
// flags are for that port).
absl::Status CheckKubeApiListener(const Config& config, const std::string& address) {
  if (address.empty() || IsLoopbackAddress(address)) return absl::OkStatus();
  if (config.tls.cert_file.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--kube-api-address: ", address,
        " is not a loopback address and the port would serve plain HTTP (bearer tokens in "
        "clear text); set --tls-cert-file and --tls-key-file, or listen on loopback behind a "
        "TLS proxy"));
  }
  if (config.auth.mode != AuthMode::kKubernetes) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--kube-api-address: ", address,
        " is not a loopback address and --auth-mode is none: anyone reaching it would read "
        "every served object; use --auth-mode=kubernetes or a loopback address"));
  }
  return absl::OkStatus();
}

// The connection to the kube-apiserver, where informerd uses one.
absl::Status CheckApiserverTransport(const Config& config, const kube::ClusterConfig& cluster,
                                     std::vector<std::string>* warnings) {
  if (!UsesApiserver(config) || cluster.server.empty()) return absl::OkStatus();
  const std::string insecure = kube::InsecureTransport(cluster);
  if (insecure.empty()) return absl::OkStatus();
  if (!config.allow_insecure_upstream) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing the API server connection: ", insecure,
        ". Fix the kubeconfig (an https:// server and its certificate-authority), or accept "
        "the risk with --allow-insecure-upstream"));
  }
  warnings->push_back(absl::StrCat(insecure, " (allowed by --allow-insecure-upstream)"));
  return absl::OkStatus();
}

// Risks that CheckListener let through because a flag accepted them, and
// sensitive resources served because the configuration names them.
void WarnAccepted(const Config& config, const std::string& grpc_address,
                  std::vector<std::string>* warnings) {
  const bool loopback = IsLoopbackAddress(grpc_address);
  if (config.auth.mode == AuthMode::kNone && config.auth.allow_unauthenticated && !loopback) {
    warnings->push_back(absl::StrCat("every caller that reaches ", grpc_address,
                                     " reads every served object (allowed by "
                                     "--allow-unauthenticated)"));
  }
  if (config.auth.mode == AuthMode::kKubernetes && config.tls.cert_file.empty() &&
      config.auth.allow_plaintext_tokens && !loopback) {
    warnings->push_back(absl::StrCat("bearer tokens reach ", grpc_address,
                                     " in clear text (allowed by --allow-plaintext-tokens)"));
  }
  if (!loopback && !config.auth.behind_proxy && config.auth.allow_unproxied) {
    warnings->push_back(absl::StrCat("clients reach ", grpc_address,
                                     " with no proxy bounding HTTP/2 abuse (allowed by "
                                     "--allow-unproxied)"));
  }
  for (const ResourceConfig& wanted : config.resources) {
    if (!IsSensitive(config, wanted)) continue;
    warnings->push_back(absl::StrCat(
        "serving the sensitive resource ", kube::KubectlName(wanted.group, wanted.resource),
        " because the configuration names it",
        config.auth.mode == AuthMode::kNone ? ", to every caller (--auth-mode=none)" : ""));
  }
}

}  // namespace

absl::StatusOr<std::vector<std::string>> Validate(const Config& config,
                                                  const Placement& placement) {
  std::vector<std::string> warnings;
  if (absl::Status status = CheckCoherent(config); !status.ok()) return status;
  if (absl::Status status = CheckListener(config, placement.grpc_address); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckKubeApiListener(config, placement.kube_api_address);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckUpstreamTransport(config, &warnings); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckApiserverTransport(config, placement.cluster, &warnings);
      !status.ok()) {
    return status;
  }
  WarnAccepted(config, placement.grpc_address, &warnings);
  return warnings;
}

}  // namespace informerd::config
