// KubeReviewer against a scripted API server: what a TokenReview asks for
// and which answers let a token through. The real apiserver's side is in
// tests/integration/token_audience_test.cc.
#include "server/auth/kube_reviewer.h"

#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rapidjson/document.h"
#include "server/kube/fake_api_server.h"
#include "server/kube/rest_client.h"

namespace informerd::auth {
namespace {

using ::testing::HasSubstr;

constexpr char kTokenReviewPath[] = "/apis/authentication.k8s.io/v1/tokenreviews";

class KubeReviewerTest : public ::testing::Test {
 protected:
  // Every TokenReview is answered with `status` (a JSON object); the last
  // request body is kept in last_body_.
  void AnswerTokenReviews(std::string status) {
    server_.Handle(kTokenReviewPath, [this, status](const httplib::Request& request,
                                                    httplib::Response& response) {
      {
        absl::MutexLock lock(&mu_);
        last_body_ = request.body;
      }
      response.status = 201;
      response.set_content(absl::StrCat(R"({"apiVersion":"authentication.k8s.io/v1",)",
                                        R"("kind":"TokenReview","status":)", status, "}"),
                           "application/json");
    });
  }

  // spec.audiences of the last TokenReview, or "absent".
  std::string LastAudiences() {
    absl::MutexLock lock(&mu_);
    rapidjson::Document doc;
    doc.Parse(last_body_.c_str());
    if (!doc.IsObject() || !doc["spec"].HasMember("audiences")) return "absent";
    std::string out;
    for (const auto& audience : doc["spec"]["audiences"].GetArray()) {
      if (!out.empty()) out += ",";
      out += audience.GetString();
    }
    return out;
  }

  std::unique_ptr<kube::RestClient> Client() {
    absl::StatusOr<std::unique_ptr<kube::RestClient>> client =
        kube::RestClient::Create(server_.config());
    EXPECT_TRUE(client.ok()) << client.status();
    return *std::move(client);
  }

  kube::FakeApiServer server_;
  absl::Mutex mu_;
  std::string last_body_ ABSL_GUARDED_BY(mu_);
};

constexpr char kAlice[] = R"({"authenticated":true,"user":{"username":"alice"})";

TEST_F(KubeReviewerTest, WithoutAudiencesAsksForNoneAndAcceptsAnyAnswer) {
  AnswerTokenReviews(absl::StrCat(kAlice, R"(,"audiences":["https://kubernetes.default.svc"]})"));
  std::unique_ptr<kube::RestClient> client = Client();
  KubeReviewer reviewer(client.get());
  absl::StatusOr<UserInfo> user = reviewer.ReviewToken("t");
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(user->username, "alice");
  EXPECT_EQ(LastAudiences(), "absent");
}

TEST_F(KubeReviewerTest, WithAudiencesAsksForThemAndAcceptsOneOfThem) {
  AnswerTokenReviews(absl::StrCat(kAlice, R"(,"audiences":["informerd"]})"));
  std::unique_ptr<kube::RestClient> client = Client();
  KubeReviewer reviewer(client.get(), {"informerd", "informerd.example"});
  absl::StatusOr<UserInfo> user = reviewer.ReviewToken("t");
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(LastAudiences(), "informerd,informerd.example");
}

TEST_F(KubeReviewerTest, WithAudiencesRefusesAnAnswerForAnotherAudience) {
  AnswerTokenReviews(absl::StrCat(kAlice, R"(,"audiences":["https://kubernetes.default.svc"]})"));
  std::unique_ptr<kube::RestClient> client = Client();
  KubeReviewer reviewer(client.get(), {"informerd"});
  absl::StatusOr<UserInfo> user = reviewer.ReviewToken("t");
  EXPECT_EQ(user.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(user.status().message(), HasSubstr("not for informerd's audience (informerd)"));
}

// An apiserver that does not report audiences cannot vouch for them.
TEST_F(KubeReviewerTest, WithAudiencesRefusesAnAnswerWithoutAudiences) {
  AnswerTokenReviews(absl::StrCat(kAlice, "}"));
  std::unique_ptr<kube::RestClient> client = Client();
  KubeReviewer reviewer(client.get(), {"informerd"});
  EXPECT_EQ(reviewer.ReviewToken("t").status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(KubeReviewerTest, NotAuthenticatedStaysUnauthenticated) {
  AnswerTokenReviews(R"({"authenticated":false,"error":"token audiences are invalid"})");
  std::unique_ptr<kube::RestClient> client = Client();
  KubeReviewer reviewer(client.get(), {"informerd"});
  absl::StatusOr<UserInfo> user = reviewer.ReviewToken("t");
  EXPECT_EQ(user.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(user.status().message(), HasSubstr("token audiences are invalid"));
}

}  // namespace
}  // namespace informerd::auth
