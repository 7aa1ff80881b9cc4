#include "server/auth/jwt_verifier.h"

#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/auth/jwt_signer_for_test.h"

namespace informerd::auth {
namespace {

constexpr char kIssuer[] = "https://kubernetes.default.svc.cluster.local";
constexpr char kSubject[] = "system:serviceaccount:team:app";

using Verdict = TokenCheck::Verdict;

class JwtVerifierTest : public ::testing::Test {
 protected:
  JwtVerifierTest()
      : rsa_(JwtSignerForTest::Algorithm::kRs256, "rsa-key"),
        ec_(JwtSignerForTest::Algorithm::kEs256, "ec-key"),
        verifier_({"informerd", "other"}) {
    absl::StatusOr<std::shared_ptr<const JwtKeys>> keys = JwtKeys::Parse(
        kIssuer, absl::StrCat(R"({"keys":[)", rsa_.Jwk(), ",", ec_.Jwk(), "]}"));
    EXPECT_TRUE(keys.ok()) << keys.status();
    EXPECT_EQ((*keys)->size(), 2u);
    verifier_.SetKeys(*keys);
  }

  // Claims valid at now_ unless overridden.
  std::string Claims(const std::string& iss = kIssuer, const std::string& aud = R"(["informerd"])",
                     int64_t exp_offset = 3600, int64_t nbf_offset = -10) const {
    const int64_t now = absl::ToUnixSeconds(now_);
    return absl::StrCat(R"({"iss":")", iss, R"(","sub":")", kSubject, R"(","aud":)", aud,
                        R"(,"exp":)", now + exp_offset, R"(,"nbf":)", now + nbf_offset,
                        R"(,"iat":)", now + nbf_offset, "}");
  }

  TokenCheck Check(const std::string& token) const { return verifier_.Check(token, now_); }

  JwtSignerForTest rsa_;
  JwtSignerForTest ec_;
  JwtVerifier verifier_;
  absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
};

TEST_F(JwtVerifierTest, AcceptsRs256AndEs256SignedByTheIssuer) {
  for (const JwtSignerForTest* signer : {&rsa_, &ec_}) {
    TokenCheck check = Check(signer->SignClaims(Claims()));
    EXPECT_EQ(check.verdict, Verdict::kSigned) << signer->alg() << ": " << check.reason;
    EXPECT_EQ(check.subject, kSubject);
  }
  // A string audience, and the second configured audience.
  EXPECT_EQ(Check(rsa_.SignClaims(Claims(kIssuer, R"("other")"))).verdict, Verdict::kSigned);
}

TEST_F(JwtVerifierTest, RejectsAWrongSignature) {
  JwtSignerForTest impostor(JwtSignerForTest::Algorithm::kRs256, "rsa-key");
  TokenCheck check = Check(impostor.SignClaims(Claims()));
  EXPECT_EQ(check.verdict, Verdict::kInvalid);
  EXPECT_EQ(check.reason, "its signature does not match the issuer's key");
  JwtSignerForTest ec_impostor(JwtSignerForTest::Algorithm::kEs256, "ec-key");
  EXPECT_EQ(Check(ec_impostor.SignClaims(Claims())).verdict, Verdict::kInvalid);

  // Claims changed after signing.
  std::string token = rsa_.SignClaims(Claims());
  const size_t first = token.find('.'), second = token.find('.', first + 1);
  std::string forged = absl::StrCat(token.substr(0, first), ".",
                                    Base64Url(Claims(kIssuer, R"(["informerd"])", 999999)),
                                    token.substr(second));
  EXPECT_EQ(Check(forged).verdict, Verdict::kInvalid);
  // A signature of the wrong size for ES256, and one not base64url.
  std::string ec_token = ec_.SignClaims(Claims());
  EXPECT_EQ(Check(ec_token.substr(0, ec_token.size() - 4)).verdict, Verdict::kInvalid);
  EXPECT_EQ(Check(absl::StrCat(ec_token.substr(0, ec_token.rfind('.')), ".***")).verdict,
            Verdict::kInvalid);
}

TEST_F(JwtVerifierTest, AnAlgorithmThatDoesNotMatchItsKeyIsInvalid) {
  EXPECT_EQ(Check(rsa_.Sign(R"({"alg":"ES256","kid":"rsa-key"})", Claims())).verdict,
            Verdict::kInvalid);
}

TEST_F(JwtVerifierTest, AnUnknownKeyIdIsLeftToTheApiserverAndReported) {
  JwtSignerForTest rotated(JwtSignerForTest::Algorithm::kRs256, "new-key");
  TokenCheck check = Check(rotated.SignClaims(Claims()));
  EXPECT_EQ(check.verdict, Verdict::kNotLocal);
  EXPECT_TRUE(check.unknown_key);
  // No kid at all: not reported (nothing to fetch).
  check = Check(rsa_.Sign(R"({"alg":"RS256"})", Claims()));
  EXPECT_EQ(check.verdict, Verdict::kNotLocal);
  EXPECT_FALSE(check.unknown_key);
}

TEST_F(JwtVerifierTest, RejectsExpiredNotYetValidAndOtherAudiences) {
  // Past the 60 s leeway, and within it.
  EXPECT_EQ(Check(rsa_.SignClaims(Claims(kIssuer, R"(["informerd"])", -61))).reason,
            "it has expired");
  EXPECT_EQ(Check(rsa_.SignClaims(Claims(kIssuer, R"(["informerd"])", -59))).verdict,
            Verdict::kSigned);
  EXPECT_EQ(Check(rsa_.SignClaims(Claims(kIssuer, R"(["informerd"])", 3600, 61))).reason,
            "it is not valid yet (nbf)");
  EXPECT_EQ(Check(rsa_.SignClaims(Claims(kIssuer, R"(["https://kubernetes.default.svc"])"))).reason,
            "it is not for informerd's audiences (aud)");
  EXPECT_EQ(Check(rsa_.SignClaims(Claims(kIssuer, "[]"))).verdict, Verdict::kInvalid);
  EXPECT_EQ(Check(rsa_.SignClaims(Claims(kIssuer, "17"))).verdict, Verdict::kInvalid);
  EXPECT_EQ(Check(rsa_.SignClaims(R"({"iss":"https://kubernetes.default.svc.cluster.local",)"
                                  R"("sub":"x","aud":"informerd"})"))
                .reason,
            "it has no expiry (exp)");
  const int64_t exp = absl::ToUnixSeconds(now_) + 600;
  EXPECT_EQ(Check(rsa_.SignClaims(absl::StrCat(
                R"({"iss":"https://kubernetes.default.svc.cluster.local","aud":"informerd","exp":)",
                exp, "}")))
                .reason,
            "it names no subject (sub)");
}

TEST_F(JwtVerifierTest, WithoutAudiencesAnyAudienceIsTheApiserversToJudge) {
  JwtVerifier any({});
  any.SetKeys(*JwtKeys::Parse(kIssuer, absl::StrCat(R"({"keys":[)", rsa_.Jwk(), "]}")));
  EXPECT_EQ(any.Check(rsa_.SignClaims(Claims(kIssuer, R"(["anything"])")), now_).verdict,
            Verdict::kSigned);
}

TEST_F(JwtVerifierTest, OtherIssuersAndNonJwtsAreNotLocal) {
  EXPECT_EQ(Check(rsa_.SignClaims(Claims("kubernetes/serviceaccount"))).verdict,
            Verdict::kNotLocal);
  EXPECT_EQ(Check(rsa_.SignClaims(Claims("https://accounts.example.com"))).verdict,
            Verdict::kNotLocal);
  EXPECT_EQ(Check(rsa_.Sign(R"({"alg":"HS256","kid":"rsa-key"})", Claims())).verdict,
            Verdict::kNotLocal);
  EXPECT_EQ(Check(rsa_.Sign(R"({"alg":"none"})", Claims())).verdict, Verdict::kNotLocal);
  for (const std::string& token :
       {std::string("3f2a9c0d1e"), std::string("a.b.c"), std::string(".."), std::string("a..b"),
        absl::StrCat(Base64Url("{}"), ".", Base64Url("[]"), ".x"),
        absl::StrCat(Base64Url("not json"), ".", Base64Url("{}"), ".x"),
        absl::StrCat(Base64Url(R"({"alg":"RS256","kid":"rsa-key"})"), ".", Base64Url(Claims()),
                     ".x.y"),
        std::string(20000, 'a')}) {
    EXPECT_EQ(Check(token).verdict, Verdict::kNotLocal) << token.substr(0, 80);
  }
  // Deep nesting in a header is refused by the bounded parser, not followed.
  std::string deep(50000, '[');
  EXPECT_EQ(Check(absl::StrCat(Base64Url(deep), ".", Base64Url(Claims()), ".x")).verdict,
            Verdict::kNotLocal);
}

TEST_F(JwtVerifierTest, WithoutKeysEverythingIsNotLocal) {
  JwtVerifier empty({"informerd"});
  EXPECT_FALSE(empty.has_keys());
  TokenCheck check = empty.Check(rsa_.SignClaims(Claims()), now_);
  EXPECT_EQ(check.verdict, Verdict::kNotLocal);
  EXPECT_FALSE(check.unknown_key);
}

TEST(JwtKeysTest, ParsesUsableKeysAndRefusesMalformedSets) {
  JwtSignerForTest rsa(JwtSignerForTest::Algorithm::kRs256, "a");
  absl::StatusOr<std::shared_ptr<const JwtKeys>> keys = JwtKeys::Parse(
      kIssuer, absl::StrCat(R"({"keys":[)", rsa.Jwk(),
                            R"(,{"kty":"oct","kid":"b","k":"c2VjcmV0"},)"
                            R"({"kty":"RSA","kid":"c","n":"AQAB","e":"AQAB"},)"
                            R"({"kty":"EC","kid":"d","crv":"P-256","x":"AAAA","y":"AAAA"},)"
                            R"({"kty":"RSA","kid":"e","use":"enc","n":"AQAB","e":"AQAB"},)"
                            R"(17,"x",{"kty":"RSA"}]})"));
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ((*keys)->size(), 1u);  // the small RSA key, the odd ones and "oct" are left out
  EXPECT_NE((*keys)->Find("a"), nullptr);
  EXPECT_EQ((*keys)->Find("c"), nullptr);

  EXPECT_FALSE(JwtKeys::Parse(kIssuer, "not json").ok());
  EXPECT_FALSE(JwtKeys::Parse(kIssuer, R"({"keys":{}})").ok());
  EXPECT_FALSE(JwtKeys::Parse("", R"({"keys":[]})").ok());
  EXPECT_FALSE(JwtKeys::Parse(kIssuer, std::string(kMaxJwksBytes + 1, ' ')).ok());
  std::string many = R"({"keys":[)";
  for (size_t i = 0; i <= kMaxJwksKeys; ++i) absl::StrAppend(&many, i == 0 ? "" : ",", "{}");
  absl::StatusOr<std::shared_ptr<const JwtKeys>> too_many = JwtKeys::Parse(kIssuer, many + "]}");
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kInvalidArgument);
}

// A point not on the curve is refused, not used to verify.
TEST(JwtKeysTest, RefusesAnEcPointOffTheCurve) {
  const std::string coordinate = Base64Url(std::string(32, '\x01'));
  absl::StatusOr<std::shared_ptr<const JwtKeys>> keys = JwtKeys::Parse(
      kIssuer, absl::StrCat(R"({"keys":[{"kty":"EC","kid":"p","crv":"P-256","x":")", coordinate,
                            R"(","y":")", coordinate, R"("}]})"));
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ((*keys)->size(), 0u);
}

}  // namespace
}  // namespace informerd::auth
