#include "server/auth/kube_reviewer.h"
#include "server/json/json_members.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace informerd::auth {
namespace {

constexpr char kTokenReviewPath[] = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr char kAccessReviewPath[] = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Key(Writer& writer, std::string_view key) {
  writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void String(Writer& writer, std::string_view value) {
  writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void Member(Writer& writer, std::string_view key, std::string_view value) {
  Key(writer, key);
  String(writer, value);
}

// The response's status object, or an error naming the review and the
// HTTP status.
absl::StatusOr<const rapidjson::Value*> ReviewStatus(const kube::HttpResponse& response,
                                                     const char* review,
                                                     rapidjson::Document* doc) {
  if (response.status < 200 || response.status >= 300) {
    return absl::UnavailableError(absl::StrCat(review, ": HTTP ", response.status, ": ",
                                               response.body.substr(0, 200)));
  }
  doc->Parse(response.body.data(), response.body.size());
  if (doc->HasParseError() || !doc->IsObject() || !doc->HasMember("status") ||
      !(*doc)["status"].IsObject()) {
    return absl::UnavailableError(absl::StrCat(review, ": the response has no status object"));
  }
  return &(*doc)["status"];
}

std::string StringField(const rapidjson::Value& object, const char* name) {
  return std::string(json::StringMember(object, name));
}

using json::BoolMember;

std::vector<std::string> Strings(const rapidjson::Value& value) {
  std::vector<std::string> out;
  if (!value.IsArray()) return out;
  for (const auto& item : value.GetArray()) {
    if (item.IsString()) out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

// POSTs a review ({apiVersion, kind, spec}, the spec's members written by
// `write_spec`) to `path`; the response's status object, or an error naming
// the review kind.
absl::StatusOr<const rapidjson::Value*> PostReview(
    kube::RestClient* client, const char* path, std::string_view api_version, const char* kind,
    absl::FunctionRef<void(Writer&)> write_spec, rapidjson::Document* doc) {
  rapidjson::StringBuffer body;
  Writer writer(body);
  writer.StartObject();
  Member(writer, "apiVersion", api_version);
  Member(writer, "kind", kind);
  Key(writer, "spec");
  writer.StartObject();
  write_spec(writer);
  writer.EndObject();
  writer.EndObject();
  absl::StatusOr<kube::HttpResponse> response =
      client->Post(path, body.GetString(), "application/json");
  if (!response.ok()) {
    return absl::UnavailableError(absl::StrCat(kind, ": ", response.status().message()));
  }
  return ReviewStatus(*response, kind, doc);
}

}  // namespace

absl::StatusOr<UserInfo> KubeReviewer::ReviewToken(std::string_view token) {
  rapidjson::Document doc;
  absl::StatusOr<const rapidjson::Value*> status = PostReview(
      client_, kTokenReviewPath, "authentication.k8s.io/v1", "TokenReview",
      [&](Writer& writer) {
        Member(writer, "token", token);
        if (!audiences_.empty()) {
          Key(writer, "audiences");
          writer.StartArray();
          for (const std::string& audience : audiences_) String(writer, audience);
          writer.EndArray();
        }
      },
      &doc);
  if (!status.ok()) return status.status();
  if (!BoolMember(**status, "authenticated")) {
    return absl::UnauthenticatedError(absl::StrCat("TokenReview: not authenticated: ",
                                                   StringField(**status, "error")));
  }
  if (!audiences_.empty()) {
    // An apiserver that ignored spec.audiences (or answers for another
    // audience) must not let the token through.
    std::vector<std::string> granted;
    if (auto field = (*status)->FindMember("audiences"); field != (*status)->MemberEnd()) {
      granted = Strings(field->value);
    }
    bool intersects = std::any_of(granted.begin(), granted.end(), [&](const std::string& a) {
      return std::find(audiences_.begin(), audiences_.end(), a) != audiences_.end();
    });
    if (!intersects) {
      return absl::UnauthenticatedError(absl::StrCat(
          "TokenReview: the token is not for informerd's audience (", absl::StrJoin(audiences_, ","),
          ")"));
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

absl::StatusOr<bool> KubeReviewer::ReviewAccess(const UserInfo& user,
                                                const ResourceAttributes& attributes) {
  rapidjson::Document doc;
  absl::StatusOr<const rapidjson::Value*> status = PostReview(
      client_, kAccessReviewPath, "authorization.k8s.io/v1", "SubjectAccessReview",
      [&](Writer& writer) {
        Key(writer, "resourceAttributes");
        writer.StartObject();
        Member(writer, "verb", attributes.verb);
        Member(writer, "group", attributes.group);
        Member(writer, "resource", attributes.resource);
        if (!attributes.namespace_.empty()) Member(writer, "namespace", attributes.namespace_);
        if (!attributes.name.empty()) Member(writer, "name", attributes.name);
        writer.EndObject();
        Member(writer, "user", user.username);
        if (!user.uid.empty()) Member(writer, "uid", user.uid);
        Key(writer, "groups");
        writer.StartArray();
        for (const std::string& group : user.groups) String(writer, group);
        writer.EndArray();
        Key(writer, "extra");
        writer.StartObject();
        for (const auto& [name, values] : user.extra) {
          Key(writer, name);
          writer.StartArray();
          for (const std::string& value : values) String(writer, value);
          writer.EndArray();
        }
        writer.EndObject();
      },
      &doc);
  if (!status.ok()) return status.status();
  return BoolMember(**status, "allowed") && !BoolMember(**status, "denied");
}

}  // namespace informerd::auth
