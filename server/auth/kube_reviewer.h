// KubeReviewer: a Reviewer that asks the kube-apiserver, with a TokenReview
// (POST /apis/authentication.k8s.io/v1/tokenreviews) and a
// SubjectAccessReview (POST /apis/authorization.k8s.io/v1/
// subjectaccessreviews), as kube-rbac-proxy and aggregated apiservers do.
// informerd's own identity needs the system:auth-delegator ClusterRole.
//
// With audiences, a TokenReview asks the apiserver to accept only tokens
// issued for one of them (spec.audiences), and a token is accepted only if
// the answer's status.audiences names one of them, as the apiserver's own
// webhook token authenticator checks; so callers present tokens bound to
// informerd (projected service account tokens), not tokens the apiserver
// itself would accept.
//
// Thread safety: thread-safe. The client must outlive the reviewer; its
// request timeout bounds every review.
#ifndef INFORMERD_SERVER_AUTH_KUBE_REVIEWER_H_
#define INFORMERD_SERVER_AUTH_KUBE_REVIEWER_H_

#include <string>
#include <utility>
#include <vector>

#include "server/auth/reviewer.h"
#include "server/kube/rest_client.h"

namespace informerd::auth {

class KubeReviewer final : public Reviewer {
 public:
  // `audiences` empty: the apiserver's own audiences.
  explicit KubeReviewer(kube::RestClient* client, std::vector<std::string> audiences = {})
      : client_(client), audiences_(std::move(audiences)) {}

  absl::StatusOr<UserInfo> ReviewToken(std::string_view token) override;
  absl::StatusOr<bool> ReviewAccess(const UserInfo& user,
                                    const ResourceAttributes& attributes) override;

 private:
  kube::RestClient* const client_;
  const std::vector<std::string> audiences_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_KUBE_REVIEWER_H_
