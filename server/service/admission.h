// Admission: decides whether one call of the informerd.v1.Cache service is
// served. Every RPC (List, Get, Watch, ListResources) passes the same steps
// in this one order, and the first refusal is the answer:
//
//   1. shape         the request's fields, whatever is served and whoever
//                    asks: INVALID_ARGUMENT.
//   2. authenticate  who calls: the bearer token (TokenReview, cached; a
//                    token not cached is first checked against the service
//                    account issuer's keys, then charged to its lane's
//                    TokenReview budget), else the client certificate's
//                    subject: UNAUTHENTICATED, RESOURCE_EXHAUSTED (review
//                    budget), UNAVAILABLE (review failed). Then one request
//                    charged to the caller's rate: RESOURCE_EXHAUSTED.
//   3. resolve       the request against what is served: NOT_FOUND,
//                    UNAVAILABLE (a pending resource), INVALID_ARGUMENT for
//                    what depends on the resource (scope, selectable fields,
//                    indexes, the continue token).
//   4. authorize     the RBAC permission the apiserver would require
//                    (SubjectAccessReview, cached): PERMISSION_DENIED,
//                    UNAVAILABLE (review failed).
//   5. admit limits  a slot under the concurrency limits of Lists or
//                    Watches: RESOURCE_EXHAUSTED.
//
// What the order guarantees: a malformed request is INVALID_ARGUMENT for
// anyone and costs no review; a caller not authenticated learns nothing of
// what is served (its NOT_FOUND is UNAUTHENTICATED); the rate is charged
// before anything a caller can make expensive (resolution, a
// SubjectAccessReview); a caller holds a concurrency slot only once it may
// read what it asked for. Without an Authorizer (auth mode none) step 2
// only names the caller for the limits (its certificate's user, else its
// host) and step 4 allows everything.
//
// Reviews never run on the calling (gRPC) thread: Admit answers from the
// Authorizer's caches only, and returns NeedsReview where the apiserver must
// be asked; Review then runs the remaining steps (reviewing) on
// ReviewWorkers, in the caller's turn and within its quota, so callers whose
// answers are cached never wait behind those whose answers are not.
//
// Thread safety: thread-safe. The registry, metrics and authorizer must
// outlive the Admission; destroying it (or StopReviews) drops queued
// reviews (their `done` gets UNAVAILABLE) and waits for running ones.
#ifndef INFORMERD_SERVER_SERVICE_ADMISSION_H_
#define INFORMERD_SERVER_SERVICE_ADMISSION_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/auth/authorizer.h"
#include "server/auth/bearer_token.h"
#include "server/auth/review_workers.h"
#include "server/limits/concurrency_limiter.h"
#include "server/limits/rate_limiter.h"
#include "server/limits/request_limits.h"
#include "server/metrics/metrics.h"
#include "server/service/served_resource.h"

namespace informerd::service {

// What a call presents of its caller, read on the gRPC thread: a review
// worker authenticates from it after the call's context may be gone (a
// Watch whose client cancelled while its review was pending).
struct Credentials {
  std::string peer_host;
  // Whether "authorization" metadata came, and the bearer token parsed from
  // it (read only when `read_token`, i.e. with an Authorizer).
  bool sent_token = false;
  absl::StatusOr<std::string> token = auth::BearerTokenFromMetadata({});
  // The client certificate's user, when mTLS verified one.
  std::optional<absl::StatusOr<auth::UserInfo>> certified;
};
// `trust_forwarded_for`: a loopback peer's x-forwarded-for names the host
// (ClientHost).
Credentials CredentialsOf(grpc::CallbackServerContext* context, bool trust_forwarded_for,
                          bool read_token);

// Who is calling.
struct Caller {
  auth::UserInfo user;   // empty without an Authorizer
  std::string identity;  // what the limits count by
};

// Answers step 4's questions for one caller: from the Authorizer's caches
// only (Admit), or asking the apiserver (Review).
class Permissions {
 public:
  // OK, PERMISSION_DENIED or UNAVAILABLE; nullopt when answering from the
  // caches only and the decision is not cached.
  std::optional<absl::Status> Check(const auth::ResourceAttributes& attributes) const;
  const Caller& caller() const { return caller_; }

 private:
  friend class Admission;
  Permissions(auth::Authorizer* authorizer, bool cache_only, const Caller& caller)
      : authorizer_(authorizer), cache_only_(cache_only), caller_(caller) {}
  auth::Authorizer* const authorizer_;  // null: everything is allowed
  const bool cache_only_;
  const Caller& caller_;
};

// One RPC's part in admission: what only the RPC knows (its request's
// fields, what it reads, the permission it needs). Admission calls Shape,
// then Resolve, then Authorize, each only once the steps before it passed.
// Not thread-safe: Admission uses it from one thread at a time.
class AdmissionRequest {
 public:
  enum class Limit { kNone, kLists, kWatches };

  virtual ~AdmissionRequest() = default;
  virtual const char* method() const = 0;
  virtual Limit limit() const = 0;

  // Step 1: parses and checks the request without the caller or the
  // registry. Called once.
  virtual grpc::Status Shape() = 0;
  // Step 3. Runs DoResolve once; later calls return its first answer, so
  // a caller that needs the resolution early (a Watch choosing its
  // reactor) and admission agree. REQUIRES: Shape passed.
  grpc::Status Resolve(const ResourceRegistry& registry);
  // Step 4: OK when the caller may, the refusal otherwise, nullopt when
  // `permissions` could not answer without a review. May be called again
  // (reviewing) after a nullopt. REQUIRES: Resolve passed.
  virtual std::optional<grpc::Status> Authorize(const Permissions& permissions) = 0;

 protected:
  virtual grpc::Status DoResolve(const ResourceRegistry& registry) = 0;

 private:
  std::optional<grpc::Status> resolved_;
};

// What admission decided.
class AdmissionResult {
 public:
  enum class Kind { kAdmitted, kRefused, kNeedsReview };

  static AdmissionResult Refused(grpc::Status status);

  Kind kind() const { return kind_; }
  bool admitted() const { return kind_ == Kind::kAdmitted; }
  // The refusal. REQUIRES: kind() == kRefused.
  const grpc::Status& status() const { return status_; }
  // The caller. REQUIRES: admitted().
  const Caller& caller() const { return *caller_; }
  // The slot under the request's limit (empty for Limit::kNone), held until
  // it is destroyed. REQUIRES: admitted().
  limits::ConcurrencyLimiter::Permit TakePermit() { return std::move(permit_); }

 private:
  friend class Admission;
  AdmissionResult() = default;

  Kind kind_ = Kind::kRefused;
  grpc::Status status_;
  // Admitted: the caller. NeedsReview: the caller once authenticated (the
  // review resumes after step 2, which charged the rate already).
  std::optional<Caller> caller_;
  limits::ConcurrencyLimiter::Permit permit_;
};

struct AdmissionOptions {
  // Null: auth mode none.
  auth::Authorizer* authorizer = nullptr;
  limits::RequestLimits limits;
  // Review workers' threads (with an Authorizer).
  size_t review_threads = 4;
};

class Admission {
 public:
  Admission(const ResourceRegistry* registry, metrics::Metrics* metrics, AdmissionOptions options);
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  // Steps 1 to 5 on the calling thread, from the Authorizer's caches only:
  // Admitted, Refused, or NeedsReview (then pass the result to Review). A
  // token not cached is charged to its lane's TokenReview budget here.
  AdmissionResult Admit(AdmissionRequest& request, const Credentials& credentials);

  // For a NeedsReview result of Admit: runs its remaining steps, asking the
  // apiserver, on the review workers in the caller's turn, then calls
  // `done` once with Admitted or Refused. `done` runs on a worker, or on
  // this thread when the workers refuse the task (RESOURCE_EXHAUSTED: the
  // caller's quota; UNAVAILABLE: queue full) or are destroyed first
  // (UNAVAILABLE). REQUIRES: needs_review.kind() == kNeedsReview.
  void Review(std::shared_ptr<AdmissionRequest> request, Credentials credentials,
              AdmissionResult needs_review, std::function<void(AdmissionResult)> done);

  // Steps 2 and 4 again for an admitted, open Watch (no rate, no budget:
  // it is not a new request), asking the apiserver: OK, or why the caller
  // may no longer. Run it on review_workers() (WatchStream's re-check).
  absl::Status Recheck(const Credentials& credentials, const auth::ResourceAttributes& attributes);

  // Drops queued reviews (their `done` gets UNAVAILABLE) and waits for the
  // running ones: call it before destroying what `done` callbacks use.
  // REQUIRES: no Review or Recheck runs or follows.
  void StopReviews() { review_workers_.reset(); }

  // Null without an Authorizer (or once stopped).
  auth::ReviewWorkers* review_workers() const { return review_workers_.get(); }
  bool authenticates() const { return authorizer_ != nullptr; }

 private:
  // Steps 2 to 5 from where `progress` (a NeedsReview, or a fresh result)
  // left off.
  AdmissionResult Continue(AdmissionRequest& request, const Credentials& credentials,
                           bool cache_only, AdmissionResult progress);
  // Step 2 without the rate: the caller's user, the refusal, or nullopt
  // when `cache_only` and a TokenReview is needed. `charge_review`: charge
  // a token not cached to its lane's budget first.
  std::optional<grpc::Status> Identify(const Credentials& credentials, const char* method,
                                       bool cache_only, bool charge_review, Caller* caller);
  grpc::Status AdmitRate(const Caller& caller, const char* method);
  grpc::Status AdmitLimit(AdmissionRequest::Limit limit, const Caller& caller,
                          const char* method, limits::ConcurrencyLimiter::Permit* permit);
  // Whose turn and quota on review_workers_ a call's reviews take: its
  // user's once authenticated, or its signed token's subject, or its
  // token's remembered user; otherwise
  // the one lane of tokens never accepted, so made-up tokens share one
  // quota whatever their number.
  std::string ReviewKey(const Credentials& credentials, const std::optional<Caller>& caller) const;

  const ResourceRegistry* const registry_;
  metrics::Metrics* const metrics_;
  auth::Authorizer* const authorizer_;
  const limits::RequestLimits limits_;
  limits::RateLimiter rate_limiter_;
  limits::RateLimiter token_review_limiter_;
  limits::RateLimiter signed_review_limiter_;
  limits::ConcurrencyLimiter list_limiter_;
  limits::ConcurrencyLimiter watch_limiter_;
  // Declared last: destroyed first, so no review runs on a dying Admission.
  std::unique_ptr<auth::ReviewWorkers> review_workers_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_ADMISSION_H_
