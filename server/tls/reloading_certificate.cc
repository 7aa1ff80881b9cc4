#include "server/tls/reloading_certificate.h"

#include <sys/stat.h>

#include <cstdio>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace informerd::tls {
namespace {

int64_t ModificationTimeNs(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return 0;
  return int64_t{info.st_mtim.tv_sec} * 1000000000 + info.st_mtim.tv_nsec;
}

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  if (code == 0) return "unknown OpenSSL error";
  char buffer[256];
  ERR_error_string_n(code, buffer, sizeof(buffer));
  ERR_clear_error();
  return buffer;
}

}  // namespace

ReloadingCertificate::ReloadingCertificate(TlsFiles files) : files_(std::move(files)) {}

ReloadingCertificate::~ReloadingCertificate() {
  absl::MutexLock lock(&mu_);
  X509_free(certificate_);
  if (chain_ != nullptr) sk_X509_pop_free(chain_, X509_free);
  EVP_PKEY_free(key_);
}

absl::Status ReloadingCertificate::Configure(SSL_CTX* context) {
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status status = Reload(/*force=*/true); !status.ok()) return status;
  }
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  SSL_CTX_set_cert_cb(context, &ReloadingCertificate::OnHandshake, this);
  if (!files_.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(context, files_.client_ca_file.c_str(), nullptr) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--client-ca-file: cannot load ", files_.client_ca_file, ": ", OpenSslError()));
    }
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return absl::OkStatus();
}

int ReloadingCertificate::OnHandshake(SSL* ssl, void* self_pointer) {
  auto* self = static_cast<ReloadingCertificate*>(self_pointer);
  absl::MutexLock lock(&self->mu_);
  (void)self->Reload(/*force=*/false);  // A bad new pair keeps the old one.
  if (self->certificate_ == nullptr || self->key_ == nullptr) return 0;
  if (SSL_use_certificate(ssl, self->certificate_) != 1 ||
      SSL_use_PrivateKey(ssl, self->key_) != 1) {
    return 0;
  }
  if (self->chain_ != nullptr) SSL_set1_chain(ssl, self->chain_);
  return 1;
}

absl::Status ReloadingCertificate::Reload(bool force) {
  absl::Time now = absl::Now();
  if (!force && now - last_check_ < files_.refresh_interval) return absl::OkStatus();
  last_check_ = now;
  int64_t cert_mtime = ModificationTimeNs(files_.cert_file);
  int64_t key_mtime = ModificationTimeNs(files_.key_file);
  if (!force && cert_mtime == loaded_cert_mtime_ns_ && key_mtime == loaded_key_mtime_ns_) {
    return absl::OkStatus();
  }
  std::FILE* cert_file = std::fopen(files_.cert_file.c_str(), "r");
  if (cert_file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("--tls-cert-file: cannot open ", files_.cert_file));
  }
  X509* certificate = PEM_read_X509(cert_file, nullptr, nullptr, nullptr);
  STACK_OF(X509)* chain = sk_X509_new_null();
  while (X509* extra = PEM_read_X509(cert_file, nullptr, nullptr, nullptr)) sk_X509_push(chain, extra);
  ERR_clear_error();  // The read past the last certificate.
  std::fclose(cert_file);
  std::FILE* key_file = std::fopen(files_.key_file.c_str(), "r");
  EVP_PKEY* key = key_file == nullptr ? nullptr : PEM_read_PrivateKey(key_file, nullptr, nullptr, nullptr);
  if (key_file != nullptr) std::fclose(key_file);
  bool matches = certificate != nullptr && key != nullptr && X509_check_private_key(certificate, key) == 1;
  if (!matches) {
    std::string why = certificate == nullptr ? absl::StrCat("--tls-cert-file: no PEM certificate in ", files_.cert_file)
                      : key == nullptr      ? absl::StrCat("--tls-key-file: no PEM private key in ", files_.key_file)
                                            : "--tls-key-file: the key does not match the certificate";
    ERR_clear_error();
    X509_free(certificate);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
    return absl::InvalidArgumentError(why);
  }
  X509_free(certificate_);
  if (chain_ != nullptr) sk_X509_pop_free(chain_, X509_free);
  EVP_PKEY_free(key_);
  certificate_ = certificate;
  chain_ = chain;
  key_ = key;
  loaded_cert_mtime_ns_ = cert_mtime;
  loaded_key_mtime_ns_ = key_mtime;
  return absl::OkStatus();
}

}  // namespace informerd::tls
