// Reviewer: asks the authority (the kube-apiserver) who a token belongs to
// and whether that user may do something. Authorizer caches its answers.
#ifndef INFORMERD_SERVER_AUTH_REVIEWER_H_
#define INFORMERD_SERVER_AUTH_REVIEWER_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace informerd::auth {

// A user as the TokenReview describes it.
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// The SubjectAccessReview's resourceAttributes; an empty namespace asks
// about every namespace (the cluster scope).
struct ResourceAttributes {
  std::string verb;  // "list", "get" or "watch"
  std::string group;
  std::string resource;
  std::string namespace_;
  std::string name;  // for "get"
};

// Implementations must be thread-safe.
class Reviewer {
 public:
  virtual ~Reviewer() = default;

  // The token's user; UNAUTHENTICATED when the authority rejects the token,
  // another error (e.g. UNAVAILABLE) when it could not answer.
  virtual absl::StatusOr<UserInfo> ReviewToken(std::string_view token) = 0;

  // Whether `user` may do `attributes`; an error when the authority could
  // not answer.
  virtual absl::StatusOr<bool> ReviewAccess(const UserInfo& user,
                                            const ResourceAttributes& attributes) = 0;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_REVIEWER_H_
