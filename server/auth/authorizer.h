// Authorizer: authenticates callers by bearer token and authorizes their
// reads, remembering the Reviewer's answers (allowed and denied alike) for a
// short time so a busy client costs the authority almost nothing.
//
// Reviewer failures (the authority unreachable) are not remembered and
// become UNAVAILABLE, so the caller retries; they never grant access.
//
// Thread safety: thread-safe. The Reviewer must outlive the Authorizer.
#ifndef INFORMERD_SERVER_AUTH_AUTHORIZER_H_
#define INFORMERD_SERVER_AUTH_AUTHORIZER_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/auth/reviewer.h"
#include "server/auth/ttl_cache.h"

namespace informerd::auth {

struct AuthorizerOptions {
  absl::Duration token_ttl = absl::Seconds(30);
  absl::Duration decision_ttl = absl::Seconds(10);
  // Entries per cache (tokens, decisions).
  size_t cache_capacity = 10000;
  // Injected by tests.
  std::function<absl::Time()> clock = [] { return absl::Now(); };
};

class Authorizer {
 public:
  // REQUIRES: options.cache_capacity > 0.
  Authorizer(Reviewer* reviewer, AuthorizerOptions options);

  // The token's user, or UNAUTHENTICATED, or UNAVAILABLE.
  absl::StatusOr<UserInfo> Authenticate(std::string_view token);

  // OK when allowed; PERMISSION_DENIED naming the user, verb, resource and
  // scope (e.g. `user "alice" cannot list configmaps at the cluster scope`);
  // UNAVAILABLE when the Reviewer failed.
  absl::Status Authorize(const UserInfo& user, const ResourceAttributes& attributes);

 private:
  Reviewer* const reviewer_;
  const AuthorizerOptions options_;
  // UNAUTHENTICATED is cached as an empty username.
  TtlCache<UserInfo> tokens_;
  TtlCache<bool> decisions_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_AUTHORIZER_H_
