// CacheService: the informerd.v1.Cache gRPC service over the served
// Informers.
//
// List, Get and Watch are raw callback methods: requests are parsed by their
// AdmissionRequest (admission_requests.h) and responses framed by
// wire_format around each object's pre-serialized bytes, so no response
// re-serializes an object and no thread is held per stream.
// The kube-apiserver is the reference for every answer (see the proto).
//
// Every call is admitted first (Admission, in the order admission.h
// documents: shape, authenticate, resolve, authorize, admit limits); open
// Watches are re-authorized periodically. Reads waiting for a version and
// the initial events a caller's Watches hold are limited here, once their
// cost is known (RESOURCE_EXHAUSTED).
//
// Thread safety: thread-safe; the registry must outlive the service.
#ifndef INFORMERD_SERVER_SERVICE_CACHE_SERVICE_H_
#define INFORMERD_SERVER_SERVICE_CACHE_SERVICE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/auth/authorizer.h"
#include "server/cache/field_mask.h"
#include "server/cache/field_mask_registry.h"
#include "server/limits/concurrency_limiter.h"
#include "server/limits/request_limits.h"
#include "server/metrics/metrics.h"
#include "server/service/admission.h"
#include "server/service/admission_requests.h"
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
  // Where field masks are interned; null: the process's registry
  // (cache::FieldMaskRegistry::Default). Must outlive the service.
  cache::FieldMaskRegistry* field_masks = nullptr;
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
  // Stops the reviews first: none runs on a dying service.
  ~CacheService() override;

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
  // Admits the call (Admission), asking the apiserver on a review worker
  // when its caches cannot answer, then runs `serve` for the admitted call
  // or finishes with the refusal. `serve` either finishes the reactor itself
  // or returns the error to finish with.
  using UnaryServe = std::function<grpc::Status(AdmissionResult admitted,
                                                grpc::ServerUnaryReactor* reactor,
                                                absl::Time start)>;
  grpc::ServerUnaryReactor* ServeUnary(grpc::CallbackServerContext* context,
                                       std::shared_ptr<AdmissionRequest> request,
                                       UnaryServe serve);
  void FinishUnary(grpc::ServerUnaryReactor* reactor, const char* method, absl::Time start,
                   const grpc::Status& status);

  // Reads (cache_service_reads.cc).
  //
  // What is left of an admitted Get or List once its resource has reached
  // min_version (and is synced): `read` fills the response.
  struct ReadPlan {
    ServedResource* resource = nullptr;
    uint64_t min_version = 0;
    std::function<grpc::Status()> read;
  };
  // The reply form of an admitted call: its mask interned (held by the
  // result for as long as the call runs). RESOURCE_EXHAUSTED when the
  // registry is full of masks in use (counted as a refusal of `method`).
  absl::StatusOr<ReplyForm> FormFor(const char* method, v1::Projection projection,
                                    v1::Encoding encoding, const cache::FieldMask& mask);
  // `permit`: the List's slot, held until its page is read.
  ReadPlan PlanList(const ListAdmission& admitted, ReplyForm form,
                    limits::ConcurrencyLimiter::Permit permit, grpc::ByteBuffer* response) const;
  ReadPlan PlanGet(const GetAdmission& admitted, ReplyForm form, grpc::ByteBuffer* response) const;
  void AnswerListResources(const ListResourcesAdmission& admitted,
                           v1::ListResourcesResponse* response) const;
  // Runs plan.read at once if the resource is there, or once it gets there
  // (version_waits_), without holding this thread; UNAVAILABLE after
  // options_.version_wait.
  void FinishRead(grpc::ServerUnaryReactor* reactor, const char* method, absl::Time start,
                  const Caller& caller, ReadPlan plan);
  // A slot among the reads waiting for a version, or RESOURCE_EXHAUSTED
  // when the caller (or everyone) has the most allowed.
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> AdmitWait(const Caller& caller,
                                                               const char* method);

  // Watch launch (cache_service_watch.cc).
  //
  // The stream's options; its re-check reviews `credentials` again.
  WatchStreamOptions WatchOptions(const v1::WatchRequest& request, ReplyForm form,
                                  const Credentials& credentials,
                                  const auth::ResourceAttributes& attributes);
  // How an admitted Watch's stream gets where it starts.
  struct WatchLaunch {
    ServedResource* resource = nullptr;
    uint64_t version = 0;
    // Reads the start from the Informer (OUT_OF_RANGE before its history).
    std::function<absl::StatusOr<WatchStart>()> make_start;
    // Set when a resume from before the history is filled from the apiserver.
    HistoryBackfill* backfill = nullptr;
  };
  WatchLaunch PrepareLaunch(const WatchAdmission& admitted, const std::string& identity);
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
                          const WatchAdmission& admitted,
                          limits::ConcurrencyLimiter::Permit permit, WatchStream** stream,
                          std::function<void()>* after_begin);
  // A Watch whose admission needs the apiserver's reviews: the stream
  // begins at once, writing nothing, and is admitted (or ended with the
  // refusal) on the review workers.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchAfterReview(
      grpc::CallbackServerContext* context, std::shared_ptr<WatchAdmission> request,
      Credentials credentials, AdmissionResult needs_review);

  const ResourceRegistry* const registry_;
  metrics::Metrics* const metrics_;
  const CacheServiceOptions options_;
  limits::ConcurrencyLimiter waiting_read_limiter_;
  limits::ConcurrencyLimiter initial_bytes_limiter_;
  const ContinueTokens continue_tokens_;
  cache::FieldMaskRegistry* const field_masks_;
  WatchRegistry watches_;
  // Its reviews are stopped first (~CacheService); its limiters outlive
  // version_waits_, whose waits hold List permits.
  Admission admission_;
  // Destroyed before the limiters whose permits its waits hold.
  VersionWaits version_waits_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_CACHE_SERVICE_H_
