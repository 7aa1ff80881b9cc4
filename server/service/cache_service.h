// CacheService: the informerd.v1.Cache gRPC service over the served
// Informers.
//
// List, Get and Watch are raw callback methods: requests are parsed here and
// responses framed by wire_format around each object's pre-serialized bytes,
// so no response re-serializes an object and no thread is held per stream.
// The kube-apiserver is the reference for every answer (see the proto).
//
// With an Authorizer, every call needs "authorization: Bearer <token>"
// metadata (else UNAUTHENTICATED) and every List, Get and Watch the RBAC
// permission the apiserver would require for it (else PERMISSION_DENIED);
// open Watches are re-authorized periodically. Concurrent Watches and
// in-flight Lists are limited per caller and in total (RESOURCE_EXHAUSTED).
//
// Thread safety: thread-safe; the registry must outlive the service.
#ifndef INFORMERD_SERVER_SERVICE_CACHE_SERVICE_H_
#define INFORMERD_SERVER_SERVICE_CACHE_SERVICE_H_

#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/auth/authorizer.h"
#include "server/auth/review_workers.h"
#include "server/limits/concurrency_limiter.h"
#include "server/limits/rate_limiter.h"
#include "server/limits/request_limits.h"
#include "server/metrics/metrics.h"
#include "server/service/continue_token.h"
#include "server/service/served_resource.h"
#include "server/service/version_waits.h"
#include "server/service/watch_stream.h"

namespace informerd::service {

struct CacheServiceOptions {
  // How long a read waits for the cache to reach a requested version (and a
  // resource to finish its first list) before UNAVAILABLE, as the apiserver
  // waits 3 s for "not older than" reads.
  absl::Duration version_wait = absl::Seconds(3);
  // Pages stop growing past this many bytes of objects, keeping responses
  // under gRPC's default 4 MiB receive limit.
  size_t max_page_bytes = 3 << 20;
  absl::Duration bookmark_interval = absl::Minutes(1);
  // A Watch whose client has not accepted a write for this long ends
  // (RESOURCE_EXHAUSTED, the RPC cancelled), in its initial events as later.
  absl::Duration stalled_stream_timeout = absl::Minutes(2);
  // A Watch that has not written all its initial events this long after it
  // started ends the same way, however slowly its client keeps reading.
  absl::Duration initial_events_timeout = absl::Minutes(10);
  // The peer is a proxy in the pod: a loopback peer's x-forwarded-for names
  // the client host the per-caller limits count (ClientHost).
  bool trust_forwarded_for = false;
  // Null: every caller may read everything served (auth mode none).
  // Otherwise it must outlive the service.
  auth::Authorizer* authorizer = nullptr;
  // How often an open Watch is authorized again, and how long its checks
  // may fail before it ends (WatchStreamOptions::recheck_grace).
  absl::Duration auth_recheck_interval = absl::Minutes(1);
  absl::Duration auth_recheck_grace = absl::Minutes(2);
  limits::RequestLimits limits;
  // A continue token whose List began longer ago than this is OUT_OF_RANGE
  // (the apiserver's 410 Expired): it bounds how old a snapshot a caller can
  // make the Informer rebuild from its history.
  absl::Duration max_list_snapshot_age = absl::Minutes(5);
};

using RawCacheService = v1::Cache::WithRawCallbackMethod_List<
    v1::Cache::WithRawCallbackMethod_Get<
        v1::Cache::WithRawCallbackMethod_Watch<v1::Cache::CallbackService>>>;

class CacheService final : public RawCacheService {
 public:
  // The largest request a server hosting this service accepts
  // (grpc::ServerBuilder::SetMaxReceiveMessageSize): requests are a few
  // names, selectors and a continue token, so anything near gRPC's 4 MiB
  // default is an attempt to make the server (and the error it answers)
  // carry it.
  static constexpr int kMaxRequestBytes = 64 << 10;

  CacheService(const ResourceRegistry* registry, metrics::Metrics* metrics,
               CacheServiceOptions options);

  grpc::ServerUnaryReactor* List(grpc::CallbackServerContext* context,
                                 const grpc::ByteBuffer* request,
                                 grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Get(grpc::CallbackServerContext* context,
                                const grpc::ByteBuffer* request,
                                grpc::ByteBuffer* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* Watch(grpc::CallbackServerContext* context,
                                                    const grpc::ByteBuffer* request) override;
  grpc::ServerUnaryReactor* ListResources(grpc::CallbackServerContext* context,
                                          const v1::ListResourcesRequest* request,
                                          v1::ListResourcesResponse* response) override;

  // Ends every open Watch with UNAVAILABLE so clients resume elsewhere.
  void EndWatches();
  size_t open_watches() const { return watches_.size(); }

 private:
  // What a call presents of its caller, read on the gRPC thread: a review
  // worker authenticates from it after the call's context may be gone (a
  // Watch whose client cancelled while its review was pending).
  struct Credentials {
    std::string peer_host;
    // Whether "authorization" metadata came, and the bearer token parsed
    // from it (read only with an Authorizer).
    bool sent_token = false;
    absl::StatusOr<std::string> token;
    // The client certificate's user, when mTLS verified one.
    std::optional<absl::StatusOr<auth::UserInfo>> certified;
  };
  Credentials CredentialsOf(grpc::CallbackServerContext* context) const;

  // Who is calling.
  struct Caller {
    auth::UserInfo user;  // empty without an Authorizer
    std::string identity;  // what the limits count by
  };

  // Whose turn and quota on review_workers_ a call's reviews take: its
  // user's once authenticated (`caller`, else null) or its token remembered
  // (Authorizer::RememberedUser); otherwise the one lane of tokens never
  // accepted, so made-up tokens share one quota whatever their number.
  std::string ReviewKey(const Credentials& credentials, const Caller* caller) const;
  // review_workers_->Submit, with the quota of `key`.
  absl::Status SubmitReview(const std::string& key, std::function<void()> task,
                            std::function<void()> dropped);
  // The status for a call review_workers_ refused (`refused`), counted.
  grpc::Status ReviewRefused(const absl::Status& refused, const char* method);

  // Charges one request to the caller's rate limit.
  grpc::Status AdmitRate(const Caller& caller, const char* method);
  // `charge_review`: a token not in the Authorizer's caches is charged to
  // its lane's TokenReview budget first (token_review_limiter_).
  grpc::Status Authenticate(const Credentials& credentials, const char* method, Caller* caller,
                            bool charge_review = true);
  // Answers one unary call: `handle` runs for the authenticated caller and
  // either finishes the reactor itself (returning OK) or returns the error
  // to finish with. Reviews never run on a gRPC thread: the first attempt
  // answers from the Authorizer's caches only (DeferReviews); one that needs
  // the apiserver runs again on review_workers_, so callers whose answers
  // are cached never wait behind those whose answers are not.
  using UnaryHandler = std::function<grpc::Status(const Caller& caller,
                                                   grpc::ServerUnaryReactor* reactor,
                                                   absl::Time start)>;
  // `shape` runs first, before authentication: the checks a request must
  // pass whoever sends it (ShapeOf...), so that a malformed request is
  // INVALID_ARGUMENT for everyone and costs no review.
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context, const char* method,
                                  const std::function<grpc::Status()>& shape,
                                  UnaryHandler handle);
  grpc::Status Authorize(const Caller& caller, const ServedResource& resource,
                         auth::ResourceAttributes attributes, const char* method);
  // A slot among the reads waiting for a version, or RESOURCE_EXHAUSTED
  // when the caller (or everyone) has the most allowed.
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> AdmitWait(const Caller& caller,
                                                               const char* method);
  // What is left of an admitted Get or List once its resource has reached
  // min_version (and is synced): `read` fills the response.
  struct ReadPlan {
    ServedResource* resource = nullptr;
    uint64_t min_version = 0;
    std::function<grpc::Status()> read;
  };
  // REQUIRES: the request passed its shape check (Serve).
  grpc::Status DoList(const Caller& caller, const v1::ListRequest& request,
                      grpc::ByteBuffer* response, ReadPlan* plan);
  grpc::Status DoGet(const Caller& caller, const v1::GetRequest& request,
                     grpc::ByteBuffer* response, ReadPlan* plan);
  grpc::Status DoListResources(const Caller& caller, const v1::ListResourcesRequest& request,
                               v1::ListResourcesResponse* response);
  // Finishes with `status` if it is an error; else runs plan.read at once
  // if the resource is there, or once it gets there (version_waits_),
  // without holding this thread; UNAVAILABLE after options_.version_wait.
  void FinishRead(grpc::ServerUnaryReactor* reactor, const char* method, absl::Time start,
                  const Caller& caller, grpc::Status status, ReadPlan plan);
  // A Watch request resolved against what is served; no caller needed.
  struct WatchPlan {
    ServedResource* resource = nullptr;
    cache::Filter filter;
    uint64_t version = 0;
    auth::ResourceAttributes attributes;
  };
  // REQUIRES: the request passed its shape check (ShapeOfWatch).
  grpc::Status PlanWatch(const v1::WatchRequest& request, WatchPlan* plan);
  // Authorization, then the caller's slot under the watch limits.
  grpc::Status AdmitWatch(const Caller& caller, const WatchPlan& plan,
                          limits::ConcurrencyLimiter::Permit* permit);
  // The stream's options; its re-check reviews `credentials` again.
  WatchStreamOptions WatchOptions(const v1::WatchRequest& request, const Credentials& credentials,
                                  const auth::ResourceAttributes& attributes) const;
  // How an admitted Watch's stream gets where it starts.
  struct WatchLaunch {
    ServedResource* resource = nullptr;
    uint64_t version = 0;
    // Reads the start from the Informer (OUT_OF_RANGE before its history).
    std::function<absl::StatusOr<WatchStart>()> make_start;
    // Set when a resume from before the history is filled from the apiserver.
    HistoryBackfill* backfill = nullptr;
  };
  WatchLaunch PrepareLaunch(const v1::WatchRequest& request, const WatchPlan& plan,
                            const std::string& identity);
  // Calls `starter` once, at once when the Informer has reached the
  // version, else after waiting for it (or for a backfill) without holding
  // this thread. `still_waiting` tells a backfill whether the stream still
  // waits (a backfill nobody waits for stops).
  void Launch(const WatchLaunch& launch,
              std::function<void(absl::StatusOr<WatchStart>)> starter,
              std::function<bool()> still_waiting);
  // The admitted stream, started, or (waiting for a version) with
  // *after_begin set to what must run once the stream has begun.
  grpc::Status StartWatch(const Caller& caller, const Credentials& credentials,
                          const v1::WatchRequest& request, const WatchPlan& plan,
                          limits::ConcurrencyLimiter::Permit permit, WatchStream** stream,
                          std::function<void()>* after_begin);
  // A Watch whose admission needs the apiserver's reviews: the stream
  // begins at once, writing nothing, and is admitted (or ended with the
  // refusal) on review_workers_. `planned` is PlanWatch's answer, told
  // only once the caller is authenticated.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchAfterReviews(
      grpc::CallbackServerContext* context, Credentials credentials, v1::WatchRequest request,
      grpc::Status planned, WatchPlan plan, const std::string& review_key);
  void FinishUnary(grpc::ServerUnaryReactor* reactor, const char* method, absl::Time start,
                   const grpc::Status& status);

  const ResourceRegistry* const registry_;
  metrics::Metrics* const metrics_;
  const CacheServiceOptions options_;
  limits::ConcurrencyLimiter watch_limiter_;
  limits::ConcurrencyLimiter list_limiter_;
  limits::ConcurrencyLimiter waiting_read_limiter_;
  limits::ConcurrencyLimiter initial_bytes_limiter_;
  limits::RateLimiter rate_limiter_;
  limits::RateLimiter token_review_limiter_;
  const ContinueTokens continue_tokens_;
  WatchRegistry watches_;
  // Destroyed before the limiters whose permits its waits hold.
  VersionWaits version_waits_;
  // Declared last: destroyed first, so no re-check runs on a dying service.
  std::unique_ptr<auth::ReviewWorkers> review_workers_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_CACHE_SERVICE_H_
