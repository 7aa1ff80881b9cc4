#include "server/auth/authorizer.h"

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
      decisions_(options_.cache_capacity) {}

absl::StatusOr<UserInfo> Authorizer::Authenticate(std::string_view token) {
  std::string key(token);
  absl::Time now = options_.clock();
  if (std::optional<UserInfo> cached = tokens_.Get(key, now); cached.has_value()) {
    if (cached->username.empty()) return absl::UnauthenticatedError(kRejectedToken);
    return *std::move(cached);
  }
  absl::StatusOr<UserInfo> user = reviewer_->ReviewToken(token);
  if (user.ok() && !user->username.empty()) {
    tokens_.Put(key, *user, now + options_.token_ttl);
    return user;
  }
  if (user.ok() || user.status().code() == absl::StatusCode::kUnauthenticated) {
    tokens_.Put(key, UserInfo{}, now + options_.token_ttl);
    return absl::UnauthenticatedError(kRejectedToken);
  }
  // The apiserver's answer stays in informerd's log: callers, who may not
  // be authenticated at all, learn only that the review failed.
  log::Warning("auth", absl::StrCat("TokenReview failed: ", user.status().message()));
  return absl::UnavailableError(
      "cannot authenticate: the TokenReview failed (informerd's log says why); retry");
}

absl::Status Authorizer::Authorize(const UserInfo& user, const ResourceAttributes& attributes) {
  std::string key = DecisionKey(user, attributes);
  absl::Time now = options_.clock();
  std::optional<bool> allowed = decisions_.Get(key, now);
  if (!allowed.has_value()) {
    absl::StatusOr<bool> reviewed = reviewer_->ReviewAccess(user, attributes);
    if (!reviewed.ok()) {
      log::Warning("auth", absl::StrCat("SubjectAccessReview failed: ",
                                        reviewed.status().message()));
      return absl::UnavailableError(
          "cannot authorize: the SubjectAccessReview failed (informerd's log says why); retry");
    }
    allowed = *reviewed;
    decisions_.Put(key, *allowed, now + options_.decision_ttl);
  }
  if (*allowed) return absl::OkStatus();
  return absl::PermissionDeniedError(DeniedMessage(user, attributes));
}

}  // namespace informerd::auth
