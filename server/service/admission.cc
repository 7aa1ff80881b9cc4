#include "server/service/admission.h"

#include <grpc/grpc_security_constants.h>

#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/auth/bearer_token.h"
#include "server/auth/certificate_identity.h"
#include "server/service/client_host.h"
#include "server/service/grpc_status.h"

namespace informerd::service {
namespace {

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

// The review workers' key of every token never accepted (ReviewKey): not an
// identity's ("user:..."), nor a peer's.
constexpr char kNewTokensKey[] = "tokens:new";

}  // namespace

Credentials CredentialsOf(grpc::CallbackServerContext* context, bool trust_forwarded_for,
                          bool read_token) {
  Credentials credentials;
  std::optional<std::string_view> forwarded_for;
  if (auto it = context->client_metadata().find("x-forwarded-for");
      it != context->client_metadata().end()) {
    forwarded_for = std::string_view(it->second.data(), it->second.size());
  }
  credentials.peer_host = ClientHost(context->peer(), forwarded_for, trust_forwarded_for);
  if (read_token) {
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

std::optional<absl::Status> Permissions::Check(const auth::ResourceAttributes& attributes) const {
  if (authorizer_ == nullptr) return absl::OkStatus();
  if (cache_only_) return authorizer_->DecisionFromCache(caller_.user, attributes);
  return authorizer_->Authorize(caller_.user, attributes);
}

grpc::Status AdmissionRequest::Resolve(const ResourceRegistry& registry) {
  if (!resolved_.has_value()) resolved_ = DoResolve(registry);
  return *resolved_;
}

AdmissionResult AdmissionResult::Refused(grpc::Status status) {
  AdmissionResult result;
  result.kind_ = Kind::kRefused;
  result.status_ = std::move(status);
  return result;
}

Admission::Admission(const ResourceRegistry* registry, metrics::Metrics* metrics,
                     AdmissionOptions options)
    : registry_(registry),
      metrics_(metrics),
      authorizer_(options.authorizer),
      limits_(options.limits),
      rate_limiter_(options.limits.rates),
      token_review_limiter_(options.limits.token_reviews),
      signed_review_limiter_(options.limits.signed_token_reviews),
      list_limiter_("in-flight Lists", options.limits.max_lists_per_identity,
                    options.limits.max_lists),
      watch_limiter_("concurrent Watch streams", options.limits.max_watches_per_identity,
                     options.limits.max_watches) {
  if (authorizer_ != nullptr) {
    review_workers_ = std::make_unique<auth::ReviewWorkers>(auth::ReviewWorkersOptions{
        .threads = options.review_threads,
        .max_queued = 1024,
        .max_per_key = options.limits.max_reviews_per_identity,
        // Half the workers: one identity's slow reviews never hold them all.
        .max_running_per_key = 2});
  }
}

Admission::~Admission() = default;

AdmissionResult Admission::Admit(AdmissionRequest& request, const Credentials& credentials) {
  if (grpc::Status status = request.Shape(); !status.ok()) {
    metrics_->RequestRejected(request.method(), "invalid");
    return AdmissionResult::Refused(std::move(status));
  }
  return Continue(request, credentials, /*cache_only=*/true, AdmissionResult());
}

AdmissionResult Admission::Continue(AdmissionRequest& request, const Credentials& credentials,
                                    bool cache_only, AdmissionResult progress) {
  const char* method = request.method();
  AdmissionResult needs_review;
  needs_review.kind_ = AdmissionResult::Kind::kNeedsReview;
  // 2. Identify the caller, then charge the rate. A review after a cache-only
  // attempt charged neither budget nor rate twice.
  if (!progress.caller_.has_value()) {
    Caller caller;
    std::optional<grpc::Status> identified =
        Identify(credentials, method, cache_only, /*charge_review=*/cache_only, &caller);
    if (!identified.has_value()) return needs_review;
    if (!identified->ok()) return AdmissionResult::Refused(*std::move(identified));
    if (grpc::Status rate = AdmitRate(caller, method); !rate.ok()) {
      return AdmissionResult::Refused(std::move(rate));
    }
    progress.caller_ = std::move(caller);
  }
  needs_review.caller_ = progress.caller_;
  // 3. Resolve.
  if (grpc::Status resolved = request.Resolve(*registry_); !resolved.ok()) {
    return AdmissionResult::Refused(std::move(resolved));
  }
  // 4. Authorize.
  std::optional<grpc::Status> allowed =
      request.Authorize(Permissions(authorizer_, cache_only, *progress.caller_));
  if (!allowed.has_value()) return needs_review;
  if (!allowed->ok()) {
    metrics_->RequestRejected(method, RejectionReason(ToAbsl(*allowed).code()));
    return AdmissionResult::Refused(*std::move(allowed));
  }
  // 5. Admit limits.
  AdmissionResult admitted;
  if (grpc::Status limited =
          AdmitLimit(request.limit(), *progress.caller_, method, &admitted.permit_);
      !limited.ok()) {
    return AdmissionResult::Refused(std::move(limited));
  }
  admitted.kind_ = AdmissionResult::Kind::kAdmitted;
  admitted.caller_ = std::move(progress.caller_);
  return admitted;
}

void Admission::Review(std::shared_ptr<AdmissionRequest> request, Credentials credentials,
                       AdmissionResult needs_review, std::function<void(AdmissionResult)> done) {
  const char* method = request->method();
  auto shutting_down = [done] {
    done(AdmissionResult::Refused(
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "informerd is shutting down")));
  };
  if (review_workers_ == nullptr) {
    shutting_down();
    return;
  }
  const std::string key = ReviewKey(credentials, needs_review.caller_);
  // Made-up tokens and first-time callers (every caller, after a restart)
  // share one key: its quota is what their TokenReview budget admits.
  const size_t quota = key == kNewTokensKey
                           ? static_cast<size_t>(limits_.token_reviews.per_identity_burst)
                           : 0;
  auto progress = std::make_shared<AdmissionResult>(std::move(needs_review));
  absl::Status queued = review_workers_->Submit(
      key,
      [this, request, credentials = std::move(credentials), progress, done] {
        done(Continue(*request, credentials, /*cache_only=*/false, std::move(*progress)));
      },
      shutting_down, quota);
  if (!queued.ok()) {
    metrics_->RequestRejected(method, absl::IsResourceExhausted(queued) ? "identity_reviews_queued"
                                                                        : "reviews_queued");
    done(AdmissionResult::Refused(ToGrpc(queued)));
  }
}

absl::Status Admission::Recheck(const Credentials& credentials,
                                const auth::ResourceAttributes& attributes) {
  Caller caller;
  std::optional<grpc::Status> identified =
      Identify(credentials, "Watch", /*cache_only=*/false, /*charge_review=*/false, &caller);
  if (!identified->ok()) return ToAbsl(*identified);
  return *Permissions(authorizer_, /*cache_only=*/false, caller).Check(attributes);
}

std::optional<grpc::Status> Admission::Identify(const Credentials& credentials,
                                                const char* method, bool cache_only,
                                                bool charge_review, Caller* caller) {
  const std::optional<absl::StatusOr<auth::UserInfo>>& certified = credentials.certified;
  if (authorizer_ == nullptr) {
    // No RBAC to apply, but a certificate's user is what the limits count.
    caller->identity = certified.has_value() && certified->ok()
                           ? absl::StrCat("cert:", (*certified)->username)
                           : credentials.peer_host;
    return grpc::Status::OK;
  }
  std::optional<absl::StatusOr<auth::UserInfo>> user;
  if (!credentials.sent_token && certified.has_value()) {
    user = *certified;
  } else if (!credentials.token.ok()) {
    user = absl::StatusOr<auth::UserInfo>(credentials.token.status());
  } else {
    // Charged per lane, not per peer address: behind a proxy every caller
    // has one address. A token the issuer signed is charged to its subject
    // and a token accepted before to its lane, budgets that made-up ones
    // cannot spend.
    auth::Authorizer::AdmitReview admit_review;
    if (charge_review) {
      admit_review = [this, method](const auth::Authorizer::ReviewLane& lane) {
        using Kind = auth::Authorizer::ReviewLane::Kind;
        bool per_lane = false;
        if (lane.kind == Kind::kSigned) {
          absl::Status admitted = signed_review_limiter_.Admit(lane.subject, &per_lane);
          if (!admitted.ok()) {
            metrics_->RequestRejected(method, per_lane ? "subject_token_reviews"
                                                       : "global_signed_token_reviews");
          }
          return admitted;
        }
        const bool remembered = lane.kind == Kind::kRemembered;
        absl::Status admitted =
            token_review_limiter_.Admit(remembered ? "remembered" : "new", &per_lane);
        if (!admitted.ok()) {
          metrics_->RequestRejected(method, !per_lane     ? "global_token_reviews"
                                            : remembered ? "remembered_token_reviews"
                                                         : "new_token_reviews");
        }
        return admitted;
      };
    }
    user = cache_only ? authorizer_->UserFromCache(*credentials.token, admit_review)
                      : authorizer_->Authenticate(*credentials.token, admit_review);
    if (!user.has_value()) return std::nullopt;
  }
  if (!user->ok()) {
    // A refused review was counted by admit_review.
    if (user->status().code() != absl::StatusCode::kResourceExhausted) {
      metrics_->RequestRejected(method, RejectionReason(user->status().code()));
    }
    return ToGrpc(user->status());
  }
  caller->user = **std::move(user);
  caller->identity = absl::StrCat("user:", caller->user.username);
  return grpc::Status::OK;
}

grpc::Status Admission::AdmitRate(const Caller& caller, const char* method) {
  bool per_identity = false;
  absl::Status admitted = rate_limiter_.Admit(caller.identity, &per_identity);
  if (admitted.ok()) return grpc::Status::OK;
  metrics_->RequestRejected(method, per_identity ? "identity_rate" : "global_rate");
  return ToGrpc(admitted);
}

grpc::Status Admission::AdmitLimit(AdmissionRequest::Limit limit, const Caller& caller,
                                   const char* method,
                                   limits::ConcurrencyLimiter::Permit* permit) {
  limits::ConcurrencyLimiter* limiter = nullptr;
  switch (limit) {
    case AdmissionRequest::Limit::kNone:
      return grpc::Status::OK;
    case AdmissionRequest::Limit::kLists:
      limiter = &list_limiter_;
      break;
    case AdmissionRequest::Limit::kWatches:
      limiter = &watch_limiter_;
      break;
  }
  bool per_identity = false;
  absl::StatusOr<limits::ConcurrencyLimiter::Permit> acquired =
      limiter->Acquire(caller.identity, &per_identity);
  if (!acquired.ok()) {
    metrics_->RequestRejected(method, per_identity ? "identity_limit" : "global_limit");
    return ToGrpc(acquired.status());
  }
  *permit = *std::move(acquired);
  return grpc::Status::OK;
}

std::string Admission::ReviewKey(const Credentials& credentials,
                                 const std::optional<Caller>& caller) const {
  if (caller.has_value()) return caller->identity;
  if (credentials.token.ok()) {
    // A service account token's subject is its user's name.
    if (absl::StatusOr<auth::Authorizer::ReviewLane> lane = authorizer_->LaneOf(*credentials.token);
        lane.ok() && lane->kind == auth::Authorizer::ReviewLane::Kind::kSigned) {
      return absl::StrCat("user:", lane->subject);
    }
    if (std::optional<std::string> user = authorizer_->RememberedUser(*credentials.token);
        user.has_value()) {
      return absl::StrCat("user:", *user);
    }
  }
  return kNewTokensKey;
}

}  // namespace informerd::service
