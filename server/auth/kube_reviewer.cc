#include "server/auth/kube_reviewer.h"

#include <string>

#include "absl/status/status.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "server/auth/review_response.h"

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

// POSTs a review ({apiVersion, kind, spec}, the spec's members written by
// `write_spec`) to `path`; the response, or an error naming the review kind.
absl::StatusOr<kube::HttpResponse> PostReview(kube::RestClient* client, const char* path,
                                              std::string_view api_version, const char* kind,
                                              absl::FunctionRef<void(Writer&)> write_spec) {
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
  return response;
}

}  // namespace

absl::StatusOr<UserInfo> KubeReviewer::ReviewToken(std::string_view token) {
  absl::StatusOr<kube::HttpResponse> response =
      PostReview(client_, kTokenReviewPath, "authentication.k8s.io/v1", "TokenReview",
                 [&](Writer& writer) {
                   Member(writer, "token", token);
                   if (!audiences_.empty()) {
                     Key(writer, "audiences");
                     writer.StartArray();
                     for (const std::string& audience : audiences_) String(writer, audience);
                     writer.EndArray();
                   }
                 });
  if (!response.ok()) return response.status();
  return ParseTokenReviewResponse(response->status, response->body, audiences_);
}

absl::StatusOr<bool> KubeReviewer::ReviewAccess(const UserInfo& user,
                                                const ResourceAttributes& attributes) {
  absl::StatusOr<kube::HttpResponse> response = PostReview(
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
      });
  if (!response.ok()) return response.status();
  return ParseAccessReviewResponse(response->status, response->body);
}

}  // namespace informerd::auth
