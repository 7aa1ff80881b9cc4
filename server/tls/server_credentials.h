// MakeServerCredentials: the gRPC port's credentials from TLS settings.
//
// With a certificate and key, the server speaks TLS and re-reads both files
// (and the client CA) every `refresh_interval`, so rotated certificates are
// used by new connections while open streams keep theirs. With a client CA,
// clients must present a certificate it signed (mTLS). Without a
// certificate, the port is plaintext.
#ifndef INFORMERD_SERVER_TLS_SERVER_CREDENTIALS_H_
#define INFORMERD_SERVER_TLS_SERVER_CREDENTIALS_H_

#include <memory>
#include <string>

#include <grpcpp/security/server_credentials.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace informerd::tls {

struct TlsFiles {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // "" for no client certificates
  absl::Duration refresh_interval = absl::Minutes(1);
};

// INVALID_ARGUMENT naming the flag when only one of cert and key is set, a
// client CA is set without them, or a file cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const TlsFiles& files);

// "plaintext", "TLS" or "mTLS", for the start-up log.
std::string Describe(const TlsFiles& files);

}  // namespace informerd::tls

#endif  // INFORMERD_SERVER_TLS_SERVER_CREDENTIALS_H_
