// ReloadingCertificate: an OpenSSL server context whose certificate and key
// are re-read from their files when the files change, so the HTTP port picks
// up rotated certificates (cert-manager) for new connections without a
// restart, as the gRPC port does.
//
// The files are checked at most once per `refresh_interval`, during a TLS
// handshake; a pair that fails to load keeps the previous one in use. With
// a client CA, clients must present a certificate it signed (mTLS); the CA
// file is read once, at Configure.
//
// Thread safety: thread-safe; handshakes may run concurrently.
#ifndef INFORMERD_SERVER_TLS_RELOADING_CERTIFICATE_H_
#define INFORMERD_SERVER_TLS_RELOADING_CERTIFICATE_H_

#include <cstdint>
#include <string>

#include <openssl/ssl.h>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/tls/server_credentials.h"

namespace informerd::tls {

class ReloadingCertificate {
 public:
  explicit ReloadingCertificate(TlsFiles files);
  ~ReloadingCertificate();

  ReloadingCertificate(const ReloadingCertificate&) = delete;
  ReloadingCertificate& operator=(const ReloadingCertificate&) = delete;

  // Loads the files once (errors name the file) and installs the
  // per-handshake certificate callback and client verification on `context`.
  // REQUIRES: this object outlives `context`.
  absl::Status Configure(SSL_CTX* context);

 private:
  static int OnHandshake(SSL* ssl, void* self);
  // Re-reads the pair if the files changed; keeps the old pair on failure.
  absl::Status Reload(bool force) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const TlsFiles files_;
  absl::Mutex mu_;
  X509* certificate_ ABSL_GUARDED_BY(mu_) = nullptr;
  STACK_OF(X509)* chain_ ABSL_GUARDED_BY(mu_) = nullptr;
  EVP_PKEY* key_ ABSL_GUARDED_BY(mu_) = nullptr;
  int64_t loaded_cert_mtime_ns_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t loaded_key_mtime_ns_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_check_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace informerd::tls

#endif  // INFORMERD_SERVER_TLS_RELOADING_CERTIFICATE_H_
