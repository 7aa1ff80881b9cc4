// ServedResource and ResourceRegistry: the resources this server serves,
// each an Informer fed by its own Reflector, found by their API names.
//
// A configured resource the API server does not serve yet (a CRD not yet
// installed) is registered as pending: requests for it are UNAVAILABLE, and
// it joins the served resources once discovery finds it.
//
// Thread safety: the registry is thread-safe; a ServedResource is immutable
// once added (its members are thread-safe) and lives as long as the registry.
#ifndef INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_
#define INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "informerd/v1/informerd.pb.h"
#include "server/cache/event_history.h"
#include "server/cache/object_builder.h"
#include "server/config/config.h"
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

// What StartServedResource takes from the server's configuration beyond
// the resource's own entry.
struct ServedResourceOptions {
  cache::HistoryLimits history;
  // ReflectorOptions::streaming_list.
  bool streaming_list = true;
};

// The one assembly of a served resource, for the server and its tests
// alike: the object schema from `wanted` (managedFields cut, dropped fields,
// field indexes) with apiVersion and kind from `info`; an Informer; and a
// Reflector that lists and watches `wanted`'s namespace and selectors
// through `client`, started.
// REQUIRES: *client outlives the result; `info` is what discovery found for
// `wanted`.
std::unique_ptr<ServedResource> StartServedResource(kube::RestClient* client,
                                                    kube::ResourceInfo info,
                                                    const config::ResourceConfig& wanted,
                                                    const ServedResourceOptions& options);

class ResourceRegistry {
 public:
  // Serves `resource`; it stops being pending if it was.
  void Add(std::unique_ptr<ServedResource> resource);

  // Marks `group`/`resource` as configured but not yet discovered.
  void AddPending(const std::string& group, const std::string& resource);

  // NOT_FOUND naming the resource and what is served; UNAVAILABLE for a
  // pending resource; INVALID_ARGUMENT when `name.resource` is empty or the
  // version does not match the served one.
  absl::StatusOr<ServedResource*> Find(const v1::ResourceName& name) const;

  // The served resources, in the order added.
  std::vector<ServedResource*> all() const;
  // Pending resources as "resource" or "resource.group".
  std::vector<std::string> pending() const;

  // True when nothing is pending and every resource completed its first list.
  bool AllSynced() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<ServedResource>> resources_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, std::string>> pending_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_
