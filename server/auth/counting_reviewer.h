// CountingReviewer: a Reviewer that passes every review on to another and
// reports each one's kind and outcome, so an operator (and a test) sees what
// informerd costs the apiserver in reviews without reading the apiserver's
// cluster-wide counters, which every other client adds to.
//
// Thread safety: thread-safe if the wrapped reviewer and `report` are.
#ifndef INFORMERD_SERVER_AUTH_COUNTING_REVIEWER_H_
#define INFORMERD_SERVER_AUTH_COUNTING_REVIEWER_H_

#include <functional>
#include <string_view>
#include <utility>

#include "server/auth/reviewer.h"

namespace informerd::auth {

class CountingReviewer final : public Reviewer {
 public:
  // Called once per review, after its answer: kind "TokenReview" or
  // "SubjectAccessReview"; outcome "accepted" / "rejected" for a token,
  // "allowed" / "denied" for access, "error" when the authority could not
  // answer.
  using Report = std::function<void(std::string_view kind, std::string_view outcome)>;

  // `reviewer` must outlive this one.
  CountingReviewer(Reviewer* reviewer, Report report)
      : reviewer_(reviewer), report_(std::move(report)) {}

  absl::StatusOr<UserInfo> ReviewToken(std::string_view token) override;
  absl::StatusOr<bool> ReviewAccess(const UserInfo& user,
                                    const ResourceAttributes& attributes) override;

 private:
  Reviewer* const reviewer_;
  const Report report_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_COUNTING_REVIEWER_H_
