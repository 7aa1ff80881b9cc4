#include "server/tls/server_credentials.h"

#include <algorithm>
#include <fstream>

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace informerd::tls {
namespace {

// The provider reads files in the background and only logs failures, so an
// unreadable file is reported here, at start, instead.
absl::Status CheckReadable(const std::string& path, const char* flag) {
  std::ifstream file(path);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read ", path));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsFiles& files) {
  if (files.cert_file.empty() != files.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert-file and --tls-key-file: set both for TLS, or neither for plaintext");
  }
  if (files.cert_file.empty()) {
    if (!files.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--client-ca-file: needs TLS; set --tls-cert-file and --tls-key-file too");
    }
    return grpc::InsecureServerCredentials();
  }
  if (auto status = CheckReadable(files.cert_file, "--tls-cert-file"); !status.ok()) return status;
  if (auto status = CheckReadable(files.key_file, "--tls-key-file"); !status.ok()) return status;
  if (!files.client_ca_file.empty()) {
    if (auto status = CheckReadable(files.client_ca_file, "--client-ca-file"); !status.ok()) {
      return status;
    }
  }
  unsigned int refresh_seconds = static_cast<unsigned int>(
      std::max<int64_t>(1, absl::ToInt64Seconds(files.refresh_interval)));
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      files.key_file, files.cert_file, files.client_ca_file, refresh_seconds);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (files.client_ca_file.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

std::string Describe(const TlsFiles& files) {
  if (files.cert_file.empty()) return "plaintext";
  return files.client_ca_file.empty() ? "TLS" : "mTLS";
}

}  // namespace informerd::tls
