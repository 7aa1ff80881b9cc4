// Reading the kube-apiserver's answers to a TokenReview and a
// SubjectAccessReview, apart from sending them: the answers are input the
// apiserver controls, and as pure functions of (HTTP status, body) they can
// be tested and fuzzed without a server.
//
// Thread safety: pure functions.
#ifndef INFORMERD_SERVER_AUTH_REVIEW_RESPONSE_H_
#define INFORMERD_SERVER_AUTH_REVIEW_RESPONSE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/auth/reviewer.h"

namespace informerd::auth {

// The user a TokenReview response authenticated. UNAUTHENTICATED when the
// apiserver did not authenticate the token (or named no user), or, with
// `audiences`, when status.audiences names none of them (an apiserver that
// ignored spec.audiences must not let the token through); UNAVAILABLE when
// the response is not a review's answer (non-2xx, not JSON, no status
// object, authenticated without status.user). Messages may quote the body:
// they are for informerd's log, not the caller.
absl::StatusOr<UserInfo> ParseTokenReviewResponse(
    int http_status, std::string_view body, const std::vector<std::string>& audiences = {});

// Whether a SubjectAccessReview response allows (status.allowed and not
// status.denied). UNAVAILABLE as for ParseTokenReviewResponse.
absl::StatusOr<bool> ParseAccessReviewResponse(int http_status, std::string_view body);

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_REVIEW_RESPONSE_H_
