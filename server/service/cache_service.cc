#include "server/service/cache_service.h"

#include <grpc/grpc_security_constants.h>

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/auth/bearer_token.h"
#include "server/auth/certificate_identity.h"
#include "server/cache/resource_version.h"
#include "server/service/client_host.h"
#include "server/service/continue_token.h"
#include "server/service/request_filter.h"
#include "server/service/grpc_status.h"
#include "server/service/wire_format.h"

namespace informerd::service {
namespace {

grpc::Status Invalid(const std::string& message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
}

template <typename Message>
grpc::Status ParseRequest(const grpc::ByteBuffer& buffer, Message* message) {
  grpc::ByteBuffer copy(buffer);
  grpc::Status status = grpc::SerializationTraits<Message>::Deserialize(&copy, message);
  if (!status.ok()) return Invalid("request: not a valid protobuf message");
  return grpc::Status::OK;
}

// "" or a decimal version; the field name goes into the error.
// Proto3 enums are open: an unknown number parses and must be refused here.
grpc::Status CheckProjection(v1::Projection projection) {
  if (v1::Projection_IsValid(projection)) return grpc::Status::OK;
  return Invalid(absl::StrCat("projection: unknown value ", static_cast<int>(projection),
                              " (PROJECTION_FULL = 0 or PROJECTION_METADATA = 1)"));
}

grpc::Status CheckEncoding(v1::Encoding encoding) {
  if (v1::Encoding_IsValid(encoding)) return grpc::Status::OK;
  return Invalid(absl::StrCat("encoding: unknown value ", static_cast<int>(encoding),
                              " (ENCODING_JSON = 0 or ENCODING_PROTOBUF = 1)"));
}

grpc::Status ParseVersion(const std::string& text, const char* field, uint64_t* version) {
  *version = 0;
  if (text.empty()) return grpc::Status::OK;
  std::optional<uint64_t> parsed = cache::ParseResourceVersion(text);
  if (!parsed.has_value()) {
    return Invalid(absl::StrCat(field, ": ", Quoted(text), " is not a decimal resource version"));
  }
  *version = *parsed;
  return grpc::Status::OK;
}

bool Reached(const ServedResource& resource, uint64_t version) {
  return resource.informer->synced() && resource.informer->resource_version() >= version;
}

// Why a read that waited for `version` gave up.
absl::Status NotReached(const ServedResource& resource, uint64_t version) {
  if (!resource.informer->synced()) {
    return absl::UnavailableError(absl::StrCat(resource.DisplayName(), " is not synced yet"));
  }
  uint64_t current = resource.informer->resource_version();
  // The wait can end just as the cache gets there.
  uint64_t behind = version > current ? version - current : 0;
  return absl::UnavailableError(absl::StrCat("too large resource version: ", version,
                                             ", current: ", current, " (the cache is ", behind,
                                             " versions behind; retry)"));
}

// Object names are DNS subdomains at most; longer is never a real object.
constexpr size_t kMaxNameBytes = 253;

const char* RejectionReason(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kUnauthenticated:
      return "unauthenticated";
    case absl::StatusCode::kPermissionDenied:
      return "permission_denied";
    default:
      return "auth_unavailable";
  }
}

// The Authorizer's "a review is needed" (DeferReviews), which grpc::Status
// cannot carry as a payload: a status no other path produces.
constexpr char kReviewNeeded[] = "informerd: a review is needed";

// The review workers' key of every token never accepted (ReviewKey): not an
// identity's ("user:..."), nor a peer's.
constexpr char kNewTokensKey[] = "tokens:new";

grpc::Status ReviewNeededStatus() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, kReviewNeeded);
}

bool IsReviewNeeded(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE &&
         status.error_message() == kReviewNeeded;
}

// The checks of a request's fields that do not depend on what is served,
// run before the caller is authenticated (CacheService::Serve): a
// malformed request is INVALID_ARGUMENT for anyone, answering tells an
// unauthenticated peer nothing about the served resources, and nothing
// unbounded reaches a review. The served resource's own checks (scope,
// selectable fields, indexes) come after authentication, before
// authorization.
grpc::Status CheckCommonShape(const v1::ResourceName& resource, const std::string& ns,
                              v1::Projection projection, const std::string& version,
                              const char* version_field) {
  if (absl::Status status = CheckResourceName(resource); !status.ok()) return ToGrpc(status);
  if (!ns.empty()) {
    if (absl::Status status = CheckNamespaceName(ns); !status.ok()) return ToGrpc(status);
  }
  if (grpc::Status status = CheckProjection(projection); !status.ok()) return status;
  uint64_t parsed = 0;
  return ParseVersion(version, version_field, &parsed);
}

grpc::Status ShapeOfList(const v1::ListRequest& request) {
  if (request.limit() < 0) return Invalid("limit: must not be negative");
  if (request.continue_token().size() > kMaxContinueTokenBytes) {
    return Invalid(absl::StrCat("continue_token: longer than ", kMaxContinueTokenBytes, " bytes"));
  }
  if (grpc::Status status = CheckEncoding(request.encoding()); !status.ok()) return status;
  return CheckCommonShape(request.resource(), request.namespace_(), request.projection(),
                          request.resource_version(), "resource_version");
}

grpc::Status ShapeOfGet(const v1::GetRequest& request) {
  if (request.name().empty()) return Invalid("name: required");
  if (request.name().size() > kMaxNameBytes) {
    return Invalid(absl::StrCat("name: longer than ", kMaxNameBytes, " characters"));
  }
  if (grpc::Status status = CheckEncoding(request.encoding()); !status.ok()) return status;
  return CheckCommonShape(request.resource(), request.namespace_(), request.projection(),
                          request.min_resource_version(), "min_resource_version");
}

grpc::Status ShapeOfWatch(const v1::WatchRequest& request) {
  if (grpc::Status status = CheckEncoding(request.encoding()); !status.ok()) return status;
  return CheckCommonShape(request.resource(), request.namespace_(), request.projection(),
                          request.resource_version(), "resource_version");
}

// Parses `buffer` into `*request` and checks its shape (the ShapeOf...
// functions): the one parse of a request, before its caller is known.
template <typename Message>
grpc::Status ParseShaped(const grpc::ByteBuffer& buffer, Message* request,
                         grpc::Status (*shape)(const Message&)) {
  if (grpc::Status status = ParseRequest(buffer, request); !status.ok()) return status;
  return shape(*request);
}

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
      watch_limiter_("concurrent Watch streams", options.limits.max_watches_per_identity,
                     options.limits.max_watches),
      list_limiter_("in-flight Lists", options.limits.max_lists_per_identity, options.limits.max_lists),
      waiting_read_limiter_("reads waiting for a resource version",
                            options.limits.max_waiting_reads_per_identity, options.limits.max_waiting_reads),
      initial_bytes_limiter_("bytes of initial events held", options.limits.max_initial_bytes_per_identity,
                             options.limits.max_initial_bytes),
      rate_limiter_(options.limits.rates),
      token_review_limiter_(options.limits.token_reviews),
      continue_tokens_(options.max_list_snapshot_age),
      watches_({options.stalled_stream_timeout, options.initial_events_timeout}) {
  if (options_.authorizer != nullptr) {
    review_workers_ = std::make_unique<auth::ReviewWorkers>(auth::ReviewWorkersOptions{
        .threads = 4,
        .max_queued = 1024,
        .max_per_key = options.limits.max_reviews_per_identity,
        // Half the workers: one identity's slow reviews never hold them all.
        .max_running_per_key = 2});
  }
}

CacheService::Credentials CacheService::CredentialsOf(
    grpc::CallbackServerContext* context) const {
  Credentials credentials;
  std::optional<std::string_view> forwarded_for;
  if (auto it = context->client_metadata().find("x-forwarded-for");
      it != context->client_metadata().end()) {
    forwarded_for = std::string_view(it->second.data(), it->second.size());
  }
  credentials.peer_host =
      ClientHost(context->peer(), forwarded_for, options_.trust_forwarded_for);
  if (options_.authorizer != nullptr) {
    std::vector<std::string_view> values;
    auto [begin, end] = context->client_metadata().equal_range("authorization");
    for (auto it = begin; it != end; ++it) values.emplace_back(it->second.data(), it->second.size());
    credentials.sent_token = !values.empty();
    credentials.token = auth::BearerTokenFromMetadata(values);
  }
  // With mTLS the handshake verified the client's certificate; its subject
  // is who the caller is when it sends no token (as at the apiserver).
  if (std::shared_ptr<const grpc::AuthContext> auth = context->auth_context(); auth != nullptr) {
    std::vector<grpc::string_ref> pem = auth->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME);
    if (!pem.empty()) {
      credentials.certified =
          auth::UserFromCertificate(std::string_view(pem.front().data(), pem.front().size()));
    }
  }
  return credentials;
}

grpc::Status CacheService::Authenticate(const Credentials& credentials, const char* method,
                                        Caller* caller, bool charge_review) {
  const std::optional<absl::StatusOr<auth::UserInfo>>& certified = credentials.certified;
  if (options_.authorizer == nullptr) {
    // No RBAC to apply, but a certificate's user is what the limits count.
    caller->identity = certified.has_value() && certified->ok()
                           ? absl::StrCat("cert:", (*certified)->username)
                           : credentials.peer_host;
    return AdmitRate(*caller, method);
  }
  if (!credentials.sent_token && certified.has_value()) {
    if (!certified->ok()) {
      metrics_->RequestRejected(method, "unauthenticated");
      return ToGrpc(certified->status());
    }
    caller->user = **certified;
    caller->identity = absl::StrCat("user:", caller->user.username);
    return AdmitRate(*caller, method);
  }
  const absl::StatusOr<std::string>& token = credentials.token;
  // Charged per lane, not per peer address: behind a proxy every caller
  // has one address, and a token accepted before keeps a budget that made-up
  // ones cannot spend.
  auto admit_review = [this, method](bool remembered) {
    bool per_lane = false;
    absl::Status admitted =
        token_review_limiter_.Admit(remembered ? "remembered" : "new", &per_lane);
    if (!admitted.ok()) {
      metrics_->RequestRejected(method, !per_lane     ? "global_token_reviews"
                                        : remembered ? "remembered_token_reviews"
                                                     : "new_token_reviews");
    }
    return admitted;
  };
  absl::StatusOr<auth::UserInfo> user =
      !token.ok() ? absl::StatusOr<auth::UserInfo>(token.status())
                  : options_.authorizer->Authenticate(
                        *token, charge_review ? auth::Authorizer::AdmitReview(admit_review)
                                              : nullptr);
  if (!user.ok() && auth::Authorizer::IsReviewNeeded(user.status())) return ReviewNeededStatus();
  if (!user.ok()) {
    // A refused review was counted by admit_review.
    if (user.status().code() != absl::StatusCode::kResourceExhausted) {
      metrics_->RequestRejected(method, RejectionReason(user.status().code()));
    }
    return ToGrpc(user.status());
  }
  caller->user = *std::move(user);
  caller->identity = absl::StrCat("user:", caller->user.username);
  return AdmitRate(*caller, method);
}

grpc::Status CacheService::AdmitRate(const Caller& caller, const char* method) {
  bool per_identity = false;
  absl::Status admitted = rate_limiter_.Admit(caller.identity, &per_identity);
  if (admitted.ok()) return grpc::Status::OK;
  metrics_->RequestRejected(method, per_identity ? "identity_rate" : "global_rate");
  return ToGrpc(admitted);
}

std::string CacheService::ReviewKey(const Credentials& credentials, const Caller* caller) const {
  if (caller != nullptr) return caller->identity;
  if (credentials.token.ok()) {
    if (std::optional<std::string> user = options_.authorizer->RememberedUser(*credentials.token);
        user.has_value()) {
      return absl::StrCat("user:", *user);
    }
  }
  return kNewTokensKey;
}

absl::Status CacheService::SubmitReview(const std::string& key, std::function<void()> task,
                                        std::function<void()> dropped) {
  // Made-up tokens and first-time callers (every caller, after a restart)
  // share this key: its quota is what their TokenReview budget admits.
  const size_t quota =
      key == kNewTokensKey
          ? static_cast<size_t>(options_.limits.token_reviews.per_identity_burst)
          : 0;
  return review_workers_->Submit(key, std::move(task), std::move(dropped), quota);
}

grpc::Status CacheService::ReviewRefused(const absl::Status& refused, const char* method) {
  metrics_->RequestRejected(method, absl::IsResourceExhausted(refused) ? "identity_reviews_queued"
                                                                       : "reviews_queued");
  return ToGrpc(refused);
}

grpc::Status CacheService::Authorize(const Caller& caller, const ServedResource& resource,
                                     auth::ResourceAttributes attributes, const char* method) {
  if (options_.authorizer == nullptr) return grpc::Status::OK;
  attributes.group = resource.info.group;
  attributes.resource = resource.info.resource;
  absl::Status status = options_.authorizer->Authorize(caller.user, attributes);
  if (status.ok()) return grpc::Status::OK;
  if (auth::Authorizer::IsReviewNeeded(status)) return ReviewNeededStatus();
  metrics_->RequestRejected(method, RejectionReason(status.code()));
  std::string message(status.message());
  if (status.code() == absl::StatusCode::kPermissionDenied && resource.info.namespaced &&
      attributes.namespace_.empty()) {
    absl::StrAppend(&message, "; set namespace");
  }
  return ToGrpc(status, std::move(message));
}

absl::StatusOr<limits::ConcurrencyLimiter::Permit> CacheService::AdmitWait(const Caller& caller,
                                                                           const char* method) {
  bool per_identity = false;
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> permit =
      waiting_read_limiter_.Acquire(caller.identity, &per_identity);
  if (!permit.ok()) {
    metrics_->RequestRejected(method, per_identity ? "identity_waiting_reads"
                                                   : "global_waiting_reads");
  }
  return permit;
}

void CacheService::FinishRead(grpc::ServerUnaryReactor* reactor, const char* method,
                              absl::Time start, const Caller& caller, grpc::Status status,
                              ReadPlan plan) {
  if (!status.ok()) return FinishUnary(reactor, method, start, status);
  if (Reached(*plan.resource, plan.min_version)) {
    return FinishUnary(reactor, method, start, plan.read());
  }
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> permit = AdmitWait(caller, method);
  if (!permit.ok()) return FinishUnary(reactor, method, start, ToGrpc(permit.status()));
  auto held = std::make_shared<limits::ConcurrencyLimiter::Permit>(*std::move(permit));
  version_waits_.Wait(
      plan.resource->informer.get(), plan.min_version, absl::Now() + options_.version_wait,
      [this, reactor, method, start, held, resource = plan.resource, version = plan.min_version,
       read = std::move(plan.read)](bool reached) {
        FinishUnary(reactor, method, start,
                    reached ? read() : ToGrpc(NotReached(*resource, version)));
      });
}

void CacheService::FinishUnary(grpc::ServerUnaryReactor* reactor, const char* method,
                               absl::Time start, const grpc::Status& status) {
  metrics_->ObserveRpc(method, std::to_string(static_cast<int>(status.error_code())),
                       absl::ToDoubleSeconds(absl::Now() - start));
  reactor->Finish(status);
}

grpc::ServerUnaryReactor* CacheService::Serve(grpc::CallbackServerContext* context,
                                              const char* method,
                                              const std::function<grpc::Status()>& shape,
                                              UnaryHandler handle) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::Time start = absl::Now();
  if (grpc::Status status = shape(); !status.ok()) {
    metrics_->RequestRejected(method, "invalid");
    FinishUnary(reactor, method, start, status);
    return reactor;
  }
  // The caller, once authenticated, for a second attempt.
  auto known = std::make_shared<std::optional<Caller>>();
  const Credentials credentials = CredentialsOf(context);
  auto attempt = [this, credentials, method, reactor, start, handle, known](bool first) {
    std::optional<auth::Authorizer::DeferReviews> defer;
    if (first) defer.emplace();
    grpc::Status status;
    if (!known->has_value()) {
      Caller caller;
      // The first attempt charged its lane's TokenReview budget.
      status = Authenticate(credentials, method, &caller, /*charge_review=*/first);
      if (status.ok()) *known = std::move(caller);
    }
    if (status.ok()) status = handle(**known, reactor, start);
    if (first && IsReviewNeeded(status)) return false;
    if (!status.ok()) FinishUnary(reactor, method, start, status);
    return true;
  };
  if (attempt(true)) return reactor;
  absl::Status queued = SubmitReview(
      ReviewKey(credentials, known->has_value() ? &**known : nullptr),
      [attempt] { attempt(false); },
      [this, reactor, method, start] {
        FinishUnary(reactor, method, start,
                    grpc::Status(grpc::StatusCode::UNAVAILABLE, "informerd is shutting down"));
      });
  if (!queued.ok()) FinishUnary(reactor, method, start, ReviewRefused(queued, method));
  return reactor;
}

grpc::ServerUnaryReactor* CacheService::List(grpc::CallbackServerContext* context,
                                             const grpc::ByteBuffer* request,
                                             grpc::ByteBuffer* response) {
  auto parsed = std::make_shared<v1::ListRequest>();
  return Serve(context, "List",
               [request, parsed] { return ParseShaped(*request, parsed.get(), &ShapeOfList); },
               [this, parsed, response](const Caller& caller, grpc::ServerUnaryReactor* reactor,
                                        absl::Time start) {
                 ReadPlan plan;
                 grpc::Status status = DoList(caller, *parsed, response, &plan);
                 if (!status.ok()) return status;
                 FinishRead(reactor, "List", start, caller, status, std::move(plan));
                 return grpc::Status::OK;
               });
}

grpc::Status CacheService::DoList(const Caller& caller, const v1::ListRequest& request,
                                  grpc::ByteBuffer* response, ReadPlan* plan) {
  absl::StatusOr<ServedResource*> resource = registry_->Find(request.resource());
  if (!resource.ok()) return ToGrpc(resource.status());
  // Every field is validated (and bounded) before any of it reaches a
  // SubjectAccessReview or a cache key.
  absl::StatusOr<cache::Filter> filter =
      MakeFilter(**resource, {request.namespace_(), request.label_selector(),
                              request.field_selector(), request.index_name(),
                              request.index_value()});
  if (!filter.ok()) return ToGrpc(filter.status());
  uint64_t min_version = 0;
  if (grpc::Status status = ParseVersion(request.resource_version(), "resource_version", &min_version);
      !status.ok()) {
    return status;
  }
  const ContinueScope scope{absl::StrCat((*resource)->DisplayName(), "/", (*resource)->info.version),
                            request.namespace_(),
                            request.label_selector(), request.field_selector(),
                            request.index_name(), request.index_value()};
  ContinuePoint point{0, "", absl::Now()};
  if (!request.continue_token().empty()) {
    absl::StatusOr<ContinuePoint> decoded =
        continue_tokens_.Decode(scope, request.continue_token());
    if (!decoded.ok()) return ToGrpc(decoded.status());
    point = *std::move(decoded);
  }
  if (grpc::Status status = Authorize(caller, **resource, {"list", "", "", request.namespace_(), ""},
                                      "List");
      !status.ok()) {
    return status;
  }
  bool per_identity = false;
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> permit =
      list_limiter_.Acquire(caller.identity, &per_identity);
  if (!permit.ok()) {
    metrics_->RequestRejected("List", per_identity ? "identity_limit" : "global_limit");
    return ToGrpc(permit.status());
  }
  plan->resource = *resource;
  // Later pages read their snapshot, whatever the cache's version.
  plan->min_version = request.continue_token().empty() ? min_version : 0;
  plan->read = [this, response, resource = *resource, filter = *std::move(filter),
                point = std::move(point), scope, limit = static_cast<size_t>(request.limit()),
                projection = request.projection(), encoding = request.encoding(),
                held = std::make_shared<limits::ConcurrencyLimiter::Permit>(*std::move(permit))] {
    absl::StatusOr<informer::Informer::Page> page = resource->informer->List(
        filter, point.resource_version, point.last_key, limit, options_.max_page_bytes);
    if (!page.ok()) {
      // An expired snapshot is the apiserver's 410 for continue tokens.
      return ToGrpc(page.status());
    }
    std::string token;
    if (page->more && !page->items.empty()) {
      token = continue_tokens_.Encode(
          scope, {page->resource_version, page->items.back()->key(), point.snapshot_time});
    }
    *response = ListResponseBuffer(page->items, page->resource_version, token, projection,
                                   encoding);
    return grpc::Status::OK;
  };
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CacheService::Get(grpc::CallbackServerContext* context,
                                            const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) {
  auto parsed = std::make_shared<v1::GetRequest>();
  return Serve(context, "Get",
               [request, parsed] { return ParseShaped(*request, parsed.get(), &ShapeOfGet); },
               [this, parsed, response](const Caller& caller, grpc::ServerUnaryReactor* reactor,
                                        absl::Time start) {
                 ReadPlan plan;
                 grpc::Status status = DoGet(caller, *parsed, response, &plan);
                 if (!status.ok()) return status;
                 FinishRead(reactor, "Get", start, caller, status, std::move(plan));
                 return grpc::Status::OK;
               });
}

grpc::Status CacheService::DoGet(const Caller& caller, const v1::GetRequest& request,
                                 grpc::ByteBuffer* response, ReadPlan* plan) {
  absl::StatusOr<ServedResource*> resource = registry_->Find(request.resource());
  if (!resource.ok()) return ToGrpc(resource.status());
  if ((*resource)->info.namespaced && request.namespace_().empty()) {
    return Invalid(absl::StrCat("namespace: required for ", (*resource)->DisplayName()));
  }
  if (!(*resource)->info.namespaced && !request.namespace_().empty()) {
    return Invalid(absl::StrCat("namespace: ", (*resource)->DisplayName(),
                                " is cluster-scoped; leave namespace empty"));
  }
  // Validates the namespace's syntax and length.
  if (absl::StatusOr<cache::Filter> filter = MakeFilter(**resource, {request.namespace_()});
      !filter.ok()) {
    return ToGrpc(filter.status());
  }
  if (grpc::Status status = Authorize(
          caller, **resource, {"get", "", "", request.namespace_(), request.name()}, "Get");
      !status.ok()) {
    return status;
  }
  uint64_t min_version = 0;
  if (grpc::Status status =
          ParseVersion(request.min_resource_version(), "min_resource_version", &min_version);
      !status.ok()) {
    return status;
  }
  plan->resource = *resource;
  plan->min_version = min_version;
  plan->read = [response, resource = *resource, ns = request.namespace_(), name = request.name(),
                projection = request.projection(), encoding = request.encoding()] {
    auto [object, version] = resource->informer->Get(cache::ObjectKey(ns, name));
    if (object == nullptr) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat(resource->DisplayName(), " \"", name, "\" not found"));
    }
    *response = GetResponseBuffer(*object, version, projection, encoding);
    return grpc::Status::OK;
  };
  return grpc::Status::OK;
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* CacheService::Watch(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
  v1::WatchRequest parsed;
  grpc::Status status = ParseShaped(*request, &parsed, &ShapeOfWatch);
  if (!status.ok()) {
    metrics_->RequestRejected("Watch", "invalid");
    metrics_->ObserveRpc("Watch", std::to_string(static_cast<int>(status.error_code())), 0);
    return FailedWatch::Now(status);
  }
  Credentials credentials = CredentialsOf(context);
  // Resolved before the caller is known, but told only to an
  // authenticated one: it says what is served.
  WatchPlan plan;
  const grpc::Status planned = PlanWatch(parsed, &plan);
  Caller caller;
  limits::ConcurrencyLimiter::Permit permit;
  {
    // As for unary calls: answered from the caches here, reviewed on a
    // worker when the apiserver must be asked.
    auth::Authorizer::DeferReviews defer;
    status = Authenticate(credentials, "Watch", &caller);
    if (status.ok()) status = planned;
    if (status.ok()) status = AdmitWatch(caller, plan, &permit);
  }
  if (IsReviewNeeded(status)) {
    // Once authenticated (only the permission needs a review), its user's.
    std::string review_key = ReviewKey(credentials, caller.identity.empty() ? nullptr : &caller);
    return WatchAfterReviews(context, std::move(credentials), std::move(parsed), planned,
                             std::move(plan), review_key);
  }
  WatchStream* stream = nullptr;
  std::function<void()> after_begin;
  if (status.ok()) {
    status = StartWatch(caller, credentials, parsed, plan, std::move(permit), &stream,
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

grpc::ServerWriteReactor<grpc::ByteBuffer>* CacheService::WatchAfterReviews(
    grpc::CallbackServerContext* context, Credentials credentials, v1::WatchRequest request,
    grpc::Status planned, WatchPlan plan, const std::string& review_key) {
  auto refused = [this](const grpc::Status& status) {
    metrics_->ObserveRpc("Watch", std::to_string(static_cast<int>(status.error_code())), 0);
  };
  const grpc::Status shutting_down(grpc::StatusCode::UNAVAILABLE, "informerd is shutting down");
  if (!planned.ok()) {
    // Nothing to stream: the caller learns why once it is authenticated.
    auto* refusal = new FailedWatch();
    absl::Status queued = SubmitReview(
        review_key,
        [this, refusal, refused, credentials = std::move(credentials), planned] {
          Caller caller;
          grpc::Status status = Authenticate(credentials, "Watch", &caller,
                                             /*charge_review=*/false);
          if (status.ok()) status = planned;
          refused(status);
          refusal->Fail(status);
        },
        [refusal, refused, shutting_down] {
          refused(shutting_down);
          refusal->Fail(shutting_down);
        });
    if (!queued.ok()) {
      grpc::Status status = ReviewRefused(queued, "Watch");
      refused(status);
      refusal->Fail(status);
    }
    return refusal;
  }
  auto* stream = new WatchStream(plan.resource->informer.get(), plan.resource->DisplayName(),
                                 plan.filter, WatchOptions(request, credentials, plan.attributes),
                                 std::nullopt, metrics_, &watches_);
  stream->set_context(context);
  stream->Begin();
  auto starter = stream->Starter();
  auto still_waiting = stream->StillWaiting();
  absl::Status queued = SubmitReview(
      review_key,
      [this, starter, still_waiting, credentials = std::move(credentials),
       request = std::move(request), plan = std::move(plan)] {
        Caller caller;
        limits::ConcurrencyLimiter::Permit permit;
        // The first attempt charged its lane's TokenReview budget.
        grpc::Status status = Authenticate(credentials, "Watch", &caller,
                                           /*charge_review=*/false);
        if (status.ok()) status = AdmitWatch(caller, plan, &permit);
        if (!status.ok()) {
          starter(ToAbsl(status));
          return;
        }
        auto held = std::make_shared<limits::ConcurrencyLimiter::Permit>(std::move(permit));
        Launch(PrepareLaunch(request, plan, caller.identity),
               [starter, held](absl::StatusOr<WatchStart> start) {
                 if (start.ok()) start->late_permit = held;
                 starter(std::move(start));
               },
               still_waiting);
      },
      [starter, shutting_down] { starter(ToAbsl(shutting_down)); });
  if (!queued.ok()) starter(ToAbsl(ReviewRefused(queued, "Watch")));
  return stream;
}

grpc::Status CacheService::PlanWatch(const v1::WatchRequest& request, WatchPlan* plan) {
  absl::StatusOr<ServedResource*> found = registry_->Find(request.resource());
  if (!found.ok()) return ToGrpc(found.status());
  plan->resource = *found;
  absl::StatusOr<cache::Filter> filter =
      MakeFilter(*plan->resource, {request.namespace_(), request.label_selector(),
                                   request.field_selector(), "", ""});
  if (!filter.ok()) return ToGrpc(filter.status());
  plan->filter = *std::move(filter);
  if (grpc::Status status =
          ParseVersion(request.resource_version(), "resource_version", &plan->version);
      !status.ok()) {
    return status;
  }
  plan->attributes = {"watch", plan->resource->info.group, plan->resource->info.resource,
                      request.namespace_(), ""};
  return grpc::Status::OK;
}

grpc::Status CacheService::AdmitWatch(const Caller& caller, const WatchPlan& plan,
                                      limits::ConcurrencyLimiter::Permit* permit) {
  if (grpc::Status status = Authorize(caller, *plan.resource, plan.attributes, "Watch");
      !status.ok()) {
    return status;
  }
  bool per_identity = false;
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> acquired =
      watch_limiter_.Acquire(caller.identity, &per_identity);
  if (!acquired.ok()) {
    metrics_->RequestRejected("Watch", per_identity ? "identity_limit" : "global_limit");
    return ToGrpc(acquired.status());
  }
  *permit = *std::move(acquired);
  return grpc::Status::OK;
}

WatchStreamOptions CacheService::WatchOptions(const v1::WatchRequest& request,
                                              const Credentials& credentials,
                                              const auth::ResourceAttributes& attributes) const {
  WatchStreamOptions stream_options;
  stream_options.allow_bookmarks = request.allow_bookmarks();
  stream_options.projection = request.projection();
  stream_options.encoding = request.encoding();
  stream_options.bookmark_interval = options_.bookmark_interval;
  if (options_.authorizer == nullptr) return stream_options;
  // Who the credentials say the caller is, reviewed again at every re-check
  // (a stream starts only once they were accepted): a token is reviewed
  // again too, so a deleted service account loses its watches; a
  // certificate's user stays who it is (the handshake checked it).
  auth::UserInfo certified;
  if (!credentials.sent_token && credentials.certified.has_value() &&
      credentials.certified->ok()) {
    certified = **credentials.certified;
  }
  stream_options.recheck = [authorizer = options_.authorizer,
                            token = credentials.sent_token && credentials.token.ok()
                                        ? *credentials.token
                                        : std::string(),
                            certified, attributes]() -> absl::Status {
    if (token.empty()) return authorizer->Authorize(certified, attributes);
    absl::StatusOr<auth::UserInfo> user = authorizer->Authenticate(token);
    if (!user.ok()) return user.status();
    return authorizer->Authorize(*user, attributes);
  };
  stream_options.recheck_interval = options_.auth_recheck_interval;
  stream_options.recheck_grace = options_.auth_recheck_grace;
  stream_options.review_workers = review_workers_.get();
  return stream_options;
}

CacheService::WatchLaunch CacheService::PrepareLaunch(const v1::WatchRequest& request,
                                                      const WatchPlan& plan,
                                                      const std::string& identity) {
  // As the apiserver: resource_version "0" starts with the current state as
  // ADDED events (without the WatchList end marker).
  const bool legacy_initial = request.resource_version() == "0" && !request.send_initial_events();
  const bool initial = request.send_initial_events() || legacy_initial;
  WatchLaunch launch;
  launch.resource = plan.resource;
  launch.version = plan.version;
  launch.make_start = [this, informer = plan.resource->informer.get(),
                       name = plan.resource->DisplayName(), filter = plan.filter, initial,
                       send_initial_events = request.send_initial_events(),
                       from_now = request.resource_version().empty(), version = plan.version,
                       identity]() -> absl::StatusOr<WatchStart> {
    WatchStart start;
    if (initial) {
      informer::Informer::InitialState state = informer->Snapshot(filter);
      size_t bytes = 0;
      for (const cache::ObjectPtr& object : state.objects) bytes += object->ApproximateBytes();
      bool per_identity = false;
      absl::StatusOr<limits::ConcurrencyLimiter::Permit> charge =
          initial_bytes_limiter_.Acquire(identity, &per_identity, bytes);
      if (!charge.ok()) {
        metrics_->RequestRejected("Watch", per_identity ? "identity_initial_bytes"
                                                        : "global_initial_bytes");
        return charge.status();
      }
      metrics_->InitialStateServed(name);
      start.initial_charge =
          std::make_shared<limits::ConcurrencyLimiter::Permit>(*std::move(charge));
      start.position = state.position;
      start.initial_objects = std::move(state.objects);
      start.initial_version = state.resource_version;
      start.send_initial_events = send_initial_events;
      return start;
    }
    absl::StatusOr<uint64_t> position =
        informer->WatchPosition(from_now ? informer->resource_version() : version);
    if (!position.ok()) return position.status();
    start.position = *position;
    return start;
  };
  // A resume from before the history (this process started after the
  // client's last event) is backfilled from the API server rather than
  // answered OUT_OF_RANGE, which would make the client relist.
  if (!initial && !request.resource_version().empty()) {
    launch.backfill = plan.resource->backfill.get();
  }
  return launch;
}

void CacheService::Launch(const WatchLaunch& launch,
                          std::function<void(absl::StatusOr<WatchStart>)> starter,
                          std::function<bool()> still_waiting) {
  auto start_after_backfill = [launch, starter, still_waiting] {
    launch.backfill->Request(launch.version,
                             [starter, make_start = launch.make_start](absl::Status filled) {
                               starter(filled.ok() ? make_start()
                                                   : absl::StatusOr<WatchStart>(filled));
                             },
                             still_waiting);
  };
  auto start_now = [launch, starter, start_after_backfill] {
    absl::StatusOr<WatchStart> now = launch.make_start();
    if (!now.ok() && launch.backfill != nullptr && absl::IsOutOfRange(now.status())) {
      start_after_backfill();
      return;
    }
    starter(std::move(now));
  };
  if (Reached(*launch.resource, launch.version)) {
    start_now();
    return;
  }
  version_waits_.Wait(launch.resource->informer.get(), launch.version,
                      absl::Now() + options_.version_wait,
                      [starter, start_now, resource = launch.resource,
                       version = launch.version](bool reached) {
                        if (!reached) {
                          starter(NotReached(*resource, version));
                          return;
                        }
                        start_now();
                      });
}

grpc::Status CacheService::StartWatch(const Caller& caller, const Credentials& credentials,
                                      const v1::WatchRequest& request, const WatchPlan& plan,
                                      limits::ConcurrencyLimiter::Permit permit,
                                      WatchStream** stream, std::function<void()>* after_begin) {
  WatchLaunch launch = PrepareLaunch(request, plan, caller.identity);
  // Started here when it can be, so that a refusal (OUT_OF_RANGE, the
  // initial-events budget) is the call's status before any stream exists.
  std::optional<WatchStart> start;
  if (Reached(*plan.resource, plan.version)) {
    absl::StatusOr<WatchStart> now = launch.make_start();
    if (now.ok()) {
      start = *std::move(now);
    } else if (launch.backfill == nullptr || !absl::IsOutOfRange(now.status())) {
      return ToGrpc(now.status());
    }
  }
  // A Watch that waits (for its version, a first sync or a backfill) takes
  // no waiting-read permit: its watch permit bounds it already, and it
  // holds no thread. After a restart every client resumes at once, and a
  // refusal there would make them all relist.
  const bool deferred = !start.has_value();
  *stream = new WatchStream(plan.resource->informer.get(), plan.resource->DisplayName(),
                            plan.filter, WatchOptions(request, credentials, plan.attributes),
                            std::move(start), metrics_, &watches_, std::move(permit));
  if (deferred) {
    *after_begin = [this, launch = std::move(launch), starter = (*stream)->Starter(),
                    still_waiting = (*stream)->StillWaiting()] {
      Launch(launch, starter, still_waiting);
    };
  }
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CacheService::ListResources(grpc::CallbackServerContext* context,
                                                      const v1::ListResourcesRequest* request,
                                                      v1::ListResourcesResponse* response) {
  return Serve(context, "ListResources",
               [request] {
                 if (request->namespace_().empty()) return grpc::Status::OK;
                 return ToGrpc(CheckNamespaceName(request->namespace_()));
               },
               [this, request, response](const Caller& caller, grpc::ServerUnaryReactor* reactor,
                                         absl::Time start) {
                 grpc::Status status = DoListResources(caller, *request, response);
                 if (!status.ok()) return status;
                 FinishUnary(reactor, "ListResources", start, status);
                 return grpc::Status::OK;
               });
}

grpc::Status CacheService::DoListResources(const Caller& caller,
                                           const v1::ListResourcesRequest& request,
                                           v1::ListResourcesResponse* response) {
  // A caller sees the resources it may list, and nothing of the others:
  // their names and object counts are not its business.
  const std::string& ns = request.namespace_();
  if (!ns.empty()) {
    if (absl::Status status = CheckNamespaceName(ns); !status.ok()) return ToGrpc(status);
  }
  // True, false, or the review-needed status.
  auto may_list = [&](const ServedResource& served,
                      const std::string& in) -> absl::StatusOr<bool> {
    if (options_.authorizer == nullptr) return true;
    absl::Status status = options_.authorizer->Authorize(
        caller.user, {"list", served.info.group, served.info.resource, in, ""});
    if (auth::Authorizer::IsReviewNeeded(status)) return status;
    return status.ok();
  };
  std::vector<std::pair<ServedResource*, bool>> listed;  // and whether cluster-wide
  for (ServedResource* served : registry_->all()) {
    absl::StatusOr<bool> cluster_wide = may_list(*served, "");
    if (!cluster_wide.ok()) return ReviewNeededStatus();
    bool in_namespace = false;
    if (!*cluster_wide && !ns.empty() && served->info.namespaced) {
      absl::StatusOr<bool> allowed = may_list(*served, ns);
      if (!allowed.ok()) return ReviewNeededStatus();
      in_namespace = *allowed;
    }
    if (*cluster_wide || in_namespace) listed.emplace_back(served, *cluster_wide);
  }
  for (auto [served, cluster_wide] : listed) {
    informer::InformerStats stats = served->informer->stats();
    v1::ResourceStatus* status = response->add_resources();
    status->mutable_resource()->set_group(served->info.group);
    status->mutable_resource()->set_version(served->info.version);
    status->mutable_resource()->set_resource(served->info.resource);
    status->set_kind(served->info.kind);
    status->set_namespaced(served->info.namespaced);
    status->set_synced(stats.synced);
    if (cluster_wide) status->set_object_count(static_cast<int64_t>(stats.objects));
    status->set_resource_version(std::to_string(stats.resource_version));
    status->set_oldest_resource_version(std::to_string(stats.oldest_resource_version));
    status->set_history_events(static_cast<int64_t>(stats.history_events));
  }
  return grpc::Status::OK;
}

void CacheService::EndWatches() {
  watches_.EndAll(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                               "informerd is shutting down; resume from your last "
                               "resource_version on another replica"));
}

}  // namespace informerd::service
