#include "server/kube/kubeconfig.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/yaml.h"

namespace informerd::kube {
namespace {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("error reading ", path));
  }
  return contents.str();
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string ResolveRelative(const std::string& dir, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return absl::StrCat(dir, "/", path);
}

// Reads a kubeconfig with field-path error messages. yaml-cpp's typed
// accessors throw on unexpected shapes; every lookup here checks the node
// type first so bad input becomes an error naming the field.
class KubeconfigReader {
 public:
  KubeconfigReader(std::string path, KubeconfigFileReader read_file)
      : path_(std::move(path)), dir_(DirectoryOf(path_)), read_file_(read_file) {}

  absl::StatusOr<ClusterConfig> Read(std::string_view text, std::string_view context_name);

 private:
  absl::Status Error(std::string_view field, std::string_view reason) const {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path_, ": ", std::string(field), ": ",
                     std::string(reason)));
  }

  // The scalar `parent[key]`; empty if absent or null.
  absl::StatusOr<std::string> Scalar(const YAML::Node& parent,
                                     const std::string& parent_field,
                                     const char* key) const;
  absl::StatusOr<bool> Bool(const YAML::Node& parent,
                            const std::string& parent_field,
                            const char* key) const;
  // The element of the list `root[list_key]` whose name is `name`, with its
  // field path ("clusters[2]") in *field.
  absl::StatusOr<YAML::Node> FindNamed(const YAML::Node& root,
                                       const char* list_key,
                                       const std::string& name,
                                       std::string* field) const;
  // Inline base64 data (`data_key`) or a file (`file_key`), one of them.
  absl::StatusOr<std::string> DataOrFile(const YAML::Node& parent,
                                         const std::string& parent_field,
                                         const char* data_key,
                                         const char* file_key) const;

  absl::Status ReadCluster(const YAML::Node& root, const std::string& name,
                           ClusterConfig* config) const;
  absl::Status ReadUser(const YAML::Node& root, const std::string& name,
                        ClusterConfig* config) const;

  const std::string path_;
  const std::string dir_;
  const KubeconfigFileReader read_file_;
};

absl::StatusOr<std::string> KubeconfigReader::Scalar(
    const YAML::Node& parent, const std::string& parent_field,
    const char* key) const {
  const YAML::Node node = parent[key];
  if (!node.IsDefined() || node.IsNull()) return std::string();
  if (!node.IsScalar()) {
    return Error(absl::StrCat(parent_field, ".", key), "must be a string");
  }
  return node.Scalar();
}

absl::StatusOr<bool> KubeconfigReader::Bool(const YAML::Node& parent,
                                            const std::string& parent_field,
                                            const char* key) const {
  absl::StatusOr<std::string> text = Scalar(parent, parent_field, key);
  if (!text.ok()) return text.status();
  if (text->empty() || *text == "false") return false;
  if (*text == "true") return true;
  return Error(absl::StrCat(parent_field, ".", key),
               absl::StrCat("must be true or false, not \"", *text, "\""));
}

absl::StatusOr<YAML::Node> KubeconfigReader::FindNamed(
    const YAML::Node& root, const char* list_key, const std::string& name,
    std::string* field) const {
  const YAML::Node list = root[list_key];
  if (list.IsDefined() && !list.IsNull() && !list.IsSequence()) {
    return Error(list_key, "must be a list");
  }
  if (list.IsSequence()) {
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node entry = list[i];
      const std::string entry_field = absl::StrCat(list_key, "[", i, "]");
      if (!entry.IsMap()) return Error(entry_field, "must be a mapping");
      absl::StatusOr<std::string> entry_name =
          Scalar(entry, entry_field, "name");
      if (!entry_name.ok()) return entry_name.status();
      if (*entry_name == name) {
        *field = entry_field;
        return entry;
      }
    }
  }
  return Error(list_key, absl::StrCat("no entry named \"", name, "\""));
}

absl::StatusOr<std::string> KubeconfigReader::DataOrFile(
    const YAML::Node& parent, const std::string& parent_field,
    const char* data_key, const char* file_key) const {
  absl::StatusOr<std::string> data = Scalar(parent, parent_field, data_key);
  if (!data.ok()) return data.status();
  absl::StatusOr<std::string> file = Scalar(parent, parent_field, file_key);
  if (!file.ok()) return file.status();
  if (!data->empty()) {
    std::string decoded;
    if (!absl::Base64Unescape(*data, &decoded)) {
      return Error(absl::StrCat(parent_field, ".", data_key),
                   "invalid base64");
    }
    return decoded;
  }
  if (file->empty()) return std::string();
  absl::StatusOr<std::string> contents =
      read_file_(ResolveRelative(dir_, *file));
  if (!contents.ok()) {
    return Error(absl::StrCat(parent_field, ".", file_key),
                 std::string(contents.status().message()));
  }
  return contents;
}

absl::Status KubeconfigReader::ReadCluster(const YAML::Node& root,
                                           const std::string& name,
                                           ClusterConfig* config) const {
  std::string entry_field;
  absl::StatusOr<YAML::Node> entry =
      FindNamed(root, "clusters", name, &entry_field);
  if (!entry.ok()) return entry.status();
  const std::string field = entry_field + ".cluster";
  const YAML::Node cluster = (*entry)["cluster"];
  if (!cluster.IsMap()) return Error(field, "missing or not a mapping");

  absl::StatusOr<std::string> server = Scalar(cluster, field, "server");
  if (!server.ok()) return server.status();
  if (server->empty()) return Error(field + ".server", "missing");
  if (!absl::StartsWith(*server, "https://") &&
      !absl::StartsWith(*server, "http://")) {
    return Error(field + ".server",
                 absl::StrCat("must be an http(s) URL, not \"", *server, "\""));
  }
  config->server = *server;
  // Trailing slashes go, but not the scheme's: "https://" names no host.
  const size_t host = config->server.find("://") + 3;
  while (config->server.size() > host && config->server.back() == '/') {
    config->server.pop_back();
  }
  if (config->server.size() == host) {
    return Error(field + ".server", absl::StrCat("\"", *server, "\" names no host"));
  }

  absl::StatusOr<std::string> ca = DataOrFile(
      cluster, field, "certificate-authority-data", "certificate-authority");
  if (!ca.ok()) return ca.status();
  config->ca_pem = *std::move(ca);

  absl::StatusOr<bool> insecure =
      Bool(cluster, field, "insecure-skip-tls-verify");
  if (!insecure.ok()) return insecure.status();
  config->insecure_skip_tls_verify = *insecure;
  return absl::OkStatus();
}

absl::Status KubeconfigReader::ReadUser(const YAML::Node& root,
                                        const std::string& name,
                                        ClusterConfig* config) const {
  std::string entry_field;
  absl::StatusOr<YAML::Node> entry =
      FindNamed(root, "users", name, &entry_field);
  if (!entry.ok()) return entry.status();
  const std::string field = entry_field + ".user";
  const YAML::Node user = (*entry)["user"];
  if (!user.IsDefined() || user.IsNull()) return absl::OkStatus();
  if (!user.IsMap()) return Error(field, "must be a mapping");

  for (const char* unsupported : {"exec", "auth-provider"}) {
    if (user[unsupported].IsDefined()) {
      return Error(absl::StrCat(field, ".", unsupported),
                   "not supported; use a token or a client certificate");
    }
  }

  absl::StatusOr<std::string> token = Scalar(user, field, "token");
  if (!token.ok()) return token.status();
  config->token = *std::move(token);

  absl::StatusOr<std::string> token_file = Scalar(user, field, "tokenFile");
  if (!token_file.ok()) return token_file.status();
  config->token_file = ResolveRelative(dir_, *token_file);

  absl::StatusOr<std::string> cert = DataOrFile(
      user, field, "client-certificate-data", "client-certificate");
  if (!cert.ok()) return cert.status();
  config->client_cert_pem = *std::move(cert);

  absl::StatusOr<std::string> key =
      DataOrFile(user, field, "client-key-data", "client-key");
  if (!key.ok()) return key.status();
  config->client_key_pem = *std::move(key);

  if (config->client_cert_pem.empty() != config->client_key_pem.empty()) {
    return Error(field, "client-certificate and client-key must be given "
                        "together");
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterConfig> KubeconfigReader::Read(
    std::string_view text, std::string_view context_name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error("(document)", absl::StrCat("invalid YAML: ", e.what()));
  }
  if (!root.IsMap()) return Error("(document)", "not a YAML mapping");

  std::string context(context_name);
  if (context.empty()) {
    absl::StatusOr<std::string> current =
        Scalar(root, "(document)", "current-context");
    if (!current.ok()) return current.status();
    if (current->empty()) {
      return Error("current-context", "not set and no context was given");
    }
    context = *std::move(current);
  }

  std::string entry_field;
  absl::StatusOr<YAML::Node> entry =
      FindNamed(root, "contexts", context, &entry_field);
  if (!entry.ok()) return entry.status();
  const std::string field = entry_field + ".context";
  const YAML::Node context_node = (*entry)["context"];
  if (!context_node.IsMap()) return Error(field, "missing or not a mapping");

  absl::StatusOr<std::string> cluster = Scalar(context_node, field, "cluster");
  if (!cluster.ok()) return cluster.status();
  if (cluster->empty()) return Error(field + ".cluster", "missing");
  absl::StatusOr<std::string> user = Scalar(context_node, field, "user");
  if (!user.ok()) return user.status();

  ClusterConfig config;
  absl::Status status = ReadCluster(root, *cluster, &config);
  if (!status.ok()) return status;
  if (!user->empty()) {
    status = ReadUser(root, *user, &config);
    if (!status.ok()) return status;
  }
  return config;
}

}  // namespace

absl::StatusOr<ClusterConfig> LoadKubeconfig(const std::string& path,
                                             std::string_view context) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("kubeconfig ", path, ": ",
                                     text.status().message()));
  }
  return ParseKubeconfig(*text, path, context, ReadWholeFile);
}

absl::StatusOr<ClusterConfig> ParseKubeconfig(std::string_view yaml,
                                              const std::string& path,
                                              std::string_view context,
                                              KubeconfigFileReader read_file) {
  // The reader checks node types before every access; this catch is the
  // backstop that keeps any exception yaml-cpp still throws from escaping.
  try {
    return KubeconfigReader(path, read_file).Read(yaml, context);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path, ": ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path, ": unreadable"));
  }
}

std::string InsecureTransport(const ClusterConfig& config) {
  if (absl::StartsWith(config.server, "http://")) {
    return absl::StrCat("the API server URL ", config.server,
                        " is plain http: credentials and objects cross the network in clear "
                        "text");
  }
  if (config.insecure_skip_tls_verify) {
    return absl::StrCat("insecure-skip-tls-verify is set for ", config.server,
                        ": anyone on the network path can pose as the API server and take the "
                        "credentials");
  }
  return "";
}

absl::StatusOr<ClusterConfig> LoadInClusterConfig(
    const std::string& service_account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return absl::FailedPreconditionError(
        "in-cluster config: KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must be set (not running in a pod?)");
  }
  ClusterConfig config;
  const bool ipv6 = std::strchr(host, ':') != nullptr;
  config.server = ipv6 ? absl::StrCat("https://[", host, "]:", port)
                       : absl::StrCat("https://", host, ":", port);

  // Read the token now only to fail early; the client re-reads the file
  // because bound service account tokens rotate.
  config.token_file = service_account_dir + "/token";
  absl::StatusOr<std::string> token = ReadWholeFile(config.token_file);
  if (!token.ok()) {
    return absl::Status(token.status().code(),
                        absl::StrCat("in-cluster config: token: ",
                                     token.status().message()));
  }
  absl::StatusOr<std::string> ca =
      ReadWholeFile(service_account_dir + "/ca.crt");
  if (!ca.ok()) {
    return absl::Status(ca.status().code(),
                        absl::StrCat("in-cluster config: ca.crt: ",
                                     ca.status().message()));
  }
  config.ca_pem = *std::move(ca);
  return config;
}

}  // namespace informerd::kube
