#include "server/auth/counting_reviewer.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace informerd::auth {
namespace {

// Answers tokens "good" (a user), "bad" (rejected) and anything else (the
// authority unreachable); access is allowed for the verb "list" only, and
// unanswered for "watch".
class ScriptedReviewer : public Reviewer {
 public:
  absl::StatusOr<UserInfo> ReviewToken(std::string_view token) override {
    if (token == "good") return UserInfo{"alice", "", {}, {}};
    if (token == "bad") return absl::UnauthenticatedError("token rejected");
    return absl::UnavailableError("apiserver unreachable");
  }
  absl::StatusOr<bool> ReviewAccess(const UserInfo&, const ResourceAttributes& attributes) override {
    if (attributes.verb == "watch") return absl::UnavailableError("apiserver unreachable");
    return attributes.verb == "list";
  }
};

TEST(CountingReviewerTest, ReportsEachReviewWithItsOutcomeAndPassesTheAnswerOn) {
  ScriptedReviewer scripted;
  std::vector<std::string> reports;
  CountingReviewer counting(&scripted, [&](std::string_view kind, std::string_view outcome) {
    reports.push_back(std::string(kind) + " " + std::string(outcome));
  });

  EXPECT_EQ(counting.ReviewToken("good")->username, "alice");
  EXPECT_EQ(counting.ReviewToken("bad").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(counting.ReviewToken("other").status().code(), absl::StatusCode::kUnavailable);
  UserInfo alice{"alice", "", {}, {}};
  EXPECT_TRUE(*counting.ReviewAccess(alice, {"list", "", "pods", "default", ""}));
  EXPECT_FALSE(*counting.ReviewAccess(alice, {"get", "", "pods", "default", "p"}));
  EXPECT_FALSE(counting.ReviewAccess(alice, {"watch", "", "pods", "default", ""}).ok());

  EXPECT_EQ(reports, (std::vector<std::string>{
                         "TokenReview accepted", "TokenReview rejected", "TokenReview error",
                         "SubjectAccessReview allowed", "SubjectAccessReview denied",
                         "SubjectAccessReview error"}));
}

}  // namespace
}  // namespace informerd::auth
