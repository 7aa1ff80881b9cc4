#include "server/kube/api_status.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace informerd::kube {
namespace {

// The member's text, cut to kMaxApiStatusTextBytes.
std::string StringMember(const rapidjson::Value& object, const char* name) {
  return std::string(json::StringMember(object, name).substr(0, kMaxApiStatusTextBytes));
}

absl::StatusCode CanonicalCode(int http_status) {
  switch (http_status) {
    case 400: return absl::StatusCode::kInvalidArgument;
    case 401: return absl::StatusCode::kUnauthenticated;
    case 403: return absl::StatusCode::kPermissionDenied;
    case 404: return absl::StatusCode::kNotFound;
    case 409: return absl::StatusCode::kAlreadyExists;
    case 410: return absl::StatusCode::kOutOfRange;
    case 422: return absl::StatusCode::kInvalidArgument;
    case 429: return absl::StatusCode::kResourceExhausted;
    case 504: return absl::StatusCode::kDeadlineExceeded;
    default:
      return http_status >= 500 ? absl::StatusCode::kUnavailable
                                : absl::StatusCode::kUnknown;
  }
}

}  // namespace

ApiStatus ApiStatusFromJson(const rapidjson::Value& object) {
  ApiStatus status;
  if (!object.IsObject()) return status;
  auto code = object.FindMember("code");
  if (code != object.MemberEnd() && code->value.IsInt()) {
    status.code = code->value.GetInt();
  }
  status.reason = StringMember(object, "reason");
  status.message = StringMember(object, "message");
  return status;
}

ApiStatus ApiStatusFromResponse(int http_status, std::string_view body) {
  rapidjson::Document document;
  if (json::Parse(body, &document).ok() && document.IsObject() &&
      StringMember(document, "kind") == "Status") {
    ApiStatus status = ApiStatusFromJson(document);
    if (status.code == 0) status.code = http_status;
    return status;
  }
  ApiStatus status;
  status.code = http_status;
  status.message = std::string(body.substr(0, kMaxApiStatusTextBytes));
  return status;
}

bool IsExpired(const ApiStatus& status) {
  return status.code == 410 || status.reason == "Expired" ||
         status.reason == "Gone" ||
         absl::StrContains(status.message, "too old resource version");
}

absl::Status ToStatus(const ApiStatus& status, std::string_view context) {
  std::string message = absl::StrCat(std::string(context), ": HTTP ", status.code);
  if (!status.reason.empty()) absl::StrAppend(&message, " ", status.reason);
  if (!status.message.empty()) absl::StrAppend(&message, ": ", status.message);
  return absl::Status(CanonicalCode(status.code), message);
}

}  // namespace informerd::kube
