// Validate: informerd's configuration policy, in one place. Every refusal of
// an unsafe or incoherent configuration and every warning about a risk an
// --allow-... flag accepted is decided here, before anything connects or
// listens; Server::Start calls it, so the binary and every in-process test
// run the same policy.
#ifndef INFORMERD_SERVER_CONFIG_VALIDATE_H_
#define INFORMERD_SERVER_CONFIG_VALIDATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/config/config.h"
#include "server/kube/kubeconfig.h"

namespace informerd::config {

// Where a configuration is to run, beyond the Config itself.
struct Placement {
  // The gRPC listen address ("host:port", "unix:path").
  std::string grpc_address;
  // The Kubernetes API port's address (--kube-api-address); empty: off.
  std::string kube_api_address;
  // The kube-apiserver connection. Not checked when its server is empty
  // (the caller supplies the connection itself, e.g. a test's client) or
  // when informerd does not use the apiserver (a tier's leaf without
  // --auth-mode=kubernetes).
  kube::ClusterConfig cluster;
};

// OK with the warnings to log (each one sentence naming the risk and the
// flag that accepted it) when `config` may run at `placement`; otherwise
// INVALID_ARGUMENT (an incoherent combination) or FAILED_PRECONDITION (an
// unsafe one), naming the flag or key and the reason.
absl::StatusOr<std::vector<std::string>> Validate(const Config& config, const Placement& placement);

}  // namespace informerd::config

#endif  // INFORMERD_SERVER_CONFIG_VALIDATE_H_
