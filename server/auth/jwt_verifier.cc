#include "server/auth/jwt_verifier.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rapidjson/document.h"
#include "server/auth/bearer_token.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"

namespace informerd::auth {
namespace {

// Larger RSA moduli than this (bytes) are left out of a key set: 8192 bits
// is past any service account key, and verification cost grows with it.
constexpr size_t kMaxRsaModulusBytes = 1024;
constexpr int kMinRsaBits = 2048;
constexpr size_t kP256CoordinateBytes = 32;

// Base64url without padding, as JOSE writes it; padding is tolerated.
bool DecodeBase64Url(std::string_view text, std::string* out) {
  if (text.empty()) return false;
  return absl::WebSafeBase64Unescape(absl::string_view(text.data(), text.size()), out);
}

struct BnDeleter {
  void operator()(BIGNUM* bn) const { BN_free(bn); }
};
using Bn = std::unique_ptr<BIGNUM, BnDeleter>;
struct ParamBldDeleter {
  void operator()(OSSL_PARAM_BLD* bld) const { OSSL_PARAM_BLD_free(bld); }
};
struct ParamDeleter {
  void operator()(OSSL_PARAM* params) const { OSSL_PARAM_free(params); }
};
struct PkeyCtxDeleter {
  void operator()(EVP_PKEY_CTX* ctx) const { EVP_PKEY_CTX_free(ctx); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxDeleter>;
struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
struct EcdsaSigDeleter {
  void operator()(ECDSA_SIG* sig) const { ECDSA_SIG_free(sig); }
};

// The public key `params` describe, of `type` ("RSA" or "EC"), once it
// passes OpenSSL's public-key check; null otherwise.
EVP_PKEY* KeyFromParams(const char* type, OSSL_PARAM_BLD* bld) {
  std::unique_ptr<OSSL_PARAM, ParamDeleter> params(OSSL_PARAM_BLD_to_param(bld));
  if (params == nullptr) return nullptr;
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return nullptr;
  }
  PkeyCtx check(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  if (check == nullptr || EVP_PKEY_public_check(check.get()) <= 0) {
    EVP_PKEY_free(key);
    return nullptr;
  }
  return key;
}

EVP_PKEY* RsaKey(const rapidjson::Value& jwk) {
  std::string n, e;
  if (!DecodeBase64Url(json::StringMember(jwk, "n"), &n) ||
      !DecodeBase64Url(json::StringMember(jwk, "e"), &e) || n.size() > kMaxRsaModulusBytes ||
      e.size() > 8) {
    return nullptr;
  }
  Bn bn_n(BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()),
                    nullptr));
  Bn bn_e(BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()),
                    nullptr));
  std::unique_ptr<OSSL_PARAM_BLD, ParamBldDeleter> bld(OSSL_PARAM_BLD_new());
  if (bn_n == nullptr || bn_e == nullptr || bld == nullptr ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get())) {
    return nullptr;
  }
  EVP_PKEY* key = KeyFromParams("RSA", bld.get());
  if (key != nullptr && EVP_PKEY_get_bits(key) < kMinRsaBits) {
    EVP_PKEY_free(key);
    return nullptr;
  }
  return key;
}

EVP_PKEY* P256Key(const rapidjson::Value& jwk) {
  if (json::StringMember(jwk, "crv") != "P-256") return nullptr;
  std::string x, y;
  if (!DecodeBase64Url(json::StringMember(jwk, "x"), &x) ||
      !DecodeBase64Url(json::StringMember(jwk, "y"), &y) || x.size() != kP256CoordinateBytes ||
      y.size() != kP256CoordinateBytes) {
    return nullptr;
  }
  std::string point = absl::StrCat("\x04", x, y);
  std::unique_ptr<OSSL_PARAM_BLD, ParamBldDeleter> bld(OSSL_PARAM_BLD_new());
  char group[] = "prime256v1";
  if (bld == nullptr ||
      !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
      !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                        point.size())) {
    return nullptr;
  }
  return KeyFromParams("EC", bld.get());
}

bool VerifySignature(EVP_PKEY* key, std::string_view signed_part, const std::string& signature) {
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  if (ctx == nullptr ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) <= 0) {
    return false;
  }
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(),
                          reinterpret_cast<const unsigned char*>(signed_part.data()),
                          signed_part.size()) == 1;
}

// JOSE's ES256 signature is r || s, 32 bytes each; OpenSSL verifies DER.
bool ToDerEcdsa(const std::string& raw, std::string* der) {
  if (raw.size() != 2 * kP256CoordinateBytes) return false;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  std::unique_ptr<ECDSA_SIG, EcdsaSigDeleter> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes, kP256CoordinateBytes, nullptr);
  BIGNUM* s = BN_bin2bn(bytes + kP256CoordinateBytes, kP256CoordinateBytes, nullptr);
  if (sig == nullptr || r == nullptr || s == nullptr || !ECDSA_SIG_set0(sig.get(), r, s)) {
    BN_free(r);
    BN_free(s);
    return false;
  }
  unsigned char* out = nullptr;
  int length = i2d_ECDSA_SIG(sig.get(), &out);
  if (length <= 0) return false;
  der->assign(reinterpret_cast<const char*>(out), static_cast<size_t>(length));
  OPENSSL_free(out);
  return true;
}

TokenCheck Invalid(std::string reason) {
  TokenCheck check;
  check.verdict = TokenCheck::Verdict::kInvalid;
  check.reason = std::move(reason);
  return check;
}

// A NumericDate claim; false when absent or not a number.
bool Seconds(const rapidjson::Value& claims, std::string_view name, double* seconds) {
  const rapidjson::Value* value = json::Member(claims, name);
  if (value == nullptr || !value->IsNumber()) return false;
  *seconds = value->GetDouble();
  return true;
}

bool NamesAudience(const rapidjson::Value& claims, const std::vector<std::string>& audiences) {
  const rapidjson::Value* aud = json::Member(claims, "aud");
  if (aud == nullptr) return false;
  auto wanted = [&](const rapidjson::Value& value) {
    std::string_view text = json::AsString(&value);
    return !text.empty() &&
           std::find(audiences.begin(), audiences.end(), text) != audiences.end();
  };
  if (aud->IsString()) return wanted(*aud);
  if (!aud->IsArray()) return false;
  for (const rapidjson::Value& value : aud->GetArray()) {
    if (wanted(value)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const JwtKeys>> JwtKeys::Parse(std::string issuer,
                                                              std::string_view jwks) {
  if (issuer.empty()) return absl::InvalidArgumentError("JWKS: no issuer");
  if (jwks.size() > kMaxJwksBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("JWKS: ", jwks.size(), " bytes, more than ", kMaxJwksBytes));
  }
  rapidjson::Document document;
  if (absl::Status parsed = json::Parse(jwks, &document); !parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("JWKS: ", parsed.message()));
  }
  const rapidjson::Value* keys = json::ArrayMember(document, "keys");
  if (keys == nullptr) return absl::InvalidArgumentError("JWKS: no \"keys\" array");
  if (keys->Size() > kMaxJwksKeys) {
    return absl::InvalidArgumentError(
        absl::StrCat("JWKS: ", keys->Size(), " keys, more than ", kMaxJwksKeys));
  }
  std::shared_ptr<JwtKeys> set(new JwtKeys(std::move(issuer)));
  for (const rapidjson::Value& jwk : keys->GetArray()) {
    std::string_view kid = json::StringMember(jwk, "kid");
    std::string_view use = json::StringMember(jwk, "use");
    if (kid.empty() || (!use.empty() && use != "sig") || set->keys_.count(kid) > 0) continue;
    std::string_view kty = json::StringMember(jwk, "kty");
    EVP_PKEY* key = kty == "RSA" ? RsaKey(jwk) : kty == "EC" ? P256Key(jwk) : nullptr;
    if (key != nullptr) set->keys_.emplace(std::string(kid), key);
  }
  return std::shared_ptr<const JwtKeys>(std::move(set));
}

JwtKeys::~JwtKeys() {
  for (auto& [kid, key] : keys_) EVP_PKEY_free(key);
}

EVP_PKEY* JwtKeys::Find(std::string_view kid) const {
  auto found = keys_.find(kid);
  return found == keys_.end() ? nullptr : found->second;
}

JwtVerifier::JwtVerifier(std::vector<std::string> audiences, absl::Duration leeway)
    : audiences_(std::move(audiences)), leeway_(leeway) {}

void JwtVerifier::SetKeys(std::shared_ptr<const JwtKeys> keys) {
  absl::MutexLock lock(&mu_);
  keys_ = std::move(keys);
}

bool JwtVerifier::has_keys() const {
  absl::MutexLock lock(&mu_);
  return keys_ != nullptr;
}

TokenCheck JwtVerifier::Check(std::string_view token, absl::Time now) const {
  TokenCheck not_local;
  if (token.size() > kMaxBearerTokenBytes) return not_local;
  std::vector<std::string_view> parts;
  const absl::string_view whole(token.data(), token.size());
  for (absl::string_view part : absl::StrSplit(whole, '.')) {
    parts.emplace_back(part.data(), part.size());
  }
  if (parts.size() != 3) return not_local;
  std::string header_json, claims_json, signature;
  if (!DecodeBase64Url(parts[0], &header_json) || !DecodeBase64Url(parts[1], &claims_json)) {
    return not_local;
  }
  rapidjson::Document header, claims;
  if (!json::Parse(header_json, &header).ok() || !header.IsObject() ||
      !json::Parse(claims_json, &claims).ok() || !claims.IsObject()) {
    return not_local;
  }
  std::shared_ptr<const JwtKeys> keys;
  {
    absl::MutexLock lock(&mu_);
    keys = keys_;
  }
  // Another issuer's token (a static token, another OIDC issuer) is the
  // apiserver's to judge.
  if (keys == nullptr || json::StringMember(claims, "iss") != keys->issuer()) return not_local;
  std::string_view alg = json::StringMember(header, "alg");
  if (alg != "RS256" && alg != "ES256") return not_local;
  std::string_view kid = json::StringMember(header, "kid");
  EVP_PKEY* key = kid.empty() ? nullptr : keys->Find(kid);
  if (key == nullptr) {
    not_local.unknown_key = !kid.empty();
    return not_local;
  }
  const bool rsa = EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
  if (rsa != (alg == "RS256")) return Invalid("its algorithm does not match its key's type");
  if (!DecodeBase64Url(parts[2], &signature)) return Invalid("its signature is not base64url");
  if (!rsa) {
    std::string der;
    if (!ToDerEcdsa(signature, &der)) return Invalid("its signature is malformed");
    signature = std::move(der);
  }
  const std::string_view signed_part =
      token.substr(0, parts[0].size() + 1 + parts[1].size());
  if (!VerifySignature(key, signed_part, signature)) {
    return Invalid("its signature does not match the issuer's key");
  }
  // Signed by the issuer: its claims can be believed.
  const double unix_now = absl::ToDoubleSeconds(now - absl::UnixEpoch());
  const double leeway = absl::ToDoubleSeconds(leeway_);
  double exp = 0, nbf = 0;
  if (!Seconds(claims, "exp", &exp)) return Invalid("it has no expiry (exp)");
  if (unix_now > exp + leeway) return Invalid("it has expired");
  if (Seconds(claims, "nbf", &nbf) && unix_now + leeway < nbf) {
    return Invalid("it is not valid yet (nbf)");
  }
  if (!audiences_.empty() && !NamesAudience(claims, audiences_)) {
    return Invalid("it is not for informerd's audiences (aud)");
  }
  std::string_view subject = json::StringMember(claims, "sub");
  if (subject.empty()) return Invalid("it names no subject (sub)");
  TokenCheck signed_check;
  signed_check.verdict = TokenCheck::Verdict::kSigned;
  signed_check.subject = std::string(subject);
  return signed_check;
}

}  // namespace informerd::auth
