#include "server/service/served_resource.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/kube/resource_name.h"

namespace informerd::service {

std::string ServedResource::DisplayName() const {
  return kube::KubectlName(info.group, info.resource);
}

bool ServedResource::IsSelectableField(std::string_view field) const {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  return std::binary_search(schema.field_indexes.begin(), schema.field_indexes.end(), field);
}

std::unique_ptr<ServedResource> StartServedResource(kube::RestClient* client,
                                                    kube::ResourceInfo info,
                                                    const config::ResourceConfig& wanted,
                                                    const ServedResourceOptions& options) {
  auto served = std::make_unique<ServedResource>();
  served->info = std::move(info);
  served->schema.api_version = served->info.group.empty()
                                   ? served->info.version
                                   : absl::StrCat(served->info.group, "/", served->info.version);
  served->schema.kind = served->info.kind;
  served->schema.strip_managed_fields = wanted.strip_managed_fields;
  served->schema.drop_fields = wanted.drop_fields;
  served->schema.field_indexes = wanted.field_indexes;
  cache::NormalizeSchema(&served->schema);
  informer::InformerOptions informer_options;
  informer_options.schema = served->schema;
  informer_options.history = options.history;
  served->informer = std::make_unique<informer::Informer>(std::move(informer_options));
  kube::ReflectorOptions reflector_options;
  reflector_options.namespace_name = wanted.namespace_;
  reflector_options.label_selector = wanted.label_selector;
  reflector_options.field_selector = wanted.field_selector;
  reflector_options.cut_managed_fields_from_lists = wanted.strip_managed_fields;
  reflector_options.streaming_list = options.streaming_list;
  served->reflector = std::make_unique<kube::Reflector>(client, served->info, reflector_options,
                                                        served->informer.get());
  served->reflector->Start();
  return served;
}

void ResourceRegistry::Add(std::unique_ptr<ServedResource> resource) {
  absl::MutexLock lock(&mu_);
  pending_.erase(std::remove(pending_.begin(), pending_.end(),
                             std::make_pair(resource->info.group, resource->info.resource)),
                 pending_.end());
  resources_.push_back(std::move(resource));
}

void ResourceRegistry::AddPending(const std::string& group, const std::string& resource) {
  absl::MutexLock lock(&mu_);
  pending_.emplace_back(group, resource);
}

absl::StatusOr<ServedResource*> ResourceRegistry::Find(const v1::ResourceName& name) const {
  if (name.resource().empty()) {
    return absl::InvalidArgumentError("resource.resource: required (e.g. \"pods\")");
  }
  absl::MutexLock lock(&mu_);
  for (const auto& served : resources_) {
    if (served->info.resource != name.resource() || served->info.group != name.group()) continue;
    if (!name.version().empty() && name.version() != served->info.version) {
      return absl::InvalidArgumentError(
          absl::StrCat("resource.version: ", served->DisplayName(), " is served at version ",
                       served->info.version, ", not ", name.version()));
    }
    return served.get();
  }
  std::string requested = kube::KubectlName(name.group(), name.resource());
  for (const auto& [group, resource] : pending_) {
    if (group == name.group() && resource == name.resource()) {
      return absl::UnavailableError(absl::StrCat(
          "resource ", requested,
          " is configured but the API server does not serve it yet (is its "
          "CustomResourceDefinition installed?); informerd serves it once it appears"));
    }
  }
  std::vector<std::string> names;
  for (const auto& served : resources_) names.push_back(served->DisplayName());
  return absl::NotFoundError(absl::StrCat("resource ", requested, " is not served; served: ",
                                          absl::StrJoin(names, ", ")));
}

std::vector<ServedResource*> ResourceRegistry::all() const {
  absl::MutexLock lock(&mu_);
  std::vector<ServedResource*> all;
  for (const auto& served : resources_) all.push_back(served.get());
  return all;
}

std::vector<std::string> ResourceRegistry::pending() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [group, resource] : pending_) names.push_back(kube::KubectlName(group, resource));
  return names;
}

bool ResourceRegistry::AllSynced() const {
  absl::MutexLock lock(&mu_);
  return pending_.empty() &&
         std::all_of(resources_.begin(), resources_.end(),
                     [](const auto& served) { return served->informer->synced(); });
}

}  // namespace informerd::service
