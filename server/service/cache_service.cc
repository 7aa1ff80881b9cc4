// The RPC methods: each admits its call (Admission) and hands the admitted
// call to the reads (cache_service_reads.cc) or the watch launch
// (cache_service_watch.cc).
#include "server/service/cache_service.h"

#include <utility>

#include "absl/time/clock.h"
#include "server/service/grpc_status.h"

namespace informerd::service {
namespace {

// A Watch that fails before streaming: at once, or once its caller's
// reviews have run on a worker. Fail must be called exactly once, from any
// thread; the object is gone after.
class FailedWatch : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  static FailedWatch* Now(const grpc::Status& status) {
    auto* watch = new FailedWatch();
    watch->Fail(status);
    return watch;
  }
  void Fail(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

CacheService::CacheService(const ResourceRegistry* registry, metrics::Metrics* metrics,
                           CacheServiceOptions options)
    : registry_(registry),
      metrics_(metrics),
      options_(options),
      waiting_read_limiter_("reads waiting for a resource version",
                            options.limits.max_waiting_reads_per_identity,
                            options.limits.max_waiting_reads),
      initial_bytes_limiter_("bytes of initial events held",
                             options.limits.max_initial_bytes_per_identity,
                             options.limits.max_initial_bytes),
      continue_tokens_(options.max_list_snapshot_age),
      field_masks_(options.field_masks != nullptr ? options.field_masks
                                                  : &cache::FieldMaskRegistry::Default()),
      watches_({options.stalled_stream_timeout, options.initial_events_timeout}),
      admission_(registry, metrics, {options.authorizer, options.limits}) {}

CacheService::~CacheService() { admission_.StopReviews(); }

void CacheService::FinishUnary(grpc::ServerUnaryReactor* reactor, const char* method,
                               absl::Time start, const grpc::Status& status) {
  metrics_->ObserveRpc(method, std::to_string(static_cast<int>(status.error_code())),
                       absl::ToDoubleSeconds(absl::Now() - start));
  reactor->Finish(status);
}

grpc::ServerUnaryReactor* CacheService::ServeUnary(grpc::CallbackServerContext* context,
                                                   std::shared_ptr<AdmissionRequest> request,
                                                   UnaryServe serve) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::Time start = absl::Now();
  const char* method = request->method();
  auto finish = [this, reactor, start, method, serve](AdmissionResult result) {
    grpc::Status status =
        result.admitted() ? serve(std::move(result), reactor, start) : result.status();
    if (!status.ok()) FinishUnary(reactor, method, start, status);
  };
  Credentials credentials =
      CredentialsOf(context, options_.trust_forwarded_for, admission_.authenticates());
  AdmissionResult result = admission_.Admit(*request, credentials);
  if (result.kind() == AdmissionResult::Kind::kNeedsReview) {
    admission_.Review(std::move(request), std::move(credentials), std::move(result), finish);
  } else {
    finish(std::move(result));
  }
  return reactor;
}

grpc::ServerUnaryReactor* CacheService::List(grpc::CallbackServerContext* context,
                                             const grpc::ByteBuffer* request,
                                             grpc::ByteBuffer* response) {
  auto admission = std::make_shared<ListAdmission>(request, &continue_tokens_);
  return ServeUnary(context, admission,
                    [this, admission, response](AdmissionResult admitted,
                                                grpc::ServerUnaryReactor* reactor,
                                                absl::Time start) {
                      absl::StatusOr<ReplyForm> form =
                          FormFor("List", admission->request().projection(),
                                  admission->request().encoding(), admission->mask());
                      if (!form.ok()) return ToGrpc(form.status());
                      FinishRead(reactor, "List", start, admitted.caller(),
                                 PlanList(*admission, *std::move(form), admitted.TakePermit(),
                                          response));
                      return grpc::Status::OK;
                    });
}

grpc::ServerUnaryReactor* CacheService::Get(grpc::CallbackServerContext* context,
                                            const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) {
  auto admission = std::make_shared<GetAdmission>(request);
  return ServeUnary(context, admission,
                    [this, admission, response](AdmissionResult admitted,
                                                grpc::ServerUnaryReactor* reactor,
                                                absl::Time start) {
                      absl::StatusOr<ReplyForm> form =
                          FormFor("Get", admission->request().projection(),
                                  admission->request().encoding(), admission->mask());
                      if (!form.ok()) return ToGrpc(form.status());
                      FinishRead(reactor, "Get", start, admitted.caller(),
                                 PlanGet(*admission, *std::move(form), response));
                      return grpc::Status::OK;
                    });
}

grpc::ServerUnaryReactor* CacheService::ListResources(grpc::CallbackServerContext* context,
                                                      const v1::ListResourcesRequest* request,
                                                      v1::ListResourcesResponse* response) {
  auto admission = std::make_shared<ListResourcesAdmission>(request);
  return ServeUnary(context, admission,
                    [this, admission, response](AdmissionResult, grpc::ServerUnaryReactor* reactor,
                                                absl::Time start) {
                      AnswerListResources(*admission, response);
                      FinishUnary(reactor, "ListResources", start, grpc::Status::OK);
                      return grpc::Status::OK;
                    });
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* CacheService::Watch(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
  auto admission = std::make_shared<WatchAdmission>(request);
  Credentials credentials =
      CredentialsOf(context, options_.trust_forwarded_for, admission_.authenticates());
  AdmissionResult result = admission_.Admit(*admission, credentials);
  if (result.kind() == AdmissionResult::Kind::kNeedsReview) {
    return WatchAfterReview(context, std::move(admission), std::move(credentials),
                            std::move(result));
  }
  grpc::Status status = result.admitted() ? grpc::Status::OK : result.status();
  WatchStream* stream = nullptr;
  std::function<void()> after_begin;
  if (status.ok()) {
    status = StartWatch(result.caller(), credentials, *admission, result.TakePermit(), &stream,
                        &after_begin);
  }
  if (!status.ok()) {
    metrics_->ObserveRpc("Watch", std::to_string(static_cast<int>(status.error_code())), 0);
    return FailedWatch::Now(status);
  }
  stream->set_context(context);
  stream->Begin();
  if (after_begin) after_begin();
  return stream;
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* CacheService::WatchAfterReview(
    grpc::CallbackServerContext* context, std::shared_ptr<WatchAdmission> request,
    Credentials credentials, AdmissionResult needs_review) {
  // The reactor is chosen now: a stream needs its resource. Resolving early
  // runs admission's step 3 ahead of its turn, but Admission answers it
  // (it is remembered) only in its turn, after authentication.
  grpc::Status resolved = request->Resolve(*registry_);
  // The mask is interned before the review, as the stream is made now; a
  // registry full of masks in use is answered in the resolution's turn.
  absl::StatusOr<ReplyForm> form;
  if (resolved.ok()) {
    form = FormFor("Watch", request->request().projection(), request->request().encoding(),
                   request->mask());
    if (!form.ok()) resolved = ToGrpc(form.status());
  }
  if (!resolved.ok()) {
    auto* refusal = new FailedWatch();
    admission_.Review(std::move(request), std::move(credentials), std::move(needs_review),
                      [this, refusal, resolved](AdmissionResult result) {
                        grpc::Status status = result.admitted() ? resolved : result.status();
                        metrics_->ObserveRpc(
                            "Watch", std::to_string(static_cast<int>(status.error_code())), 0);
                        refusal->Fail(status);
                      });
    return refusal;
  }
  auto* stream = new WatchStream(request->resource()->informer.get(),
                                 request->resource()->DisplayName(), request->filter(),
                                 WatchOptions(request->request(), *std::move(form), credentials,
                                              request->attributes()),
                                 std::nullopt, metrics_, &watches_);
  stream->set_context(context);
  stream->Begin();
  auto starter = stream->Starter();
  auto still_waiting = stream->StillWaiting();
  admission_.Review(request, std::move(credentials), std::move(needs_review),
                    [this, request, starter, still_waiting](AdmissionResult result) {
                      if (!result.admitted()) {
                        starter(ToAbsl(result.status()));
                        return;
                      }
                      auto held = std::make_shared<limits::ConcurrencyLimiter::Permit>(
                          result.TakePermit());
                      Launch(PrepareLaunch(*request, result.caller().identity),
                             [starter, held](absl::StatusOr<WatchStart> start) {
                               if (start.ok()) start->late_permit = held;
                               starter(std::move(start));
                             },
                             still_waiting);
                    });
  return stream;
}

void CacheService::EndWatches() {
  watches_.EndAll(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                               "informerd is shutting down; resume from your last "
                               "resource_version on another replica"));
}

}  // namespace informerd::service
