// Authorizer: authenticates callers by bearer token and authorizes their
// reads, remembering the Reviewer's answers (allowed and denied alike) for a
// short time so a busy client costs the authority almost nothing.
//
// Tokens the authority accepted are also remembered (by hash, with their
// user's name) for much longer than their answers are trusted, so that when
// one must be reviewed again it is known not to be made up: its review is
// charged to a budget of its own (see Authenticate) that a flood of unknown
// tokens cannot spend. Remembering grants nothing: a remembered token is
// reviewed like any other.
//
// With a JwtVerifier, a token is first checked locally against the
// apiserver's service account issuer: one that claims that issuer but whose
// signature or claims fail is UNAUTHENTICATED at once, with no review; one
// whose signature holds is charged to its subject's lane (kSigned), which
// no unsigned token can spend. It is still reviewed.
//
// Reviewer failures (the authority unreachable) are not remembered and
// become UNAVAILABLE, so the caller retries; they never grant access.
//
// Thread safety: thread-safe. The Reviewer must outlive the Authorizer.
#ifndef INFORMERD_SERVER_AUTH_AUTHORIZER_H_
#define INFORMERD_SERVER_AUTH_AUTHORIZER_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/auth/jwt_verifier.h"
#include "server/auth/reviewer.h"
#include "server/auth/ttl_cache.h"

namespace informerd::auth {

struct AuthorizerOptions {
  absl::Duration token_ttl = absl::Seconds(30);
  absl::Duration decision_ttl = absl::Seconds(10);
  // How long an accepted token is remembered (not trusted) after its last
  // acceptance; a rejection forgets it at once.
  absl::Duration remembered_token_ttl = absl::Hours(1);
  // Entries per cache (accepted, remembered and rejected tokens; allowed
  // and denied decisions).
  size_t cache_capacity = 10000;
  // TokenReviews in flight at once; beyond, UNAVAILABLE at once rather
  // than one more blocked thread and one more request to the apiserver.
  size_t max_concurrent_token_reviews = 16;
  // Checks tokens locally before any review (not owned; may be null).
  const JwtVerifier* verifier = nullptr;
  // Called when a token names the issuer and a key id the verifier does
  // not hold (IssuerKeys::RequestRefetch). Must not wait.
  std::function<void()> unknown_key;
  // Injected by tests.
  std::function<absl::Time()> clock = [] { return absl::Now(); };
};

class Authorizer {
 public:
  // REQUIRES: options.cache_capacity > 0.
  Authorizer(Reviewer* reviewer, AuthorizerOptions options);

  // Whose budget a TokenReview of a token not cached is charged to.
  struct ReviewLane {
    enum class Kind {
      kNew,         // never accepted: made-up tokens among them
      kRemembered,  // accepted by the authority before
      kSigned,      // signed by the service account issuer (JwtVerifier)
    };
    Kind kind = Kind::kNew;
    std::string subject;  // kSigned: the token's `sub`
  };

  // Decides whether a TokenReview may be spent on a token that is not
  // cached, in `lane`.
  using AdmitReview = std::function<absl::Status(const ReviewLane& lane)>;

  // The token's user, or UNAUTHENTICATED, or UNAVAILABLE. When the answer
  // is not cached, `admit_review` (if given) decides first whether a
  // TokenReview may be spent on it: its error is returned as is. May wait
  // for the apiserver: never call it where waiting holds others up (a gRPC
  // callback thread); UserFromCache is for there.
  absl::StatusOr<UserInfo> Authenticate(std::string_view token,
                                        const AdmitReview& admit_review = nullptr);

  // As Authenticate, from the caches only: nullopt when the answer is not
  // cached (a TokenReview is needed; `admit_review`, if given, admitted it
  // first, and its error is returned as is). Never waits.
  std::optional<absl::StatusOr<UserInfo>> UserFromCache(std::string_view token,
                                                        const AdmitReview& admit_review = nullptr);

  // The name of the user the token was last accepted for, while it is
  // remembered; nullopt for a token never accepted (or since rejected).
  std::optional<std::string> RememberedUser(std::string_view token);

  // The lane a review of `token` is charged to, or UNAUTHENTICATED when
  // the verifier finds it invalid (the reason in the message).
  absl::StatusOr<ReviewLane> LaneOf(std::string_view token);

  // OK when allowed; PERMISSION_DENIED naming the user, verb, resource and
  // scope (e.g. `user "alice" cannot list configmaps at the cluster scope`);
  // UNAVAILABLE when the Reviewer failed. May wait for the apiserver, as
  // Authenticate.
  absl::Status Authorize(const UserInfo& user, const ResourceAttributes& attributes);

  // As Authorize, from the caches only: nullopt when the decision is not
  // cached (a SubjectAccessReview is needed). Never waits.
  std::optional<absl::Status> DecisionFromCache(const UserInfo& user,
                                                const ResourceAttributes& attributes);

 private:
  absl::StatusOr<ReviewLane> Lane(std::string_view token, const std::string& key, absl::Time now);
  // The cached answer for the token `key`, or nullopt.
  std::optional<absl::StatusOr<UserInfo>> CachedUser(const std::string& key, absl::Time now);
  // Asks the Reviewer and caches its answer.
  absl::StatusOr<UserInfo> ReviewToken(std::string_view token, const std::string& key,
                                       absl::Time now);
  // The cached decision (true: allowed), or nullopt.
  std::optional<bool> CachedDecision(const std::string& key, absl::Time now);
  absl::Status Decided(bool allowed, const UserInfo& user, const ResourceAttributes& attributes);

  Reviewer* const reviewer_;
  const AuthorizerOptions options_;
  // Keyed by the token's SHA-256, so no token is kept in memory longer than
  // its call. Rejections have a cache of their own: a flood of bad tokens
  // evicts other bad tokens, never a caller's good one. Likewise denials:
  // an unprivileged caller asking about many namespaces evicts its own
  // denials, never another caller's permissions.
  TtlCache<UserInfo> tokens_;
  TtlCache<std::string> remembered_tokens_;
  TtlCache<bool> rejected_tokens_;
  TtlCache<bool> allowed_;
  TtlCache<bool> denied_;
  std::atomic<size_t> token_reviews_in_flight_{0};
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_AUTHORIZER_H_
