#include "server/auth/authorizer.h"

#include <openssl/sha.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/log/log.h"

namespace informerd::auth {
namespace {

constexpr char kRejectedToken[] = "the token was rejected by the kube-apiserver's TokenReview";

// Each field is tagged and ends with NUL, which no Kubernetes name, group or
// namespace contains, so distinct requests never share a key.
void AppendField(std::string* key, char tag, std::string_view value) {
  key->push_back(tag);
  key->append(value.data(), value.size());
  key->push_back('\0');
}

std::string DecisionKey(const UserInfo& user, const ResourceAttributes& attributes) {
  std::string key;
  AppendField(&key, 'u', user.username);
  AppendField(&key, 'i', user.uid);
  for (const std::string& group : user.groups) AppendField(&key, 'g', group);
  for (const auto& [name, values] : user.extra) {
    AppendField(&key, 'e', name);
    for (const std::string& value : values) AppendField(&key, 'v', value);
  }
  AppendField(&key, 'V', attributes.verb);
  AppendField(&key, 'G', attributes.group);
  AppendField(&key, 'R', attributes.resource);
  AppendField(&key, 'N', attributes.namespace_);
  AppendField(&key, 'n', attributes.name);
  return key;
}

std::string TokenKey(std::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

std::string DeniedMessage(const UserInfo& user, const ResourceAttributes& attributes) {
  std::string resource = attributes.group.empty()
                             ? attributes.resource
                             : absl::StrCat(attributes.resource, ".", attributes.group);
  std::string scope = attributes.namespace_.empty()
                          ? "at the cluster scope"
                          : absl::StrCat("in namespace \"", attributes.namespace_, "\"");
  std::string what = attributes.name.empty()
                         ? resource
                         : absl::StrCat(resource, " \"", attributes.name, "\"");
  return absl::StrCat("user \"", user.username, "\" cannot ", attributes.verb, " ", what, " ",
                      scope);
}

}  // namespace

Authorizer::Authorizer(Reviewer* reviewer, AuthorizerOptions options)
    : reviewer_(reviewer),
      options_(std::move(options)),
      tokens_(options_.cache_capacity),
      remembered_tokens_(options_.cache_capacity),
      rejected_tokens_(options_.cache_capacity),
      allowed_(options_.cache_capacity),
      denied_(options_.cache_capacity) {}

std::optional<std::string> Authorizer::RememberedUser(std::string_view token) {
  return remembered_tokens_.Get(TokenKey(token), options_.clock());
}

absl::StatusOr<Authorizer::ReviewLane> Authorizer::LaneOf(std::string_view token) {
  return Lane(token, TokenKey(token), options_.clock());
}

absl::StatusOr<Authorizer::ReviewLane> Authorizer::Lane(std::string_view token,
                                                        const std::string& key, absl::Time now) {
  ReviewLane lane;
  if (options_.verifier != nullptr) {
    TokenCheck check = options_.verifier->Check(token, now);
    switch (check.verdict) {
      case TokenCheck::Verdict::kInvalid:
        return absl::UnauthenticatedError(
            absl::StrCat("the token was rejected without review: ", check.reason));
      case TokenCheck::Verdict::kSigned:
        lane.kind = ReviewLane::Kind::kSigned;
        lane.subject = std::move(check.subject);
        return lane;
      case TokenCheck::Verdict::kNotLocal:
        if (check.unknown_key && options_.unknown_key) options_.unknown_key();
        break;
    }
  }
  if (remembered_tokens_.Get(key, now).has_value()) lane.kind = ReviewLane::Kind::kRemembered;
  return lane;
}

std::optional<absl::StatusOr<UserInfo>> Authorizer::CachedUser(const std::string& key,
                                                               absl::Time now) {
  if (std::optional<UserInfo> cached = tokens_.Get(key, now); cached.has_value()) {
    return absl::StatusOr<UserInfo>(*std::move(cached));
  }
  if (rejected_tokens_.Get(key, now).has_value()) {
    return absl::StatusOr<UserInfo>(absl::UnauthenticatedError(kRejectedToken));
  }
  return std::nullopt;
}

std::optional<absl::StatusOr<UserInfo>> Authorizer::UserFromCache(std::string_view token,
                                                                  const AdmitReview& admit_review) {
  std::string key = TokenKey(token);
  absl::Time now = options_.clock();
  if (std::optional<absl::StatusOr<UserInfo>> cached = CachedUser(key, now); cached.has_value()) {
    return cached;
  }
  absl::StatusOr<ReviewLane> lane = Lane(token, key, now);
  if (!lane.ok()) return absl::StatusOr<UserInfo>(lane.status());
  if (admit_review) {
    if (absl::Status admitted = admit_review(*lane); !admitted.ok()) {
      return absl::StatusOr<UserInfo>(admitted);
    }
  }
  return std::nullopt;
}

absl::StatusOr<UserInfo> Authorizer::Authenticate(std::string_view token,
                                                  const AdmitReview& admit_review) {
  std::string key = TokenKey(token);
  absl::Time now = options_.clock();
  if (std::optional<absl::StatusOr<UserInfo>> cached = CachedUser(key, now); cached.has_value()) {
    return *std::move(cached);
  }
  absl::StatusOr<ReviewLane> lane = Lane(token, key, now);
  if (!lane.ok()) return lane.status();
  if (admit_review) {
    if (absl::Status admitted = admit_review(*lane); !admitted.ok()) return admitted;
  }
  return ReviewToken(token, key, now);
}

absl::StatusOr<UserInfo> Authorizer::ReviewToken(std::string_view token, const std::string& key,
                                                 absl::Time now) {
  if (token_reviews_in_flight_.fetch_add(1) >= options_.max_concurrent_token_reviews) {
    token_reviews_in_flight_.fetch_sub(1);
    return absl::UnavailableError(
        "cannot authenticate: too many TokenReviews in flight on this server; retry");
  }
  absl::StatusOr<UserInfo> user = reviewer_->ReviewToken(token);
  token_reviews_in_flight_.fetch_sub(1);
  if (user.ok() && !user->username.empty()) {
    tokens_.Put(key, *user, now + options_.token_ttl);
    remembered_tokens_.Put(key, user->username, now + options_.remembered_token_ttl);
    return user;
  }
  if (user.ok() || user.status().code() == absl::StatusCode::kUnauthenticated) {
    remembered_tokens_.Erase(key);
    rejected_tokens_.Put(key, true, now + options_.token_ttl);
    return absl::UnauthenticatedError(kRejectedToken);
  }
  // The apiserver's answer stays in informerd's log: callers, who may not
  // be authenticated at all, learn only that the review failed.
  log::Warning("auth", absl::StrCat("TokenReview failed: ", user.status().message()));
  return absl::UnavailableError(
      "cannot authenticate: the TokenReview failed (informerd's log says why); retry");
}

std::optional<bool> Authorizer::CachedDecision(const std::string& key, absl::Time now) {
  if (allowed_.Get(key, now).has_value()) return true;
  if (denied_.Get(key, now).has_value()) return false;
  return std::nullopt;
}

absl::Status Authorizer::Decided(bool allowed, const UserInfo& user,
                                 const ResourceAttributes& attributes) {
  if (allowed) return absl::OkStatus();
  return absl::PermissionDeniedError(DeniedMessage(user, attributes));
}

std::optional<absl::Status> Authorizer::DecisionFromCache(const UserInfo& user,
                                                          const ResourceAttributes& attributes) {
  std::optional<bool> allowed = CachedDecision(DecisionKey(user, attributes), options_.clock());
  if (!allowed.has_value()) return std::nullopt;
  return Decided(*allowed, user, attributes);
}

absl::Status Authorizer::Authorize(const UserInfo& user, const ResourceAttributes& attributes) {
  std::string key = DecisionKey(user, attributes);
  absl::Time now = options_.clock();
  std::optional<bool> allowed = CachedDecision(key, now);
  if (!allowed.has_value()) {
    absl::StatusOr<bool> reviewed = reviewer_->ReviewAccess(user, attributes);
    if (!reviewed.ok()) {
      log::Warning("auth", absl::StrCat("SubjectAccessReview failed: ",
                                        reviewed.status().message()));
      return absl::UnavailableError(
          "cannot authorize: the SubjectAccessReview failed (informerd's log says why); retry");
    }
    allowed = *reviewed;
    (*allowed ? allowed_ : denied_).Put(key, true, now + options_.decision_ttl);
  }
  return Decided(*allowed, user, attributes);
}

}  // namespace informerd::auth
