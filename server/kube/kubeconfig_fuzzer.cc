// libFuzzer target: ParseKubeconfig must read any text without crashing or
// letting a yaml-cpp exception escape, fail only with INVALID_ARGUMENT, and
// accept only a usable config: an http(s) server without a trailing slash,
// a client certificate only with its key, file references resolved against
// the file's directory. An accepted config, written back as a kubeconfig
// with inline data, reads back the same (when its text is ASCII).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "server/kube/kubeconfig.h"
#include "yaml-cpp/yaml.h"

namespace {

using informerd::kube::ClusterConfig;

constexpr char kPath[] = "/fuzz/dir/config";

// Files the config names: those under /fuzz/dir exist and hold their name.
absl::StatusOr<std::string> ReadFile(const std::string& path) {
  if (path.rfind("/fuzz/dir/", 0) == 0) return "contents of " + path;
  return absl::NotFoundError("no such file");
}

// `config` as a kubeconfig whose current context uses it, data inline.
std::string Write(const ClusterConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "current-context" << YAML::Value << "c";
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap
      << YAML::Key << "name" << YAML::Value << "c" << YAML::Key << "context" << YAML::Value
      << YAML::BeginMap << YAML::Key << "cluster" << YAML::Value << "k" << YAML::Key << "user"
      << YAML::Value << "u" << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
      << "name" << YAML::Value << "k" << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap
      << YAML::Key << "server" << YAML::Value << YAML::DoubleQuoted << config.server;
  if (!config.ca_pem.empty()) {
    out << YAML::Key << "certificate-authority-data" << YAML::Value
        << absl::Base64Escape(config.ca_pem);
  }
  out << YAML::Key << "insecure-skip-tls-verify" << YAML::Value
      << (config.insecure_skip_tls_verify ? "true" : "false");
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "users" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
      << "name" << YAML::Value << "u" << YAML::Key << "user" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "token" << YAML::Value << YAML::DoubleQuoted << config.token;
  out << YAML::Key << "tokenFile" << YAML::Value << YAML::DoubleQuoted << config.token_file;
  if (!config.client_cert_pem.empty()) {
    out << YAML::Key << "client-certificate-data" << YAML::Value
        << absl::Base64Escape(config.client_cert_pem) << YAML::Key << "client-key-data"
        << YAML::Value << absl::Base64Escape(config.client_key_pem);
  }
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  return out.c_str();
}

// yaml-cpp reads invalid UTF-8 back as U+FFFD from a quoted scalar, and a
// real server, token or path is ASCII: the round trip is checked for those.
bool Ascii(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

bool Same(const ClusterConfig& a, const ClusterConfig& b) {
  return a.server == b.server && a.ca_pem == b.ca_pem && a.client_cert_pem == b.client_cert_pem &&
         a.client_key_pem == b.client_key_pem && a.token == b.token &&
         a.token_file == b.token_file && a.insecure_skip_tls_verify == b.insecure_skip_tls_verify;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ClusterConfig> config =
      informerd::kube::ParseKubeconfig(yaml, kPath, "", ReadFile);
  if (!config.ok()) {
    if (config.status().code() != absl::StatusCode::kInvalidArgument) abort();
    return 0;
  }
  if (!(absl::StartsWith(config->server, "https://") ||
        absl::StartsWith(config->server, "http://")) ||
      config->server.back() == '/' ||
      config->client_cert_pem.empty() != config->client_key_pem.empty() ||
      !(config->token_file.empty() || config->token_file.front() == '/')) {
    abort();
  }
  if (!Ascii(config->server) || !Ascii(config->token) || !Ascii(config->token_file)) return 0;
  absl::StatusOr<ClusterConfig> again =
      informerd::kube::ParseKubeconfig(Write(*config), kPath, "", ReadFile);
  if (!again.ok() || !Same(*config, *again)) abort();
  return 0;
}
