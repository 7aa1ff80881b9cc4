#include "server/auth/counting_reviewer.h"

namespace informerd::auth {

absl::StatusOr<UserInfo> CountingReviewer::ReviewToken(std::string_view token) {
  absl::StatusOr<UserInfo> user = reviewer_->ReviewToken(token);
  report_("TokenReview", user.ok()                                                  ? "accepted"
                         : user.status().code() == absl::StatusCode::kUnauthenticated ? "rejected"
                                                                                      : "error");
  return user;
}

absl::StatusOr<bool> CountingReviewer::ReviewAccess(const UserInfo& user,
                                                    const ResourceAttributes& attributes) {
  absl::StatusOr<bool> allowed = reviewer_->ReviewAccess(user, attributes);
  report_("SubjectAccessReview", !allowed.ok() ? "error" : *allowed ? "allowed" : "denied");
  return allowed;
}

}  // namespace informerd::auth
