#include "server/kube/discovery.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rapidjson/document.h"
#include "server/json/json_parse.h"
#include "server/kube/api_status.h"
#include "server/kube/url_query.h"
#include "server/json/json_members.h"

namespace informerd::kube {
namespace {

// "deployments.v1.apps", kubectl's fully qualified spelling.
std::string QualifiedName(std::string_view group, std::string_view version,
                          std::string_view resource) {
  std::string name(resource);
  if (!version.empty()) name.append(".").append(version);
  if (!group.empty()) name.append(".").append(group);
  return name;
}

absl::Status NotServed(std::string_view group, std::string_view version,
                       std::string_view resource) {
  return absl::NotFoundError(
      absl::StrCat("resource ", QualifiedName(group, version, resource),
                   " not served by the API server"));
}

using json::ArrayMember;
using json::StringMember;

// GETs a discovery document. A 404 yields `not_found`.
absl::StatusOr<rapidjson::Document> GetDocument(DiscoveryGet get,
                                                const std::string& path,
                                                const absl::Status& not_found) {
  absl::StatusOr<HttpResponse> response = get(path);
  if (!response.ok()) return response.status();
  if (response->status == 404) return not_found;
  if (response->status != 200) {
    return ToStatus(ApiStatusFromResponse(response->status, response->body),
                    absl::StrCat("discovery GET ", path));
  }
  rapidjson::Document document;
  if (absl::Status parsed = json::Parse(response->body, &document);
      !parsed.ok() || !document.IsObject()) {
    return absl::DataLossError(absl::StrCat("discovery GET ", path,
                                            ": response is not a JSON object",
                                            parsed.ok() ? "" : absl::StrCat(" (", parsed.message(), ")")));
  }
  return document;
}

// The version to use for `group`: `version` if the group serves it, else
// the preferred one when `version` is empty.
absl::StatusOr<std::string> ResolveVersion(DiscoveryGet get,
                                           std::string_view group,
                                           std::string_view version,
                                           std::string_view resource) {
  const absl::Status not_served = NotServed(group, version, resource);
  if (group.empty()) {
    absl::StatusOr<rapidjson::Document> api =
        GetDocument(get, "/api", not_served);
    if (!api.ok()) return api.status();
    const rapidjson::Value* versions = ArrayMember(*api, "versions");
    if (versions == nullptr) {
      return absl::DataLossError("discovery GET /api: no versions list");
    }
    for (const rapidjson::Value& served : versions->GetArray()) {
      if (!served.IsString()) continue;
      const std::string_view name(served.GetString(),
                                  served.GetStringLength());
      if (version.empty() || name == version) return std::string(name);
    }
    return not_served;
  }
  absl::StatusOr<rapidjson::Document> apis =
      GetDocument(get, "/apis", not_served);
  if (!apis.ok()) return apis.status();
  const rapidjson::Value* groups = ArrayMember(*apis, "groups");
  if (groups == nullptr) {
    return absl::DataLossError("discovery GET /apis: no groups list");
  }
  for (const rapidjson::Value& entry : groups->GetArray()) {
    if (StringMember(entry, "name") != group) continue;
    if (version.empty()) {
      auto preferred = entry.FindMember("preferredVersion");
      if (preferred != entry.MemberEnd()) {
        const std::string_view name =
            StringMember(preferred->value, "version");
        if (!name.empty()) return std::string(name);
      }
    }
    const rapidjson::Value* versions = ArrayMember(entry, "versions");
    if (versions == nullptr) return not_served;
    for (const rapidjson::Value& served : versions->GetArray()) {
      const std::string_view name = StringMember(served, "version");
      if (!name.empty() && (version.empty() || name == version)) {
        return std::string(name);
      }
    }
    return not_served;
  }
  return not_served;
}

// Whether `name` can be an API version ("v1", "v2beta1"): a DNS-1035 label,
// as Kubernetes requires of every group version. The version goes into
// every list and watch URL unescaped, so nothing else is taken from the
// server.
bool IsVersionName(std::string_view name) {
  if (name.empty() || name.size() > 63 || name.front() < 'a' || name.front() > 'z' ||
      name.back() == '-') {
    return false;
  }
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

bool HasVerb(const ResourceInfo& info, std::string_view verb) {
  return std::find(info.verbs.begin(), info.verbs.end(), verb) !=
         info.verbs.end();
}

}  // namespace

absl::StatusOr<ResourceInfo> DiscoverFrom(DiscoveryGet get,
                                          std::string_view group,
                                          std::string_view version,
                                          std::string_view resource) {
  absl::StatusOr<std::string> resolved =
      ResolveVersion(get, group, version, resource);
  if (!resolved.ok()) return resolved.status();
  if (!IsVersionName(*resolved)) {
    return absl::DataLossError(absl::StrCat(
        "discovery: the API server's version for ",
        QualifiedName(group, "", resource), " is not a DNS label"));
  }

  const std::string path =
      group.empty() ? absl::StrCat("/api/", *resolved)
                    : absl::StrCat("/apis/", std::string(group), "/", *resolved);
  const absl::Status not_served = NotServed(group, *resolved, resource);
  absl::StatusOr<rapidjson::Document> list =
      GetDocument(get, path, not_served);
  if (!list.ok()) return list.status();
  const rapidjson::Value* resources = ArrayMember(*list, "resources");
  if (resources == nullptr) {
    return absl::DataLossError(
        absl::StrCat("discovery GET ", path, ": no resources list"));
  }
  for (const rapidjson::Value& entry : resources->GetArray()) {
    if (StringMember(entry, "name") != resource) continue;
    ResourceInfo info;
    info.group = std::string(group);
    info.version = *resolved;
    info.resource = std::string(resource);
    info.kind = std::string(StringMember(entry, "kind"));
    auto namespaced = entry.FindMember("namespaced");
    info.namespaced = namespaced != entry.MemberEnd() &&
                      namespaced->value.IsBool() &&
                      namespaced->value.GetBool();
    if (const rapidjson::Value* verbs = ArrayMember(entry, "verbs")) {
      for (const rapidjson::Value& verb : verbs->GetArray()) {
        if (verb.IsString()) info.verbs.emplace_back(verb.GetString());
      }
    }
    if (!HasVerb(info, "list") || !HasVerb(info, "watch")) {
      return absl::FailedPreconditionError(absl::StrCat(
          "resource ", QualifiedName(group, *resolved, resource),
          " cannot be listed and watched (verbs: ",
          absl::StrJoin(info.verbs, ", "), ")"));
    }
    return info;
  }
  return not_served;
}

std::string CollectionPath(const ResourceInfo& info,
                           std::string_view namespace_) {
  std::string path = info.group.empty()
                         ? absl::StrCat("/api/", info.version)
                         : absl::StrCat("/apis/", info.group, "/",
                                        info.version);
  if (info.namespaced && !namespace_.empty()) {
    absl::StrAppend(&path, "/namespaces/", EscapeQueryValue(namespace_));
  }
  absl::StrAppend(&path, "/", info.resource);
  return path;
}

namespace {

// The leading decimal digits of member `name`, a string, as a number.
absl::StatusOr<int> VersionNumber(const rapidjson::Document& document, const char* name) {
  const std::string_view text = StringMember(document, name);
  int number = 0;
  size_t digits = 0;
  while (digits < text.size() && digits < 6 && text[digits] >= '0' && text[digits] <= '9') {
    number = number * 10 + (text[digits] - '0');
    ++digits;
  }
  if (digits == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "/version: ", name, " is \"", std::string(text.substr(0, 32)), "\", not a number"));
  }
  return number;
}

}  // namespace

absl::StatusOr<ServerVersion> ParseServerVersion(std::string_view body) {
  rapidjson::Document document;
  if (!json::Parse(body, &document).ok() || !document.IsObject()) {
    return absl::InvalidArgumentError("/version: the response is not a JSON object");
  }
  absl::StatusOr<int> major = VersionNumber(document, "major");
  if (!major.ok()) return major.status();
  absl::StatusOr<int> minor = VersionNumber(document, "minor");
  if (!minor.ok()) return minor.status();
  return ServerVersion{*major, *minor};
}

absl::StatusOr<ServerVersion> ServerVersionFrom(const absl::StatusOr<HttpResponse>& response) {
  if (!response.ok()) return response.status();
  if (response->status != 200) {
    return ToStatus(ApiStatusFromResponse(response->status, response->body), "GET /version");
  }
  return ParseServerVersion(response->body);
}

}  // namespace informerd::kube
