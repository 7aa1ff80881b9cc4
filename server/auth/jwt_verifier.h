// JwtVerifier: checks a bearer token that claims to be a service account
// token of the kube-apiserver's issuer against that issuer's published keys
// (its JWKS), locally, before any TokenReview is spent on it.
//
// What a check can say:
//   - kNotLocal: the token is not one this verifier can judge (not a JWT,
//     another issuer's, an algorithm it does not know, or a key id it has
//     not fetched yet). The caller reviews it as before, in the budget of
//     tokens it cannot tell apart from made-up ones.
//   - kInvalid: the token names this issuer but its signature does not
//     match the named key, or it is expired, not yet valid, or for another
//     audience. The apiserver would reject it as well: it is refused at
//     once, at no review cost.
//   - kSigned: the issuer signed it and its claims hold; `subject` is its
//     `sub` (system:serviceaccount:<ns>:<name>). It is still reviewed (the
//     token may be revoked, its pod or secret deleted), but the review is
//     charged to the subject's own budget, which no made-up token can spend.
//
// Accepted algorithms: RS256 (RSA keys of at least 2048 bits) and ES256
// (P-256). Sizes are bounded: the token by kMaxBearerTokenBytes, the key set
// by kMaxJwksBytes and kMaxJwksKeys; JSON nesting by json::Parse.
//
// Thread safety: thread-safe; SetKeys may run while others Check.
#ifndef INFORMERD_SERVER_AUTH_JWT_VERIFIER_H_
#define INFORMERD_SERVER_AUTH_JWT_VERIFIER_H_

#include <map>
#include <utility>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace informerd::auth {

inline constexpr size_t kMaxJwksBytes = 1 << 20;
inline constexpr size_t kMaxJwksKeys = 64;

// One issuer's usable keys, by key id. Keys of other types, curves or uses
// are left out (the set may publish keys informerd cannot use).
class JwtKeys {
 public:
  // `issuer`'s keys from its JWKS document ({"keys":[...]});
  // INVALID_ARGUMENT naming the reason when it is not one, or too large.
  static absl::StatusOr<std::shared_ptr<const JwtKeys>> Parse(std::string issuer,
                                                              std::string_view jwks);

  ~JwtKeys();
  const std::string& issuer() const { return issuer_; }
  size_t size() const { return keys_.size(); }
  // Null when `kid` is not in the set. Owned by the set.
  EVP_PKEY* Find(std::string_view kid) const;

 private:
  explicit JwtKeys(std::string issuer) : issuer_(std::move(issuer)) {}
  const std::string issuer_;
  std::map<std::string, EVP_PKEY*, std::less<>> keys_;
};

struct TokenCheck {
  enum class Verdict { kNotLocal, kInvalid, kSigned };
  Verdict verdict = Verdict::kNotLocal;
  // kInvalid: why, without the token (e.g. "its signature does not match").
  std::string reason;
  // kSigned: the `sub` claim.
  std::string subject;
  // kNotLocal: the token names this issuer and a key id not in the set
  // (the issuer may have rotated its keys since they were fetched).
  bool unknown_key = false;
};

class JwtVerifier {
 public:
  // `audiences` empty: any audience (the apiserver's own audiences are not
  // known here); else a token's `aud` must name one of them. `leeway` is
  // allowed for clock skew on `exp` and `nbf`. Until SetKeys, every token
  // is kNotLocal.
  explicit JwtVerifier(std::vector<std::string> audiences,
                       absl::Duration leeway = absl::Seconds(60));

  // The issuer whose tokens are judged, and its keys.
  void SetKeys(std::shared_ptr<const JwtKeys> keys);
  bool has_keys() const;

  TokenCheck Check(std::string_view token, absl::Time now) const;

 private:
  const std::vector<std::string> audiences_;
  const absl::Duration leeway_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const JwtKeys> keys_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_JWT_VERIFIER_H_
