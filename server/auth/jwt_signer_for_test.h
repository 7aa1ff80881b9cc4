// JwtSignerForTest: a freshly generated RSA-2048 or P-256 key, its JWK, and
// compact JWTs signed with it (RS256, ES256), for tests of JwtVerifier and
// of what uses it.
//
// Thread safety: not thread-safe.
#ifndef INFORMERD_SERVER_AUTH_JWT_SIGNER_FOR_TEST_H_
#define INFORMERD_SERVER_AUTH_JWT_SIGNER_FOR_TEST_H_

#include <string>
#include <string_view>

typedef struct evp_pkey_st EVP_PKEY;

namespace informerd::auth {

class JwtSignerForTest {
 public:
  enum class Algorithm { kRs256, kEs256 };

  JwtSignerForTest(Algorithm algorithm, std::string kid);
  ~JwtSignerForTest();
  JwtSignerForTest(const JwtSignerForTest&) = delete;
  JwtSignerForTest& operator=(const JwtSignerForTest&) = delete;

  // The public key as one JWK object.
  std::string Jwk() const;
  // A compact JWT of `header_json` and `claims_json` (as given, base64url
  // encoded) signed with the key.
  std::string Sign(std::string_view header_json, std::string_view claims_json) const;
  // As Sign, with the header {"alg":...,"kid":...}.
  std::string SignClaims(std::string_view claims_json) const;

  const std::string& kid() const { return kid_; }
  const char* alg() const { return algorithm_ == Algorithm::kRs256 ? "RS256" : "ES256"; }

 private:
  const Algorithm algorithm_;
  const std::string kid_;
  EVP_PKEY* key_ = nullptr;
};

// base64url without padding.
std::string Base64Url(std::string_view bytes);

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_JWT_SIGNER_FOR_TEST_H_
