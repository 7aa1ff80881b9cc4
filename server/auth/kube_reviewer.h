// KubeReviewer: a Reviewer that asks the kube-apiserver, with a TokenReview
// (POST /apis/authentication.k8s.io/v1/tokenreviews) and a
// SubjectAccessReview (POST /apis/authorization.k8s.io/v1/
// subjectaccessreviews), as kube-rbac-proxy and aggregated apiservers do.
// informerd's own identity needs the system:auth-delegator ClusterRole.
//
// Thread safety: thread-safe. The client must outlive the reviewer; its
// request timeout bounds every review.
#ifndef INFORMERD_SERVER_AUTH_KUBE_REVIEWER_H_
#define INFORMERD_SERVER_AUTH_KUBE_REVIEWER_H_

#include "server/auth/reviewer.h"
#include "server/kube/rest_client.h"

namespace informerd::auth {

class KubeReviewer final : public Reviewer {
 public:
  explicit KubeReviewer(kube::RestClient* client) : client_(client) {}

  absl::StatusOr<UserInfo> ReviewToken(std::string_view token) override;
  absl::StatusOr<bool> ReviewAccess(const UserInfo& user,
                                    const ResourceAttributes& attributes) override;

 private:
  kube::RestClient* const client_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_KUBE_REVIEWER_H_
