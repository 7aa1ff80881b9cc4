#include "server/auth/authorizer.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/auth/jwt_signer_for_test.h"
#include "server/auth/jwt_verifier.h"

namespace informerd::auth {
namespace {

// Answers from tables and counts the calls, as the apiserver would be asked.
class FakeReviewer : public Reviewer {
 public:
  absl::StatusOr<UserInfo> ReviewToken(std::string_view token) override {
    absl::MutexLock lock(&mu_);
    ++token_reviews;
    ++in_review;
    mu_.Await(absl::Condition(+[](bool* hold) { return !*hold; }, &hold_reviews));
    --in_review;
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
  // While set, token reviews wait (in_review counts them).
  bool hold_reviews = false;
  int in_review = 0;
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

TEST_F(AuthorizerTest, AFloodOfBadTokensDoesNotEvictGoodOnes) {
  Authorizer authorizer = MakeAuthorizer(/*capacity=*/4);
  ASSERT_TRUE(authorizer.Authenticate("t-alice").ok());
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(authorizer.Authenticate("t-bad-" + std::to_string(i)).status().code(),
              absl::StatusCode::kUnauthenticated);
  }
  int reviews = reviewer_.token_reviews;
  ASSERT_TRUE(authorizer.Authenticate("t-alice").ok());
  EXPECT_EQ(reviewer_.token_reviews, reviews) << "alice's answer was evicted";
}

TEST_F(AuthorizerTest, AdmitReviewGuardsOnlyUncachedTokens) {
  Authorizer authorizer = MakeAuthorizer();
  int asked = 0;
  auto refuse = [&asked](const Authorizer::ReviewLane&) {
    ++asked;
    return absl::ResourceExhaustedError("TokenReview rate of ipv4:10.0.0.1 is over its limit");
  };
  absl::Status refused = authorizer.Authenticate("t-alice", refuse).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(reviewer_.token_reviews, 0);
  ASSERT_TRUE(authorizer.Authenticate("t-alice").ok());
  // Cached now, accepted or rejected: no review, so nothing to admit.
  EXPECT_EQ(authorizer.Authenticate("t-bad").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(authorizer.Authenticate("t-alice", refuse).ok());
  EXPECT_EQ(authorizer.Authenticate("t-bad", refuse).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(asked, 1);
}

TEST_F(AuthorizerTest, TheCacheOnlyMethodsNeverAskTheReviewer) {
  Authorizer authorizer = MakeAuthorizer();
  int asked = 0;
  auto admit = [&asked](const Authorizer::ReviewLane& lane) {
    EXPECT_EQ(lane.kind, Authorizer::ReviewLane::Kind::kNew);
    ++asked;
    return absl::OkStatus();
  };
  // Not cached: nullopt, once the budget admitted the review it needs.
  EXPECT_FALSE(authorizer.UserFromCache("t-alice", admit).has_value());
  EXPECT_FALSE(authorizer.UserFromCache("t-bad").has_value());
  EXPECT_EQ(asked, 1);
  auto refuse = [](const Authorizer::ReviewLane&) {
    return absl::ResourceExhaustedError("over budget");
  };
  std::optional<absl::StatusOr<UserInfo>> refused = authorizer.UserFromCache("t-alice", refuse);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(reviewer_.token_reviews, 0);

  ASSERT_TRUE(authorizer.Authenticate("t-alice").ok());
  ASSERT_FALSE(authorizer.Authenticate("t-bad").ok());
  std::optional<absl::StatusOr<UserInfo>> alice = authorizer.UserFromCache("t-alice", refuse);
  ASSERT_TRUE(alice.has_value() && alice->ok());
  EXPECT_EQ((*alice)->username, "alice");
  std::optional<absl::StatusOr<UserInfo>> bad = authorizer.UserFromCache("t-bad", refuse);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->status().code(), absl::StatusCode::kUnauthenticated);

  const ResourceAttributes allowed{"list", "", "configmaps", "n1", ""};
  const ResourceAttributes denied{"list", "", "configmaps", "n2", ""};
  EXPECT_FALSE(authorizer.DecisionFromCache(**alice, allowed).has_value());
  EXPECT_EQ(reviewer_.access_reviews, 0);
  ASSERT_TRUE(authorizer.Authorize(**alice, allowed).ok());
  ASSERT_FALSE(authorizer.Authorize(**alice, denied).ok());
  EXPECT_EQ(authorizer.DecisionFromCache(**alice, allowed), absl::OkStatus());
  std::optional<absl::Status> cached_denial = authorizer.DecisionFromCache(**alice, denied);
  ASSERT_TRUE(cached_denial.has_value());
  EXPECT_EQ(cached_denial->code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(reviewer_.token_reviews, 2);
  EXPECT_EQ(reviewer_.access_reviews, 2);
}

TEST_F(AuthorizerTest, TokenReviewsInFlightAreBounded) {
  AuthorizerOptions options;
  options.max_concurrent_token_reviews = 2;
  Authorizer authorizer(&reviewer_, options);
  {
    absl::MutexLock lock(&reviewer_.mu_);
    reviewer_.hold_reviews = true;
  }
  std::vector<std::thread> reviews;
  for (int i = 0; i < 2; ++i) {
    reviews.emplace_back([&authorizer, i] {
      (void)authorizer.Authenticate("t-slow-" + std::to_string(i));
    });
  }
  {
    absl::MutexLock lock(&reviewer_.mu_);
    reviewer_.mu_.Await(
        absl::Condition(+[](int* in_review) { return *in_review == 2; }, &reviewer_.in_review));
  }
  absl::Status third = authorizer.Authenticate("t-alice").status();
  EXPECT_EQ(third.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(third.message().find("too many TokenReviews in flight"), absl::string_view::npos);
  {
    absl::MutexLock lock(&reviewer_.mu_);
    reviewer_.hold_reviews = false;
  }
  for (std::thread& review : reviews) review.join();
  EXPECT_TRUE(authorizer.Authenticate("t-alice").ok());
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
    EXPECT_FALSE(authorizer.Authorize(alice, {"list", "", "configmaps", "n2", ""}).ok());
    EXPECT_FALSE(authorizer.Authorize(alice, {"list", "", "configmaps", "n3", ""}).ok());
    EXPECT_TRUE(authorizer.Authorize(alice, {"list", "", "configmaps", "n1", ""}).ok());
  }
  // The two denials evict each other; the permission has a cache of its own.
  EXPECT_EQ(reviewer_.access_reviews, 7);
}

// An unprivileged caller asking about namespace after namespace (finding 4
// of issue 26) evicts only denials: alice's permission stays cached.
TEST_F(AuthorizerTest, AFloodOfDenialsDoesNotEvictPermissions) {
  Authorizer authorizer = MakeAuthorizer(/*capacity=*/4);
  UserInfo alice = *authorizer.Authenticate("t-alice");
  UserInfo carol{"carol", "", {}, {}};
  ASSERT_TRUE(authorizer.Authorize(alice, {"list", "", "configmaps", "n1", ""}).ok());
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(authorizer.Authorize(carol, {"list", "", "configmaps", "x" + std::to_string(i), ""})
                  .code(),
              absl::StatusCode::kPermissionDenied);
  }
  const int reviews = reviewer_.access_reviews;
  EXPECT_TRUE(authorizer.Authorize(alice, {"list", "", "configmaps", "n1", ""}).ok());
  EXPECT_EQ(reviewer_.access_reviews, reviews) << "alice's permission was evicted";
}

TEST_F(AuthorizerTest, ANewerDecisionReplacesTheOlderOne) {
  Authorizer authorizer = MakeAuthorizer();
  UserInfo alice = *authorizer.Authenticate("t-alice");
  ResourceAttributes n1{"list", "", "configmaps", "n1", ""};
  ASSERT_TRUE(authorizer.Authorize(alice, n1).ok());
  reviewer_.allowed.clear();
  now_ += absl::Seconds(11);
  EXPECT_EQ(authorizer.Authorize(alice, n1).code(), absl::StatusCode::kPermissionDenied);
  reviewer_.allowed.insert("alice/list/configmaps/n1");
  now_ += absl::Seconds(11);
  EXPECT_TRUE(authorizer.Authorize(alice, n1).ok());
  EXPECT_EQ(reviewer_.access_reviews, 3);
}

// A token once accepted is told apart from a made-up one when it must be
// reviewed again (admit_review's `remembered`), until it is rejected or has
// not been accepted for remembered_token_ttl.
TEST_F(AuthorizerTest, RemembersAcceptedTokensUntilRejected) {
  Authorizer authorizer = MakeAuthorizer();
  std::vector<bool> asked;
  auto admit = [&asked](const Authorizer::ReviewLane& lane) {
    asked.push_back(lane.kind == Authorizer::ReviewLane::Kind::kRemembered);
    return absl::OkStatus();
  };
  EXPECT_FALSE(authorizer.RememberedUser("t-alice").has_value());
  ASSERT_TRUE(authorizer.Authenticate("t-alice", admit).ok());
  EXPECT_EQ(authorizer.RememberedUser("t-alice"), "alice");
  now_ += absl::Seconds(31);  // out of the token cache, still remembered
  ASSERT_TRUE(authorizer.Authenticate("t-alice", admit).ok());
  EXPECT_EQ(authorizer.Authenticate("t-made-up", admit).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_FALSE(authorizer.RememberedUser("t-made-up").has_value());
  EXPECT_EQ(asked, (std::vector<bool>{false, true, false}));

  // Revoked: the next review rejects it, and it is forgotten.
  reviewer_.users.erase("t-alice");
  now_ += absl::Seconds(31);
  EXPECT_EQ(authorizer.Authenticate("t-alice", admit).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_FALSE(authorizer.RememberedUser("t-alice").has_value());
}

TEST_F(AuthorizerTest, ForgetsTokensNotAcceptedForTheRememberedTtl) {
  Authorizer authorizer = MakeAuthorizer();
  ASSERT_TRUE(authorizer.Authenticate("t-alice").ok());
  now_ += absl::Minutes(59);
  EXPECT_EQ(authorizer.RememberedUser("t-alice"), "alice");
  now_ += absl::Minutes(2);
  EXPECT_FALSE(authorizer.RememberedUser("t-alice").has_value());
}

// With a verifier: a token that claims the issuer but fails its checks is
// UNAUTHENTICATED before any budget or review; a signed one is charged to
// its subject's lane (and still reviewed); any other token keeps the lanes
// of unsigned tokens. A token naming an unknown key id asks for a refetch.
TEST_F(AuthorizerTest, ChargesSignedTokensToTheirSubjectAndRefusesForgedOnesWithoutReview) {
  constexpr char kIssuer[] = "https://issuer.example";
  JwtSignerForTest signer(JwtSignerForTest::Algorithm::kEs256, "k1");
  JwtSignerForTest forger(JwtSignerForTest::Algorithm::kEs256, "k1");
  JwtSignerForTest rotated(JwtSignerForTest::Algorithm::kEs256, "k2");
  JwtVerifier verifier({"informerd"});
  verifier.SetKeys(*JwtKeys::Parse(kIssuer, absl::StrCat(R"({"keys":[)", signer.Jwk(), "]}")));
  const std::string claims =
      absl::StrCat(R"({"iss":"https://issuer.example","sub":"system:serviceaccount:a:b",)",
                   R"("aud":["informerd"],"exp":)", absl::ToUnixSeconds(now_) + 600, "}");
  const std::string good = signer.SignClaims(claims);
  const std::string forged = forger.SignClaims(claims);
  const std::string unknown_key = rotated.SignClaims(claims);
  reviewer_.users[good] = UserInfo{"system:serviceaccount:a:b", "uid-b", {}, {}};

  int refetches = 0;
  AuthorizerOptions options;
  options.clock = [this] { return now_; };
  options.verifier = &verifier;
  options.unknown_key = [&refetches] { ++refetches; };
  Authorizer authorizer(&reviewer_, options);
  std::vector<Authorizer::ReviewLane> lanes;
  auto admit = [&lanes](const Authorizer::ReviewLane& lane) {
    lanes.push_back(lane);
    return absl::OkStatus();
  };

  absl::StatusOr<UserInfo> refused = authorizer.Authenticate(forged, admit);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(refused.status().message(),
            "the token was rejected without review: its signature does not match the issuer's "
            "key");
  std::optional<absl::StatusOr<UserInfo>> from_cache = authorizer.UserFromCache(forged, admit);
  ASSERT_TRUE(from_cache.has_value());
  EXPECT_EQ(from_cache->status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(lanes.empty());
  EXPECT_EQ(reviewer_.token_reviews, 0);

  EXPECT_FALSE(authorizer.UserFromCache(good, admit).has_value());
  ASSERT_TRUE(authorizer.Authenticate(good, admit).ok());
  EXPECT_EQ(reviewer_.token_reviews, 1);  // still reviewed
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_EQ(lanes[0].kind, Authorizer::ReviewLane::Kind::kSigned);
  EXPECT_EQ(lanes[0].subject, "system:serviceaccount:a:b");

  EXPECT_EQ(authorizer.Authenticate(unknown_key, admit).status().code(),
            absl::StatusCode::kUnauthenticated);  // the reviewer does not know it
  EXPECT_EQ(authorizer.Authenticate("opaque-static-token", admit).status().code(),
            absl::StatusCode::kUnauthenticated);
  ASSERT_EQ(lanes.size(), 4u);
  EXPECT_EQ(lanes[2].kind, Authorizer::ReviewLane::Kind::kNew);
  EXPECT_EQ(lanes[3].kind, Authorizer::ReviewLane::Kind::kNew);
  EXPECT_EQ(refetches, 1);
  EXPECT_EQ(reviewer_.token_reviews, 3);

  // Expired, and its cached answer too: refused without review.
  now_ += absl::Minutes(12);
  EXPECT_EQ(authorizer.Authenticate(good, admit).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(reviewer_.token_reviews, 3);
}

}  // namespace
}  // namespace informerd::auth
