#include "server/service/crd_schema.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/json/json_parse.h"
#include "server/log/log.h"

namespace informerd::service {
namespace {

bool IsTrue(const rapidjson::Value& schema, const char* member) {
  auto it = schema.FindMember(member);
  return it != schema.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

const rapidjson::Value* Member(const rapidjson::Value& schema, const char* member) {
  auto it = schema.FindMember(member);
  return it == schema.MemberEnd() || !it->value.IsObject() ? nullptr : &it->value;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const CrdSchema>> CrdSchema::FromCrd(std::string_view crd_json,
                                                                    std::string_view version,
                                                                    std::string name) {
  std::shared_ptr<CrdSchema> schema(new CrdSchema());
  schema->name_ = std::move(name);
  if (absl::Status status = json::Parse(crd_json, &schema->document_); !status.ok()) return status;
  const rapidjson::Value& crd = schema->document_;
  if (!crd.IsObject()) return absl::InvalidArgumentError("CustomResourceDefinition: not an object");
  const rapidjson::Value* spec = Member(crd, "spec");
  auto versions = spec == nullptr ? crd.MemberEnd() : spec->FindMember("versions");
  if (spec == nullptr || versions == spec->MemberEnd() || !versions->value.IsArray()) {
    return absl::InvalidArgumentError("CustomResourceDefinition: no spec.versions");
  }
  for (const rapidjson::Value& served : versions->value.GetArray()) {
    if (!served.IsObject()) continue;
    auto it = served.FindMember("name");
    if (it == served.MemberEnd() || !it->value.IsString() ||
        std::string_view(it->value.GetString(), it->value.GetStringLength()) != version) {
      continue;
    }
    const rapidjson::Value* validation = Member(served, "schema");
    const rapidjson::Value* open_api =
        validation == nullptr ? nullptr : Member(*validation, "openAPIV3Schema");
    if (open_api == nullptr) break;
    schema->schema_ = open_api;
    return std::shared_ptr<const CrdSchema>(std::move(schema));
  }
  return absl::NotFoundError(absl::StrCat("CustomResourceDefinition: no openAPIV3Schema for ",
                                          absl::string_view(version.data(), version.size())));
}

absl::Status CrdSchema::CheckPath(std::string_view path) const {
  std::vector<absl::string_view> segments =
      absl::StrSplit(absl::string_view(path.data(), path.size()), '.');
  if (segments[0] == "metadata" || (segments.size() == 1 && (segments[0] == "apiVersion" ||
                                                             segments[0] == "kind"))) {
    return absl::OkStatus();
  }
  const rapidjson::Value* schema = schema_;
  std::string at;  // where in the object the walk is, for the messages
  for (size_t i = 0; i < segments.size(); ++i) {
    // Through arrays, to their elements' schema.
    for (int arrays = 0; schema != nullptr && arrays < 64; ++arrays) {
      const rapidjson::Value* items = Member(*schema, "items");
      if (items == nullptr) break;
      schema = items;
    }
    const std::string segment(segments[i]);
    const rapidjson::Value* properties = Member(*schema, "properties");
    const rapidjson::Value* next = nullptr;
    if (properties != nullptr) {
      auto it = properties->FindMember(segment.c_str());
      if (it != properties->MemberEnd() && it->value.IsObject()) next = &it->value;
    }
    if (next == nullptr) {
      if (IsTrue(*schema, "x-kubernetes-preserve-unknown-fields") ||
          IsTrue(*schema, "additionalProperties")) {
        return absl::OkStatus();
      }
      next = Member(*schema, "additionalProperties");  // a map: any key
    }
    if (next == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("no field \"", segment, "\" in the schema of ",
                                                     name_, at.empty() ? "" : " at ", at));
    }
    absl::StrAppend(&at, at.empty() ? "" : ".", segment);
    schema = next;
  }
  return absl::OkStatus();
}

std::shared_ptr<const CrdSchema> FetchCrdSchema(kube::RestClient& client,
                                                const kube::ResourceInfo& info) {
  // Custom resources' groups have a dot; the built-in ones with a dot
  // (networking.k8s.io, ...) have no CRD and answer 404.
  if (info.group.find('.') == std::string::npos) return nullptr;
  const std::string name = absl::StrCat(info.resource, ".", info.group);
  absl::StatusOr<kube::HttpResponse> response =
      client.Get(absl::StrCat("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/", name));
  if (!response.ok() || response->status != 200) {
    if (response.ok() && response->status == 404) return nullptr;
    log::Warning("upstream",
                 absl::StrCat("field masks of ", name, " are not checked: its "
                              "CustomResourceDefinition could not be read (",
                              response.ok() ? absl::StrCat("HTTP ", response->status)
                                            : response.status().ToString(),
                              ")"));
    return nullptr;
  }
  absl::StatusOr<std::shared_ptr<const CrdSchema>> schema =
      CrdSchema::FromCrd(response->body, info.version, name);
  if (!schema.ok()) {
    log::Warning("upstream", absl::StrCat("field masks of ", name, " are not checked: ",
                                          schema.status().ToString()));
    return nullptr;
  }
  return *std::move(schema);
}

}  // namespace informerd::service
