#include "server/auth/bearer_token.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace informerd::auth {
namespace {

constexpr std::string_view kScheme = "Bearer";
constexpr const char* kExpected = "send \"authorization: Bearer <token>\" metadata";

absl::Status Unauthenticated(const char* reason) {
  return absl::UnauthenticatedError(absl::StrCat("authorization: ", reason, "; ", kExpected));
}

bool IsVisibleAscii(char c) { return c > 0x20 && c < 0x7f; }

}  // namespace

absl::StatusOr<std::string> BearerTokenFromMetadata(
    const std::vector<std::string_view>& values) {
  if (values.empty()) return Unauthenticated("missing");
  if (values.size() > 1) return Unauthenticated("sent more than once");
  std::string_view value = values.front();
  if (value.size() > kScheme.size() + kMaxBearerTokenBytes + 16) {
    return Unauthenticated("too long");
  }
  if (value.size() <= kScheme.size() ||
      !absl::EqualsIgnoreCase(absl::string_view(value.data(), kScheme.size()),
                              absl::string_view(kScheme.data(), kScheme.size())) ||
      value[kScheme.size()] != ' ') {
    return Unauthenticated("not a Bearer credential");
  }
  std::string_view token = value.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  if (token.empty()) return Unauthenticated("empty token");
  if (token.size() > kMaxBearerTokenBytes) return Unauthenticated("token too long");
  for (char c : token) {
    if (!IsVisibleAscii(c)) {
      return Unauthenticated("the token has a character that is not visible ASCII");
    }
  }
  return std::string(token);
}

}  // namespace informerd::auth
