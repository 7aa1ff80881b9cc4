#include "server/service/continue_token.h"

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "server/cache/resource_version.h"

namespace informerd::service {
namespace {

constexpr std::string_view kPrefix = "i1:";

absl::Status Malformed(const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("continue_token: ", why));
}

}  // namespace

std::string EncodeContinueToken(const ContinuePoint& point) {
  return absl::WebSafeBase64Escape(
      absl::StrCat(std::string(kPrefix), point.resource_version, ":", point.last_key));
}

absl::StatusOr<ContinuePoint> DecodeContinueToken(std::string_view token) {
  if (token.size() > kMaxContinueTokenBytes) {
    return Malformed(absl::StrCat("longer than ", kMaxContinueTokenBytes, " bytes"));
  }
  std::string decoded;
  if (!absl::WebSafeBase64Unescape(absl::string_view(token.data(), token.size()), &decoded)) {
    return Malformed("not a token this server issued (bad encoding)");
  }
  std::string_view text = decoded;
  if (text.substr(0, kPrefix.size()) != kPrefix) {
    return Malformed("not a token this server issued (bad prefix)");
  }
  text.remove_prefix(kPrefix.size());
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return Malformed("not a token this server issued");
  std::optional<uint64_t> version = cache::ParseResourceVersion(text.substr(0, colon));
  if (!version.has_value() || *version == 0) return Malformed("bad resource version");
  std::string_view key = text.substr(colon + 1);
  if (key.empty()) return Malformed("empty key");
  return ContinuePoint{*version, std::string(key)};
}

}  // namespace informerd::service
