#include "server/auth/authorizer.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"

namespace informerd::auth {
namespace {

// Answers from tables and counts the calls, as the apiserver would be asked.
class FakeReviewer : public Reviewer {
 public:
  absl::StatusOr<UserInfo> ReviewToken(std::string_view token) override {
    absl::MutexLock lock(&mu_);
    ++token_reviews;
    if (!available) return absl::UnavailableError("connection refused");
    auto found = users.find(std::string(token));
    if (found == users.end()) return absl::UnauthenticatedError("unknown token");
    return found->second;
  }

  absl::StatusOr<bool> ReviewAccess(const UserInfo& user,
                                    const ResourceAttributes& attributes) override {
    absl::MutexLock lock(&mu_);
    ++access_reviews;
    last_user = user;
    if (!available) return absl::UnavailableError("connection refused");
    return allowed.count(user.username + "/" + attributes.verb + "/" + attributes.resource +
                         "/" + attributes.namespace_) != 0;
  }

  absl::Mutex mu_;
  std::map<std::string, UserInfo> users;
  std::set<std::string> allowed;  // "user/verb/resource/namespace"
  bool available = true;
  int token_reviews = 0;
  int access_reviews = 0;
  UserInfo last_user;
};

class AuthorizerTest : public ::testing::Test {
 protected:
  AuthorizerTest() {
    reviewer_.users["t-alice"] = UserInfo{"alice", "uid-1", {"devs"}, {{"scope", {"a"}}}};
    reviewer_.allowed.insert("alice/list/configmaps/n1");
  }

  Authorizer MakeAuthorizer(size_t capacity = 100) {
    AuthorizerOptions options;
    options.cache_capacity = capacity;
    options.clock = [this] { return now_; };
    return Authorizer(&reviewer_, options);
  }

  FakeReviewer reviewer_;
  absl::Time now_ = absl::FromUnixSeconds(1000);
};

TEST_F(AuthorizerTest, AuthenticatesKnownTokensAndCachesThem) {
  Authorizer authorizer = MakeAuthorizer();
  absl::StatusOr<UserInfo> user = authorizer.Authenticate("t-alice");
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(user->username, "alice");
  EXPECT_EQ(user->groups, std::vector<std::string>{"devs"});
  ASSERT_TRUE(authorizer.Authenticate("t-alice").ok());
  EXPECT_EQ(reviewer_.token_reviews, 1);
  now_ += absl::Seconds(31);
  ASSERT_TRUE(authorizer.Authenticate("t-alice").ok());
  EXPECT_EQ(reviewer_.token_reviews, 2);
}

TEST_F(AuthorizerTest, RejectedTokensAreUnauthenticatedAndCached) {
  Authorizer authorizer = MakeAuthorizer();
  EXPECT_EQ(authorizer.Authenticate("t-bad").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authorizer.Authenticate("t-bad").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(reviewer_.token_reviews, 1);
}

TEST_F(AuthorizerTest, ReviewerFailureIsUnavailableAndNotCached) {
  Authorizer authorizer = MakeAuthorizer();
  reviewer_.available = false;
  absl::Status failed = authorizer.Authenticate("t-alice").status();
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  // What the apiserver (or the connection) said is for informerd's log only.
  EXPECT_EQ(failed.message().find("connection refused"), absl::string_view::npos);
  UserInfo alice{"alice", "", {}, {}};
  failed = authorizer.Authorize(alice, {"list", "", "configmaps", "n1", ""});
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(failed.message().find("connection refused"), absl::string_view::npos);
  reviewer_.available = true;
  EXPECT_TRUE(authorizer.Authenticate("t-alice").ok());
  EXPECT_TRUE(authorizer.Authorize(alice, {"list", "", "configmaps", "n1", ""}).ok());
}

TEST_F(AuthorizerTest, DecidesPerVerbResourceAndNamespace) {
  Authorizer authorizer = MakeAuthorizer();
  UserInfo alice = *authorizer.Authenticate("t-alice");
  EXPECT_TRUE(authorizer.Authorize(alice, {"list", "", "configmaps", "n1", ""}).ok());
  EXPECT_EQ(reviewer_.last_user.extra.at("scope"), std::vector<std::string>{"a"});
  absl::Status cluster = authorizer.Authorize(alice, {"list", "", "configmaps", "", ""});
  EXPECT_EQ(cluster.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(cluster.message(), "user \"alice\" cannot list configmaps at the cluster scope");
  absl::Status other = authorizer.Authorize(alice, {"watch", "apps", "deployments", "n2", ""});
  EXPECT_EQ(other.message(), "user \"alice\" cannot watch deployments.apps in namespace \"n2\"");
  absl::Status get = authorizer.Authorize(alice, {"get", "", "configmaps", "n1", "x"});
  EXPECT_EQ(get.message(), "user \"alice\" cannot get configmaps \"x\" in namespace \"n1\"");
}

TEST_F(AuthorizerTest, CachesDecisionsBothWaysUntilTheTtl) {
  Authorizer authorizer = MakeAuthorizer();
  UserInfo alice = *authorizer.Authenticate("t-alice");
  ResourceAttributes allowed{"list", "", "configmaps", "n1", ""};
  ResourceAttributes denied{"list", "", "configmaps", "n2", ""};
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(authorizer.Authorize(alice, allowed).ok());
    EXPECT_FALSE(authorizer.Authorize(alice, denied).ok());
  }
  EXPECT_EQ(reviewer_.access_reviews, 2);
  // A withdrawn permission is seen once the decision expires.
  reviewer_.allowed.clear();
  now_ += absl::Seconds(9);
  EXPECT_TRUE(authorizer.Authorize(alice, allowed).ok());
  now_ += absl::Seconds(2);
  EXPECT_EQ(authorizer.Authorize(alice, allowed).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(reviewer_.access_reviews, 3);
}

TEST_F(AuthorizerTest, DistinctUsersNeverShareADecision) {
  Authorizer authorizer = MakeAuthorizer();
  UserInfo alice = *authorizer.Authenticate("t-alice");
  UserInfo other_group = alice;
  other_group.groups = {"admins"};
  ResourceAttributes attributes{"list", "", "configmaps", "n1", ""};
  ASSERT_TRUE(authorizer.Authorize(alice, attributes).ok());
  authorizer.Authorize(other_group, attributes).IgnoreError();
  EXPECT_EQ(reviewer_.access_reviews, 2);
}

TEST_F(AuthorizerTest, BoundedCacheStillAnswersCorrectly) {
  Authorizer authorizer = MakeAuthorizer(/*capacity=*/1);
  UserInfo alice = *authorizer.Authenticate("t-alice");
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(authorizer.Authorize(alice, {"list", "", "configmaps", "n1", ""}).ok());
    EXPECT_FALSE(authorizer.Authorize(alice, {"list", "", "configmaps", "n2", ""}).ok());
  }
  EXPECT_EQ(reviewer_.access_reviews, 6);
}

}  // namespace
}  // namespace informerd::auth
