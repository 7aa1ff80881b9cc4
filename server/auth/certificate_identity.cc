#include "server/auth/certificate_identity.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "absl/status/status.h"

namespace informerd::auth {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};

// The UTF-8 text of one subject entry.
std::string EntryText(X509_NAME_ENTRY* entry) {
  unsigned char* utf8 = nullptr;
  int length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
  if (length < 0) return "";
  std::string text(reinterpret_cast<char*>(utf8), static_cast<size_t>(length));
  OPENSSL_free(utf8);
  return text;
}

}  // namespace

absl::StatusOr<UserInfo> UserFromCertificate(std::string_view pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::unique_ptr<X509, X509Free> cert(
      bio == nullptr ? nullptr : PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr) {
    ERR_clear_error();
    return absl::UnauthenticatedError("the client certificate cannot be read");
  }
  X509_NAME* subject = X509_get_subject_name(cert.get());
  UserInfo user;
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    if (nid == NID_commonName && user.username.empty()) {
      user.username = EntryText(entry);
    } else if (nid == NID_organizationName) {
      std::string group = EntryText(entry);
      if (!group.empty()) user.groups.push_back(std::move(group));
    }
  }
  if (user.username.empty()) {
    return absl::UnauthenticatedError("the client certificate's subject has no CommonName");
  }
  // As the apiserver does for every authenticated user.
  user.groups.push_back("system:authenticated");
  return user;
}

}  // namespace informerd::auth
