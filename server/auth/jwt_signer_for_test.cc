#include "server/auth/jwt_signer_for_test.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace informerd::auth {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "JwtSignerForTest: %s failed\n", what);
    std::abort();
  }
}

std::string BnParam(EVP_PKEY* key, const char* name, size_t width = 0) {
  BIGNUM* bn = nullptr;
  Check(EVP_PKEY_get_bn_param(key, name, &bn) == 1, name);
  const size_t size = width != 0 ? width : static_cast<size_t>(BN_num_bytes(bn));
  std::string bytes(size, '\0');
  Check(BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(bytes.data()),
                     static_cast<int>(size)) == static_cast<int>(size),
        "BN_bn2binpad");
  BN_free(bn);
  return bytes;
}

}  // namespace

std::string Base64Url(std::string_view bytes) {
  std::string out;
  absl::WebSafeBase64Escape(absl::string_view(bytes.data(), bytes.size()), &out);
  return out;
}

JwtSignerForTest::JwtSignerForTest(Algorithm algorithm, std::string kid)
    : algorithm_(algorithm), kid_(std::move(kid)) {
  key_ = algorithm == Algorithm::kRs256 ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048})
                                        : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  Check(key_ != nullptr, "EVP_PKEY_Q_keygen");
}

JwtSignerForTest::~JwtSignerForTest() { EVP_PKEY_free(key_); }

std::string JwtSignerForTest::Jwk() const {
  if (algorithm_ == Algorithm::kRs256) {
    return absl::StrCat(R"({"kty":"RSA","use":"sig","alg":"RS256","kid":")", kid_, R"(","n":")",
                        Base64Url(BnParam(key_, OSSL_PKEY_PARAM_RSA_N)), R"(","e":")",
                        Base64Url(BnParam(key_, OSSL_PKEY_PARAM_RSA_E)), R"("})");
  }
  return absl::StrCat(R"({"kty":"EC","use":"sig","alg":"ES256","crv":"P-256","kid":")", kid_,
                      R"(","x":")", Base64Url(BnParam(key_, OSSL_PKEY_PARAM_EC_PUB_X, 32)),
                      R"(","y":")", Base64Url(BnParam(key_, OSSL_PKEY_PARAM_EC_PUB_Y, 32)),
                      R"("})");
}

std::string JwtSignerForTest::Sign(std::string_view header_json,
                                   std::string_view claims_json) const {
  const std::string signed_part =
      absl::StrCat(Base64Url(header_json), ".", Base64Url(claims_json));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  Check(EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key_) == 1, "DigestSignInit");
  size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(signed_part.data());
  Check(EVP_DigestSign(ctx, nullptr, &length, data, signed_part.size()) == 1, "DigestSign");
  std::vector<unsigned char> signature(length);
  Check(EVP_DigestSign(ctx, signature.data(), &length, data, signed_part.size()) == 1,
        "DigestSign");
  EVP_MD_CTX_free(ctx);
  std::string raw(reinterpret_cast<const char*>(signature.data()), length);
  if (algorithm_ == Algorithm::kEs256) {
    // DER to JOSE's r || s.
    const unsigned char* der = signature.data();
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(length));
    Check(sig != nullptr, "d2i_ECDSA_SIG");
    raw.assign(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(sig);
  }
  return absl::StrCat(signed_part, ".", Base64Url(raw));
}

std::string JwtSignerForTest::SignClaims(std::string_view claims_json) const {
  return Sign(absl::StrCat(R"({"alg":")", alg(), R"(","kid":")", kid_, R"("})"), claims_json);
}

}  // namespace informerd::auth
