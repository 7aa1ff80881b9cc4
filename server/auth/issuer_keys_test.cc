#include "server/auth/issuer_keys.h"

#include <atomic>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "server/auth/jwt_signer_for_test.h"
#include "server/kube/fake_api_server.h"

namespace informerd::auth {
namespace {

constexpr char kIssuer[] = "https://kubernetes.default.svc.cluster.local";
constexpr char kJwks[] = "/openid/v1/jwks";

// The apiserver's two discovery endpoints; the JWKS answers 406 to a
// client that accepts only application/json, as the apiserver does.
class IssuerKeysTest : public ::testing::Test {
 protected:
  IssuerKeysTest() {
    server_.Handle("/.well-known/openid-configuration",
                   [this](const httplib::Request&, httplib::Response& response) {
                     absl::MutexLock lock(&mu_);
                     response.status = discovery_status_;
                     response.set_content(
                         absl::StrCat(R"({"issuer":")", kIssuer, R"(","jwks_uri":"x"})"),
                         "application/json");
                   });
    server_.Handle(kJwks, [this](const httplib::Request& request, httplib::Response& response) {
      if (!absl::StrContains(request.get_header_value("Accept"), "application/jwk-set+json")) {
        response.status = 406;
        return;
      }
      absl::MutexLock lock(&mu_);
      response.set_content(jwks_, "application/jwk-set+json");
    });
    client_ = *kube::RestClient::Create(server_.config());
  }

  void SetJwks(const JwtSignerForTest& signer) {
    absl::MutexLock lock(&mu_);
    jwks_ = absl::StrCat(R"({"keys":[)", signer.Jwk(), "]}");
  }

  size_t JwksFetches() const {
    size_t count = 0;
    for (const kube::RecordedRequest& request : server_.requests()) count += request.path == kJwks;
    return count;
  }

  std::string Token(const JwtSignerForTest& signer) const {
    return signer.SignClaims(absl::StrCat(R"({"iss":")", kIssuer,
                                          R"(","sub":"system:serviceaccount:a:b","exp":)",
                                          absl::ToUnixSeconds(absl::Now()) + 600, "}"));
  }

  kube::FakeApiServer server_;
  std::unique_ptr<kube::RestClient> client_;
  absl::Mutex mu_;
  int discovery_status_ ABSL_GUARDED_BY(mu_) = 200;
  std::string jwks_ ABSL_GUARDED_BY(mu_) = R"({"keys":[]})";
};

TEST_F(IssuerKeysTest, FetchesTheIssuerAndItsKeysAtStart) {
  JwtSignerForTest signer(JwtSignerForTest::Algorithm::kRs256, "k1");
  SetJwks(signer);
  JwtVerifier verifier({});
  IssuerKeys keys(client_.get(), &verifier);
  EXPECT_TRUE(keys.last_fetch().ok()) << keys.last_fetch();
  TokenCheck check = verifier.Check(Token(signer), absl::Now());
  EXPECT_EQ(check.verdict, TokenCheck::Verdict::kSigned) << check.reason;
}

// A burst of unknown key ids costs one fetch, no sooner than the minimum
// interval after the last; a rotated key is then known.
TEST_F(IssuerKeysTest, RefetchesOnRequestAtMostOncePerInterval) {
  JwtSignerForTest old_key(JwtSignerForTest::Algorithm::kEs256, "old");
  JwtSignerForTest new_key(JwtSignerForTest::Algorithm::kEs256, "new");
  SetJwks(old_key);
  JwtVerifier verifier({});
  const absl::Duration interval = absl::Milliseconds(300);
  IssuerKeys keys(client_.get(), &verifier,
                  {.refresh_interval = absl::Hours(1), .min_refetch_interval = interval});
  const absl::Time first = absl::Now();
  ASSERT_EQ(JwksFetches(), 1u);
  EXPECT_TRUE(verifier.Check(Token(new_key), absl::Now()).unknown_key);
  SetJwks(new_key);
  for (int i = 0; i < 100; ++i) keys.RequestRefetch();
  ASSERT_TRUE(server_.WaitForRequests(kJwks, 2, absl::Seconds(10)));
  EXPECT_GE(absl::Now() - first, interval);
  EXPECT_EQ(JwksFetches(), 2u);
  // The request has arrived; its answer is installed a moment later.
  const std::string token = Token(new_key);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (verifier.Check(token, absl::Now()).verdict != TokenCheck::Verdict::kSigned &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));  // polling for the installed keys
  }
  EXPECT_EQ(verifier.Check(token, absl::Now()).verdict, TokenCheck::Verdict::kSigned);
  EXPECT_EQ(JwksFetches(), 2u);
}

// Unreadable keys (e.g. the discovery binding removed): logged, and every
// token is left to the apiserver.
TEST_F(IssuerKeysTest, AFailedFetchLeavesTokensToTheApiserver) {
  {
    absl::MutexLock lock(&mu_);
    discovery_status_ = 403;
  }
  JwtSignerForTest signer(JwtSignerForTest::Algorithm::kRs256, "k1");
  SetJwks(signer);
  JwtVerifier verifier({});
  IssuerKeys keys(client_.get(), &verifier);
  EXPECT_FALSE(keys.last_fetch().ok());
  EXPECT_FALSE(verifier.has_keys());
  EXPECT_EQ(verifier.Check(Token(signer), absl::Now()).verdict, TokenCheck::Verdict::kNotLocal);
}

}  // namespace
}  // namespace informerd::auth
