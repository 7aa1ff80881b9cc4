// ServedResource and ResourceRegistry: the resources this server serves,
// each an Informer fed by its own Reflector, found by their API names.
//
// Thread safety: the registry is filled before serving starts and is
// read-only afterwards; ServedResource members are thread-safe.
#ifndef INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_
#define INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "informerd/v1/informerd.pb.h"
#include "server/cache/object_builder.h"
#include "server/informer/informer.h"
#include "server/kube/discovery.h"
#include "server/kube/reflector.h"

namespace informerd::service {

struct ServedResource {
  kube::ResourceInfo info;
  cache::ObjectSchema schema;
  std::unique_ptr<informer::Informer> informer;
  std::unique_ptr<kube::Reflector> reflector;

  // "configmaps" or "deployments.apps", as kubectl names resources.
  std::string DisplayName() const;
  // Whether field selectors and index lookups may name `field`.
  bool IsSelectableField(std::string_view field) const;
};

class ResourceRegistry {
 public:
  void Add(std::unique_ptr<ServedResource> resource);

  // NOT_FOUND naming the resource and what is served; INVALID_ARGUMENT when
  // `name.resource` is empty or the version does not match the served one.
  absl::StatusOr<ServedResource*> Find(const v1::ResourceName& name) const;

  const std::vector<std::unique_ptr<ServedResource>>& all() const { return resources_; }

  // True when every resource has completed its first list.
  bool AllSynced() const;

 private:
  std::vector<std::unique_ptr<ServedResource>> resources_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_
