// Admission of List, Get, Watch and ListResources requests, below any gRPC
// server: in-memory Informers in a ResourceRegistry, a real Authorizer over
// a fake Reviewer that answers from tables and counts what it was asked.
// Each refusal is checked with its gRPC code; the Order tests each tell
// two adjacent steps apart, so that swapping them fails a test.
#include "server/service/admission.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "informerd/v1/informerd.pb.h"
#include "server/auth/authorizer.h"
#include "server/auth/jwt_signer_for_test.h"
#include "server/auth/jwt_verifier.h"
#include "server/auth/reviewer.h"
#include "server/service/admission_requests.h"
#include "server/service/continue_token.h"
#include "server/service/served_resource.h"

namespace informerd::service {
namespace {

using Code = grpc::StatusCode;
using Kind = AdmissionResult::Kind;

class FakeReviewer : public auth::Reviewer {
 public:
  absl::StatusOr<auth::UserInfo> ReviewToken(std::string_view token) override {
    absl::MutexLock lock(&mu_);
    ++token_reviews_;
    if (token == "t-down") return absl::UnavailableError("connection refused");
    auto found = users_.find(std::string(token));
    if (found == users_.end()) return absl::UnauthenticatedError("unknown token");
    return found->second;
  }
  absl::StatusOr<bool> ReviewAccess(const auth::UserInfo& user,
                                    const auth::ResourceAttributes& attributes) override {
    absl::MutexLock lock(&mu_);
    ++access_reviews_;
    if (user.username == "carol") return absl::UnavailableError("connection refused");
    return allowed_.count(user.username + "/" + attributes.verb + "/" + attributes.resource +
                          "/" + attributes.namespace_) != 0;
  }

  void AddUser(const std::string& token, const std::string& name) {
    absl::MutexLock lock(&mu_);
    users_[token] = auth::UserInfo{name, "uid-" + name, {}, {}};
  }
  // "user/verb/resource/namespace"
  void Allow(const std::string& rule) {
    absl::MutexLock lock(&mu_);
    allowed_.insert(rule);
  }
  int token_reviews() {
    absl::MutexLock lock(&mu_);
    return token_reviews_;
  }
  int access_reviews() {
    absl::MutexLock lock(&mu_);
    return access_reviews_;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, auth::UserInfo> users_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> allowed_ ABSL_GUARDED_BY(mu_);
  int token_reviews_ ABSL_GUARDED_BY(mu_) = 0;
  int access_reviews_ ABSL_GUARDED_BY(mu_) = 0;
};

std::unique_ptr<ServedResource> Served(const std::string& group, const std::string& resource,
                                       bool namespaced) {
  auto served = std::make_unique<ServedResource>();
  served->info = {group, "v1", resource, "Kind", namespaced, {"list", "watch"}};
  served->informer = std::make_unique<informer::Informer>(informer::InformerOptions{});
  served->informer->OnListStart();
  served->informer->OnListEnd("7");
  return served;
}

v1::ResourceName Name(const std::string& resource, const std::string& group = "") {
  v1::ResourceName name;
  name.set_group(group);
  name.set_resource(resource);
  return name;
}

template <typename Message>
grpc::ByteBuffer Serialized(const Message& message) {
  grpc::ByteBuffer buffer;
  bool own = false;
  EXPECT_TRUE(grpc::SerializationTraits<Message>::Serialize(message, &buffer, &own).ok());
  return buffer;
}

Credentials Token(const std::string& token) {
  Credentials credentials;
  credentials.peer_host = "10.0.0.1";
  credentials.sent_token = true;
  credentials.token = token;
  return credentials;
}

Credentials NoToken() {
  Credentials credentials;
  credentials.peer_host = "10.0.0.1";
  return credentials;
}

v1::ListRequest ListOf(const std::string& resource, const std::string& ns = "") {
  v1::ListRequest request;
  *request.mutable_resource() = Name(resource);
  request.set_namespace_(ns);
  return request;
}

v1::GetRequest GetOf(const std::string& resource, const std::string& ns,
                     const std::string& name) {
  v1::GetRequest request;
  *request.mutable_resource() = Name(resource);
  request.set_namespace_(ns);
  request.set_name(name);
  return request;
}

v1::WatchRequest WatchOf(const std::string& resource, const std::string& ns = "") {
  v1::WatchRequest request;
  *request.mutable_resource() = Name(resource);
  request.set_namespace_(ns);
  return request;
}

class AdmissionTest : public ::testing::Test {
 protected:
  AdmissionTest() {
    registry_.Add(Served("", "configmaps", true));
    registry_.Add(Served("", "nodes", false));
    registry_.Add(Served("", "secrets", true));
    registry_.AddPending("example.com", "widgets");
    reviewer_.AddUser("t-alice", "alice");
    reviewer_.AddUser("t-bob", "bob");
    reviewer_.AddUser("t-carol", "carol");
    for (const char* verb : {"list", "get", "watch"}) {
      reviewer_.Allow(std::string("alice/") + verb + "/configmaps/team");
      reviewer_.Allow(std::string("alice/") + verb + "/nodes/");
    }
    limits_.max_lists_per_identity = 1;
    limits_.max_watches_per_identity = 1;
  }

  Admission& admission() {
    if (admission_ == nullptr) {
      admission_ = std::make_unique<Admission>(&registry_, &metrics_,
                                               AdmissionOptions{&authorizer_, limits_, 2});
    }
    return *admission_;
  }

  // The whole decision: Admit, then Review when it needs the apiserver,
  // waiting for the worker's answer.
  AdmissionResult Decide(std::shared_ptr<AdmissionRequest> request,
                         const Credentials& credentials) {
    AdmissionResult first = admission().Admit(*request, credentials);
    if (first.kind() != Kind::kNeedsReview) return first;
    return Reviewed(std::move(request), credentials, std::move(first));
  }
  AdmissionResult Reviewed(std::shared_ptr<AdmissionRequest> request,
                           const Credentials& credentials, AdmissionResult first) {
    absl::Notification done;
    std::optional<AdmissionResult> reviewed;
    admission().Review(request, credentials, std::move(first), [&](AdmissionResult result) {
      reviewed.emplace(std::move(result));
      done.Notify();
    });
    done.WaitForNotification();
    return *std::move(reviewed);
  }

  // The code of the decision: OK when admitted.
  template <typename Request, typename Message>
  Code Code_(const Message& message, const Credentials& credentials) {
    buffers_.push_back(std::make_unique<grpc::ByteBuffer>(Serialized(message)));
    return CodeOf(MakeRequest<Request>(buffers_.back().get()), credentials);
  }
  Code CodeOf(std::shared_ptr<AdmissionRequest> request, const Credentials& credentials) {
    return CodeOf(Decide(std::move(request), credentials));
  }
  Code CodeOf(AdmissionResult result) {
    EXPECT_NE(result.kind(), Kind::kNeedsReview);
    if (result.admitted()) {
      held_.push_back(result.TakePermit());
      return Code::OK;
    }
    last_message_ = result.status().error_message();
    return result.status().error_code();
  }
  template <typename Request>
  std::shared_ptr<Request> MakeRequest(const grpc::ByteBuffer* buffer) {
    if constexpr (std::is_same_v<Request, ListAdmission>) {
      return std::make_shared<ListAdmission>(buffer, &continue_tokens_);
    } else {
      return std::make_shared<Request>(buffer);
    }
  }

  Code List(const v1::ListRequest& request, const Credentials& credentials) {
    return Code_<ListAdmission>(request, credentials);
  }
  Code Get(const v1::GetRequest& request, const Credentials& credentials) {
    return Code_<GetAdmission>(request, credentials);
  }
  Code Watch(const v1::WatchRequest& request, const Credentials& credentials) {
    return Code_<WatchAdmission>(request, credentials);
  }
  Code ListResources(const std::string& ns, const Credentials& credentials,
                     std::vector<std::string>* shown = nullptr) {
    v1::ListResourcesRequest request;
    request.set_namespace_(ns);
    auto admission = std::make_shared<ListResourcesAdmission>(&request);
    Code code = CodeOf(admission, credentials);
    if (shown != nullptr && code == Code::OK) {
      for (const auto& [served, cluster_wide] : admission->listed()) {
        shown->push_back(served->DisplayName() + (cluster_wide ? "" : " (namespace)"));
      }
    }
    return code;
  }
  Code Garbage(const std::string& method, const Credentials& credentials) {
    grpc::Slice slice(std::string("\xff\xff\xff", 3));
    buffers_.push_back(std::make_unique<grpc::ByteBuffer>(&slice, 1));
    const grpc::ByteBuffer* buffer = buffers_.back().get();
    if (method == "List") return CodeOf(MakeRequest<ListAdmission>(buffer), credentials);
    if (method == "Get") return CodeOf(MakeRequest<GetAdmission>(buffer), credentials);
    return CodeOf(MakeRequest<WatchAdmission>(buffer), credentials);
  }

  ResourceRegistry registry_;
  metrics::Metrics metrics_;
  FakeReviewer reviewer_;
  // Holds no keys unless a test sets them: every token is left to reviews.
  auth::JwtVerifier verifier_{{}};
  auth::Authorizer authorizer_{&reviewer_, auth::AuthorizerOptions{.verifier = &verifier_}};
  limits::RequestLimits limits_;
  const ContinueTokens continue_tokens_{absl::Minutes(5)};
  std::vector<std::unique_ptr<grpc::ByteBuffer>> buffers_;
  std::string last_message_;
  std::unique_ptr<Admission> admission_;
  // Declared last: released before the limiters they hold slots of.
  std::vector<limits::ConcurrencyLimiter::Permit> held_;
};

// --- Every refusal, with its code ---

TEST_F(AdmissionTest, ListRefusals) {
  const Credentials alice = Token("t-alice");
  EXPECT_EQ(Garbage("List", alice), Code::INVALID_ARGUMENT);
  v1::ListRequest negative = ListOf("configmaps", "team");
  negative.set_limit(-1);
  EXPECT_EQ(List(negative, alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(last_message_, "limit: must not be negative");
  v1::ListRequest long_token = ListOf("configmaps", "team");
  long_token.set_continue_token(std::string(kMaxContinueTokenBytes + 1, 'a'));
  EXPECT_EQ(List(long_token, alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(List(ListOf("", "team"), alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(List(ListOf("configmaps", "Not_A_Namespace"), alice), Code::INVALID_ARGUMENT);
  v1::ListRequest projection = ListOf("configmaps", "team");
  projection.set_projection(static_cast<v1::Projection>(7));
  EXPECT_EQ(List(projection, alice), Code::INVALID_ARGUMENT);
  v1::ListRequest version = ListOf("configmaps", "team");
  version.set_resource_version("abc");
  EXPECT_EQ(List(version, alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(last_message_, "resource_version: \"abc\" is not a decimal resource version");

  EXPECT_EQ(List(ListOf("configmaps", "team"), NoToken()), Code::UNAUTHENTICATED);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token("t-unknown")), Code::UNAUTHENTICATED);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token("t-down")), Code::UNAVAILABLE);

  EXPECT_EQ(List(ListOf("pods", "team"), alice), Code::NOT_FOUND);
  v1::ListRequest pending = ListOf("widgets");
  pending.mutable_resource()->set_group("example.com");
  EXPECT_EQ(List(pending, alice), Code::UNAVAILABLE);
  v1::ListRequest selector = ListOf("configmaps", "team");
  selector.set_label_selector("a in (");
  EXPECT_EQ(List(selector, alice), Code::INVALID_ARGUMENT);
  v1::ListRequest field = ListOf("configmaps", "team");
  field.set_field_selector("spec.nope=1");
  EXPECT_EQ(List(field, alice), Code::INVALID_ARGUMENT);
  v1::ListRequest forged = ListOf("configmaps", "team");
  forged.set_continue_token("bm90IGEgdG9rZW4");
  EXPECT_EQ(List(forged, alice), Code::INVALID_ARGUMENT);

  EXPECT_EQ(List(ListOf("configmaps"), alice), Code::PERMISSION_DENIED);
  EXPECT_EQ(last_message_,
            "user \"alice\" cannot list configmaps at the cluster scope; set namespace");
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token("t-carol")), Code::UNAVAILABLE);

  EXPECT_EQ(List(ListOf("configmaps", "team"), alice), Code::OK);
  // Her one List slot is held (held_).
  EXPECT_EQ(List(ListOf("configmaps", "team"), alice), Code::RESOURCE_EXHAUSTED);
}

TEST_F(AdmissionTest, GetRefusals) {
  const Credentials alice = Token("t-alice");
  EXPECT_EQ(Garbage("Get", alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(Get(GetOf("configmaps", "team", ""), alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(last_message_, "name: required");
  EXPECT_EQ(Get(GetOf("configmaps", "team", std::string(254, 'n')), alice),
            Code::INVALID_ARGUMENT);
  v1::GetRequest version = GetOf("configmaps", "team", "a");
  version.set_min_resource_version("-1");
  EXPECT_EQ(Get(version, alice), Code::INVALID_ARGUMENT);

  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), NoToken()), Code::UNAUTHENTICATED);

  EXPECT_EQ(Get(GetOf("pods", "team", "a"), alice), Code::NOT_FOUND);
  EXPECT_EQ(Get(GetOf("configmaps", "", "a"), alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(last_message_, "namespace: required for configmaps");
  EXPECT_EQ(Get(GetOf("nodes", "team", "a"), alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(last_message_, "namespace: nodes is cluster-scoped; leave namespace empty");

  EXPECT_EQ(Get(GetOf("secrets", "team", "a"), alice), Code::PERMISSION_DENIED);
  EXPECT_EQ(last_message_, "user \"alice\" cannot get secrets \"a\" in namespace \"team\"");
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), Token("t-carol")), Code::UNAVAILABLE);

  // A Get holds no concurrency slot.
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), alice), Code::OK);
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), alice), Code::OK);
}

TEST_F(AdmissionTest, WatchRefusals) {
  const Credentials alice = Token("t-alice");
  EXPECT_EQ(Garbage("Watch", alice), Code::INVALID_ARGUMENT);
  EXPECT_EQ(Watch(WatchOf("configmaps", "-team"), alice), Code::INVALID_ARGUMENT);
  v1::WatchRequest version = WatchOf("configmaps", "team");
  version.set_resource_version("1.5");
  EXPECT_EQ(Watch(version, alice), Code::INVALID_ARGUMENT);

  EXPECT_EQ(Watch(WatchOf("configmaps", "team"), NoToken()), Code::UNAUTHENTICATED);
  EXPECT_EQ(Watch(WatchOf("configmaps", "team"), Token("t-unknown")), Code::UNAUTHENTICATED);

  EXPECT_EQ(Watch(WatchOf("pods", "team"), alice), Code::NOT_FOUND);
  v1::WatchRequest selector = WatchOf("configmaps", "team");
  selector.set_field_selector("spec.nope=1");
  EXPECT_EQ(Watch(selector, alice), Code::INVALID_ARGUMENT);

  EXPECT_EQ(Watch(WatchOf("configmaps"), alice), Code::PERMISSION_DENIED);
  EXPECT_EQ(Watch(WatchOf("configmaps", "team"), Token("t-carol")), Code::UNAVAILABLE);

  EXPECT_EQ(Watch(WatchOf("configmaps", "team"), alice), Code::OK);
  EXPECT_EQ(Watch(WatchOf("nodes"), alice), Code::RESOURCE_EXHAUSTED);
}

TEST_F(AdmissionTest, ListResourcesRefusesOnlyShapeAndIdentityAndShowsWhatTheCallerMayList) {
  EXPECT_EQ(ListResources("Bad_Namespace", Token("t-alice")), Code::INVALID_ARGUMENT);
  EXPECT_EQ(ListResources("", NoToken()), Code::UNAUTHENTICATED);
  EXPECT_EQ(ListResources("", Token("t-unknown")), Code::UNAUTHENTICATED);

  std::vector<std::string> shown;
  EXPECT_EQ(ListResources("team", Token("t-alice"), &shown), Code::OK);
  EXPECT_EQ(shown, (std::vector<std::string>{"configmaps (namespace)", "nodes"}));
  shown.clear();
  EXPECT_EQ(ListResources("", Token("t-bob"), &shown), Code::OK);
  EXPECT_TRUE(shown.empty());
  // A failed review hides a resource; it does not fail the call.
  shown.clear();
  EXPECT_EQ(ListResources("", Token("t-carol"), &shown), Code::OK);
  EXPECT_TRUE(shown.empty());
}

TEST_F(AdmissionTest, TheRequestRateIsChargedOnceAnIdentityIsKnown) {
  limits_.rates.per_identity_burst = 2;
  limits_.rates.per_identity_per_second = 0.001;
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), Token("t-alice")), Code::OK);
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), Token("t-alice")), Code::OK);
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), Token("t-alice")), Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(ListResources("", Token("t-alice")), Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), Token("t-bob")), Code::PERMISSION_DENIED);
}

TEST_F(AdmissionTest, TheTokenReviewBudgetIsChargedBeforeAReview) {
  limits_.token_reviews.per_identity_burst = 1;
  limits_.token_reviews.per_identity_per_second = 0.001;
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token("t-made-up-1")), Code::UNAUTHENTICATED);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token("t-made-up-2")), Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(reviewer_.token_reviews(), 1);
}

// A rollout: the new lane spent by made-up tokens, a forged token of the
// issuer refused without review, and each service account's signed tokens
// reviewed in a budget of its own.
TEST_F(AdmissionTest, SignedTokensAreBudgetedPerSubjectApartFromMadeUpOnes) {
  auth::JwtSignerForTest signer(auth::JwtSignerForTest::Algorithm::kEs256, "k");
  auth::JwtSignerForTest forger(auth::JwtSignerForTest::Algorithm::kEs256, "k");
  verifier_.SetKeys(*auth::JwtKeys::Parse("https://issuer", absl::StrCat(R"({"keys":[)",
                                                                         signer.Jwk(), "]}")));
  auto token = [](const auth::JwtSignerForTest& key, const std::string& account, int i) {
    return key.SignClaims(absl::StrCat(
        R"({"iss":"https://issuer","sub":"system:serviceaccount:team:)", account,
        R"(","jti":")", i, R"(","exp":)", absl::ToUnixSeconds(absl::Now()) + 600, "}"));
  };
  const std::string a1 = token(signer, "a", 1), a2 = token(signer, "a", 2);
  const std::string b1 = token(signer, "b", 1);
  for (const auto& [t, account] : {std::pair{a1, "a"}, {a2, "a"}, {b1, "b"}}) {
    reviewer_.AddUser(t, absl::StrCat("system:serviceaccount:team:", account));
    reviewer_.Allow(absl::StrCat("system:serviceaccount:team:", account, "/list/configmaps/team"));
  }
  limits_.token_reviews.per_identity_burst = 1;
  limits_.token_reviews.per_identity_per_second = 0.001;
  limits_.signed_token_reviews.per_identity_burst = 1;
  limits_.signed_token_reviews.per_identity_per_second = 0.001;

  EXPECT_EQ(List(ListOf("configmaps", "team"), Token("t-made-up-1")), Code::UNAUTHENTICATED);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token("t-made-up-2")), Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token(token(forger, "a", 3))),
            Code::UNAUTHENTICATED);
  EXPECT_EQ(reviewer_.token_reviews(), 1);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token(a1)), Code::OK);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token(a2)), Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(List(ListOf("configmaps", "team"), Token(b1)), Code::OK);
  EXPECT_EQ(reviewer_.token_reviews(), 3);
}

// --- The order: each test tells two adjacent steps apart ---

TEST_F(AdmissionTest, OrderShapeBeforeAuthentication) {
  // A malformed request from nobody is INVALID_ARGUMENT, and costs no review.
  EXPECT_EQ(Garbage("List", NoToken()), Code::INVALID_ARGUMENT);
  EXPECT_EQ(Garbage("Get", Token("t-made-up")), Code::INVALID_ARGUMENT);
  EXPECT_EQ(Garbage("Watch", NoToken()), Code::INVALID_ARGUMENT);
  EXPECT_EQ(ListResources("Bad_Namespace", Token("t-made-up")), Code::INVALID_ARGUMENT);
  EXPECT_EQ(reviewer_.token_reviews(), 0);
}

TEST_F(AdmissionTest, OrderAuthenticationBeforeResolution) {
  // An unauthenticated peer learns nothing of what is served.
  EXPECT_EQ(List(ListOf("pods", "team"), NoToken()), Code::UNAUTHENTICATED);
  EXPECT_EQ(Get(GetOf("pods", "team", "a"), Token("t-made-up")), Code::UNAUTHENTICATED);
  EXPECT_EQ(Get(GetOf("nodes", "team", "a"), NoToken()), Code::UNAUTHENTICATED);
  EXPECT_EQ(Watch(WatchOf("pods"), NoToken()), Code::UNAUTHENTICATED);
  v1::WatchRequest selector = WatchOf("configmaps", "team");
  selector.set_field_selector("spec.nope=1");
  EXPECT_EQ(Watch(selector, NoToken()), Code::UNAUTHENTICATED);
}

TEST_F(AdmissionTest, OrderRateBeforeResolution) {
  limits_.rates.per_identity_burst = 1;
  limits_.rates.per_identity_per_second = 0.001;
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), Token("t-alice")), Code::OK);
  // Spent: an unknown resource is not looked up for her any more.
  EXPECT_EQ(List(ListOf("pods", "team"), Token("t-alice")), Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(Watch(WatchOf("pods"), Token("t-alice")), Code::RESOURCE_EXHAUSTED);
}

TEST_F(AdmissionTest, OrderResolutionBeforeAuthorization) {
  // Bob may read nothing; what is not served, or not selectable, is said
  // without a SubjectAccessReview.
  const Credentials bob = Token("t-bob");
  EXPECT_EQ(List(ListOf("pods", "team"), bob), Code::NOT_FOUND);
  EXPECT_EQ(Get(GetOf("configmaps", "", "a"), bob), Code::INVALID_ARGUMENT);
  v1::WatchRequest selector = WatchOf("configmaps", "team");
  selector.set_label_selector("a in (");
  EXPECT_EQ(Watch(selector, bob), Code::INVALID_ARGUMENT);
  v1::ListRequest forged = ListOf("configmaps", "team");
  forged.set_continue_token("bm90IGEgdG9rZW4");
  EXPECT_EQ(List(forged, bob), Code::INVALID_ARGUMENT);
  EXPECT_EQ(reviewer_.access_reviews(), 0);
}

TEST_F(AdmissionTest, OrderAuthorizationBeforeLimits) {
  const Credentials alice = Token("t-alice");
  EXPECT_EQ(List(ListOf("configmaps", "team"), alice), Code::OK);
  EXPECT_EQ(Watch(WatchOf("configmaps", "team"), alice), Code::OK);
  // Her one List and one Watch slot are held: what she may not read is
  // PERMISSION_DENIED, not a matter of slots.
  EXPECT_EQ(List(ListOf("secrets", "team"), alice), Code::PERMISSION_DENIED);
  EXPECT_EQ(Watch(WatchOf("secrets", "team"), alice), Code::PERMISSION_DENIED);
  EXPECT_EQ(List(ListOf("configmaps", "team"), alice), Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(Watch(WatchOf("configmaps", "team"), alice), Code::RESOURCE_EXHAUSTED);
}

// --- Reviews: never on the calling thread, explicit in the result ---

TEST_F(AdmissionTest, AnAnswerNotCachedNeedsAReviewAndIsCachedAfterIt) {
  const Credentials alice = Token("t-alice");
  grpc::ByteBuffer list = Serialized(ListOf("configmaps", "team"));
  auto first = std::make_shared<ListAdmission>(&list, &continue_tokens_);
  AdmissionResult result = admission().Admit(*first, alice);
  EXPECT_EQ(result.kind(), Kind::kNeedsReview);
  EXPECT_EQ(reviewer_.token_reviews(), 0);  // nothing asked on this thread
  EXPECT_EQ(CodeOf(Reviewed(first, alice, std::move(result))), Code::OK);
  EXPECT_EQ(reviewer_.token_reviews(), 1);
  EXPECT_EQ(reviewer_.access_reviews(), 1);
  held_.clear();

  // Cached now: admitted on the calling thread.
  auto second = std::make_shared<ListAdmission>(&list, &continue_tokens_);
  EXPECT_EQ(admission().Admit(*second, alice).kind(), Kind::kAdmitted);

  // Known token, permission not cached: the review resumes after
  // authentication, which it does not repeat.
  grpc::ByteBuffer get_buffer = Serialized(GetOf("configmaps", "team", "a"));
  auto get = std::make_shared<GetAdmission>(&get_buffer);
  AdmissionResult needs = admission().Admit(*get, alice);
  EXPECT_EQ(needs.kind(), Kind::kNeedsReview);
  EXPECT_EQ(CodeOf(Reviewed(get, alice, std::move(needs))), Code::OK);
  EXPECT_EQ(reviewer_.token_reviews(), 1);
  EXPECT_EQ(reviewer_.access_reviews(), 2);
}

TEST_F(AdmissionTest, ACallThatNeedsAReviewIsChargedOneRequest) {
  limits_.rates.per_identity_burst = 3;
  limits_.rates.per_identity_per_second = 0.001;
  const Credentials alice = Token("t-alice");
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), alice), Code::OK);  // token cached
  // Her token answered from the cache, then a SubjectAccessReview on a worker:
  // the review resumes after authentication and does not charge her again.
  grpc::ByteBuffer buffer = Serialized(WatchOf("nodes"));
  auto watch = std::make_shared<WatchAdmission>(&buffer);
  AdmissionResult needs = admission().Admit(*watch, alice);
  ASSERT_EQ(needs.kind(), Kind::kNeedsReview);
  EXPECT_EQ(CodeOf(Reviewed(watch, alice, std::move(needs))), Code::OK);
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), alice), Code::OK);
  EXPECT_EQ(Get(GetOf("configmaps", "team", "a"), alice), Code::RESOURCE_EXHAUSTED);
}

TEST_F(AdmissionTest, AWatchResolvedEarlyIsStillRefusedInOrder) {
  // CacheService resolves a Watch that needs a review before its review, to
  // choose its reactor; the caller still hears the first refusal in order.
  grpc::ByteBuffer buffer = Serialized(WatchOf("pods"));
  auto request = std::make_shared<WatchAdmission>(&buffer);
  ASSERT_EQ(request->Shape().error_code(), Code::OK);
  EXPECT_EQ(request->Resolve(registry_).error_code(), Code::NOT_FOUND);
  EXPECT_EQ(CodeOf(request, Token("t-made-up")), Code::UNAUTHENTICATED);
}

TEST_F(AdmissionTest, RechecksReviewTheCredentialsAgain) {
  EXPECT_TRUE(admission().Recheck(Token("t-alice"), {"watch", "", "configmaps", "team", ""}).ok());
  EXPECT_EQ(admission().Recheck(Token("t-alice"), {"watch", "", "secrets", "team", ""}).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(admission().Recheck(Token("t-made-up"), {"watch", "", "configmaps", "team", ""}).code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(AdmissionTest, WithoutAnAuthorizerEveryoneIsAdmittedAndCountedByHost) {
  admission_ = std::make_unique<Admission>(&registry_, &metrics_,
                                           AdmissionOptions{nullptr, limits_, 2});
  EXPECT_EQ(List(ListOf("secrets"), NoToken()), Code::OK);
  EXPECT_EQ(List(ListOf("configmaps"), NoToken()), Code::RESOURCE_EXHAUSTED);  // same host
  EXPECT_EQ(List(ListOf("pods"), NoToken()), Code::NOT_FOUND);
  EXPECT_EQ(Garbage("List", NoToken()), Code::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace informerd::service
