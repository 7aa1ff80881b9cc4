// IssuerKeys: keeps a JwtVerifier supplied with the kube-apiserver's service
// account issuer and its signing keys, read from the apiserver's issuer
// discovery (/.well-known/openid-configuration, /openid/v1/jwks), which the
// system:service-account-issuer-discovery ClusterRole grants every service
// account by default.
//
// The keys are fetched once in the constructor, then again every
// `refresh_interval`, and sooner when a token names a key id not in the set
// (RequestRefetch), at most once per `min_refetch_interval` whatever the
// number of such tokens, so made-up key ids cost the apiserver at most one
// request per interval. A failed fetch is logged and keeps the keys held
// (none: every token is reviewed as before, see JwtVerifier's kNotLocal).
//
// Thread safety: thread-safe. The client and verifier must outlive it; the
// destructor stops its thread.
#ifndef INFORMERD_SERVER_AUTH_ISSUER_KEYS_H_
#define INFORMERD_SERVER_AUTH_ISSUER_KEYS_H_

#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/auth/jwt_verifier.h"
#include "server/kube/rest_client.h"

namespace informerd::auth {

struct IssuerKeysOptions {
  absl::Duration refresh_interval = absl::Minutes(5);
  absl::Duration min_refetch_interval = absl::Seconds(30);
};

class IssuerKeys {
 public:
  IssuerKeys(kube::RestClient* client, JwtVerifier* verifier, IssuerKeysOptions options = {});
  ~IssuerKeys();
  IssuerKeys(const IssuerKeys&) = delete;
  IssuerKeys& operator=(const IssuerKeys&) = delete;

  // Asks for the keys to be fetched again soon (never waits).
  void RequestRefetch();

  // The last fetch's outcome.
  absl::Status last_fetch() const;

 private:
  absl::Status Fetch();
  void Run();

  kube::RestClient* const client_;
  JwtVerifier* const verifier_;
  const IssuerKeysOptions options_;
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool refetch_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status last_fetch_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_ISSUER_KEYS_H_
