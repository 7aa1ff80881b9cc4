// Where the API server is and how to authenticate to it: from a kubeconfig
// file (as kubectl reads it) or from a pod's service account.
#ifndef INFORMERD_SERVER_KUBE_KUBECONFIG_H_
#define INFORMERD_SERVER_KUBE_KUBECONFIG_H_

#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace informerd::kube {

struct ClusterConfig {
  std::string server;           // "https://host:port" (or http://, see InsecureTransport)
  std::string ca_pem;           // trusted CAs; empty = system defaults
  std::string client_cert_pem;  // client certificate chain, with the key
  std::string client_key_pem;
  std::string token;            // bearer token
  std::string token_file;       // bearer token re-read when it changes
  bool insecure_skip_tls_verify = false;
};

// Reads the kubeconfig at `path` and resolves `context` (empty = the file's
// current-context). Relative file references resolve against the file's
// directory. Errors name the file and the field, e.g.
//   kubeconfig /x/config: users[0].user.client-key-data: invalid base64
// Exec and auth-provider credentials are not supported and are reported.
absl::StatusOr<ClusterConfig> LoadKubeconfig(const std::string& path,
                                             std::string_view context = "");

// Why the connection `config` describes is not safe on a network: an
// http:// server (tokens and objects in clear text) or
// insecure-skip-tls-verify (anyone on the path can pose as the API server
// and take the credentials). Empty when it is https with verification.
std::string InsecureTransport(const ClusterConfig& config);

// Reads a file a kubeconfig refers to (certificate-authority, client-key, ...).
using KubeconfigFileReader =
    absl::FunctionRef<absl::StatusOr<std::string>(const std::string& path)>;

// LoadKubeconfig of a kubeconfig's text `yaml`: `path` names the file in
// errors and anchors relative references, which `read_file` reads. Every
// error is INVALID_ARGUMENT.
absl::StatusOr<ClusterConfig> ParseKubeconfig(std::string_view yaml,
                                              const std::string& path,
                                              std::string_view context,
                                              KubeconfigFileReader read_file);

inline constexpr char kServiceAccountDir[] =
    "/var/run/secrets/kubernetes.io/serviceaccount";

// The configuration of a pod: the API server from KUBERNETES_SERVICE_HOST
// and KUBERNETES_SERVICE_PORT, the CA and token from `service_account_dir`.
absl::StatusOr<ClusterConfig> LoadInClusterConfig(
    const std::string& service_account_dir = kServiceAccountDir);

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_KUBECONFIG_H_
