// The user a client certificate names, as the kube-apiserver's x509
// authenticator reads it: the subject's CommonName is the username and each
// Organization a group. With mTLS this is the caller's identity when it
// sends no bearer token, so a certificate is authorized (and limited) as
// that user rather than reading everything.
//
// Thread safety: pure function.
#ifndef INFORMERD_SERVER_AUTH_CERTIFICATE_IDENTITY_H_
#define INFORMERD_SERVER_AUTH_CERTIFICATE_IDENTITY_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "server/auth/reviewer.h"

namespace informerd::auth {

// UNAUTHENTICATED when `pem` is not a certificate or its subject has no
// CommonName (the apiserver refuses those too).
absl::StatusOr<UserInfo> UserFromCertificate(std::string_view pem);

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_CERTIFICATE_IDENTITY_H_
