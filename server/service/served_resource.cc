#include "server/service/served_resource.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace informerd::service {

std::string ServedResource::DisplayName() const {
  return info.group.empty() ? info.resource : absl::StrCat(info.resource, ".", info.group);
}

bool ServedResource::IsSelectableField(std::string_view field) const {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  return std::binary_search(schema.field_indexes.begin(), schema.field_indexes.end(), field);
}

void ResourceRegistry::Add(std::unique_ptr<ServedResource> resource) {
  resources_.push_back(std::move(resource));
}

absl::StatusOr<ServedResource*> ResourceRegistry::Find(const v1::ResourceName& name) const {
  if (name.resource().empty()) {
    return absl::InvalidArgumentError("resource.resource: required (e.g. \"pods\")");
  }
  for (const auto& served : resources_) {
    if (served->info.resource != name.resource() || served->info.group != name.group()) continue;
    if (!name.version().empty() && name.version() != served->info.version) {
      return absl::InvalidArgumentError(
          absl::StrCat("resource.version: ", served->DisplayName(), " is served at version ",
                       served->info.version, ", not ", name.version()));
    }
    return served.get();
  }
  std::vector<std::string> names;
  for (const auto& served : resources_) names.push_back(served->DisplayName());
  std::string requested =
      name.group().empty() ? name.resource() : absl::StrCat(name.resource(), ".", name.group());
  return absl::NotFoundError(absl::StrCat("resource ", requested, " is not served; served: ",
                                          absl::StrJoin(names, ", ")));
}

bool ResourceRegistry::AllSynced() const {
  return std::all_of(resources_.begin(), resources_.end(),
                     [](const auto& served) { return served->informer->synced(); });
}

}  // namespace informerd::service
