#include "server/auth/review_response.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rapidjson/document.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"

namespace informerd::auth {
namespace {

using json::BoolMember;

// The response's status object, or an error naming the review and the
// HTTP status.
absl::StatusOr<const rapidjson::Value*> ReviewStatus(int http_status, std::string_view body,
                                                     const char* review,
                                                     rapidjson::Document* doc) {
  if (http_status < 200 || http_status >= 300) {
    return absl::UnavailableError(
        absl::StrCat(review, ": HTTP ", http_status, ": ", std::string(body.substr(0, 200))));
  }
  if (!json::Parse(body, doc).ok() || !doc->IsObject() || !doc->HasMember("status") ||
      !(*doc)["status"].IsObject()) {
    return absl::UnavailableError(absl::StrCat(review, ": the response has no status object"));
  }
  return &(*doc)["status"];
}

std::string StringField(const rapidjson::Value& object, const char* name) {
  return std::string(json::StringMember(object, name));
}

std::vector<std::string> Strings(const rapidjson::Value& value) {
  std::vector<std::string> out;
  if (!value.IsArray()) return out;
  for (const auto& item : value.GetArray()) {
    if (item.IsString()) out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

}  // namespace

absl::StatusOr<UserInfo> ParseTokenReviewResponse(int http_status, std::string_view body,
                                                  const std::vector<std::string>& audiences) {
  rapidjson::Document doc;
  absl::StatusOr<const rapidjson::Value*> status =
      ReviewStatus(http_status, body, "TokenReview", &doc);
  if (!status.ok()) return status.status();
  if (!BoolMember(**status, "authenticated")) {
    return absl::UnauthenticatedError(absl::StrCat("TokenReview: not authenticated: ",
                                                   StringField(**status, "error")));
  }
  if (!audiences.empty()) {
    std::vector<std::string> granted;
    if (auto field = (*status)->FindMember("audiences"); field != (*status)->MemberEnd()) {
      granted = Strings(field->value);
    }
    bool intersects = std::any_of(granted.begin(), granted.end(), [&](const std::string& a) {
      return std::find(audiences.begin(), audiences.end(), a) != audiences.end();
    });
    if (!intersects) {
      return absl::UnauthenticatedError(absl::StrCat(
          "TokenReview: the token is not for informerd's audience (",
          absl::StrJoin(audiences, ","), ")"));
    }
  }
  auto user_field = (*status)->FindMember("user");
  if (user_field == (*status)->MemberEnd() || !user_field->value.IsObject()) {
    return absl::UnavailableError("TokenReview: authenticated without status.user");
  }
  const rapidjson::Value& user_json = user_field->value;
  UserInfo user;
  user.username = StringField(user_json, "username");
  user.uid = StringField(user_json, "uid");
  if (auto groups = user_json.FindMember("groups"); groups != user_json.MemberEnd()) {
    user.groups = Strings(groups->value);
  }
  if (auto extra = user_json.FindMember("extra");
      extra != user_json.MemberEnd() && extra->value.IsObject()) {
    for (const auto& entry : extra->value.GetObject()) {
      user.extra[std::string(entry.name.GetString(), entry.name.GetStringLength())] =
          Strings(entry.value);
    }
  }
  if (user.username.empty()) return absl::UnauthenticatedError("TokenReview: no username");
  return user;
}

absl::StatusOr<bool> ParseAccessReviewResponse(int http_status, std::string_view body) {
  rapidjson::Document doc;
  absl::StatusOr<const rapidjson::Value*> status =
      ReviewStatus(http_status, body, "SubjectAccessReview", &doc);
  if (!status.ok()) return status.status();
  return BoolMember(**status, "allowed") && !BoolMember(**status, "denied");
}

}  // namespace informerd::auth
