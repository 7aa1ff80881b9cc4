// BearerTokenFromMetadata: the token a gRPC caller sends as
// "authorization: Bearer <token>" metadata, as Kubernetes clients send it to
// the kube-apiserver.
//
// Every rejection is UNAUTHENTICATED and says what was wrong without echoing
// the token.
#ifndef INFORMERD_SERVER_AUTH_BEARER_TOKEN_H_
#define INFORMERD_SERVER_AUTH_BEARER_TOKEN_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace informerd::auth {

// Longer tokens are rejected before any review (service account JWTs are
// about 1 KiB).
inline constexpr size_t kMaxBearerTokenBytes = 16 * 1024;

// `values` are the caller's "authorization" metadata values: exactly one must
// be present, with the scheme "Bearer" (any case), one or more spaces, and a
// token of visible ASCII characters.
absl::StatusOr<std::string> BearerTokenFromMetadata(
    const std::vector<std::string_view>& values);

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_BEARER_TOKEN_H_
