// ServedResource and ResourceRegistry: the resources this server serves,
// each an Informer fed by its own upstream reader, found by their API names.
//
// The upstream is the kube-apiserver (ApiServerUpstream: discovery and a
// Reflector) or, in a tier, another informerd (tier::InformerdUpstream:
// its ListResources and Watch); both are an Upstream, so the assembly and
// the registry are the same for either.
//
// The registry owns discovery and readiness: Start discovers and serves the
// configured resources. One the API server does not serve yet (a CRD not
// yet installed) is pending: requests for it are UNAVAILABLE, and it joins
// the served resources once rediscovery finds it. OnReady is signalled
// (not polled) when nothing is pending and every resource has synced.
//
// Thread safety: the registry is thread-safe; a ServedResource is immutable
// once added (its members are thread-safe) and lives as long as the registry.
#ifndef INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_
#define INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.pb.h"
#include "server/cache/event_history.h"
#include "server/cache/object_builder.h"
#include "server/config/config.h"
#include "server/informer/informer.h"
#include "server/kube/discovery.h"
#include "server/kube/reflector.h"
#include "server/kube/upstream_reader.h"
#include "server/service/crd_schema.h"
#include "server/service/history_backfill.h"

namespace informerd::service {

struct ServedResource {
  kube::ResourceInfo info;
  cache::ObjectSchema schema;
  std::unique_ptr<informer::Informer> informer;
  // A kube::Reflector or a tier::InformerdReader.
  std::unique_ptr<kube::UpstreamReader> reflector;
  // Null when backfills are off or the upstream has none; destroyed before
  // the informer it fills.
  std::unique_ptr<HistoryBackfill> backfill;
  // A custom resource's openAPIV3Schema, for checking field masks; null
  // for built-in kinds and when the upstream has none to give.
  std::shared_ptr<const CrdSchema> crd_schema;

  // "configmaps" or "deployments.apps", as kubectl names resources.
  std::string DisplayName() const;
  // Whether field selectors and index lookups may name `field`.
  bool IsSelectableField(std::string_view field) const;
};

// What StartServedResource takes from the server's configuration beyond
// the resource's own entry.
struct ServedResourceOptions {
  cache::HistoryLimits history;
  // How an ApiServerUpstream's readers get the state (UpstreamList).
  config::UpstreamList upstream_list = config::UpstreamList::kAuto;
  // Watchers resuming from before the history get it from the API server
  // (HistoryBackfill) instead of OUT_OF_RANGE.
  bool history_backfill = true;
};

// Where served resources come from. Implementations are thread-safe.
class Upstream {
 public:
  virtual ~Upstream() = default;

  // What the upstream serves for `wanted`: NOT_FOUND when it does not serve
  // it (yet), UNAVAILABLE (or DEADLINE_EXCEEDED) when it cannot tell now.
  virtual absl::StatusOr<kube::ResourceInfo> Discover(const config::ResourceConfig& wanted) = 0;

  // A reader, not started, that keeps `sink` in step with `info` restricted
  // as `wanted` says (namespace, selectors).
  // REQUIRES: *sink outlives the reader.
  virtual std::unique_ptr<kube::UpstreamReader> NewReader(const kube::ResourceInfo& info,
                                                          const config::ResourceConfig& wanted,
                                                          const ServedResourceOptions& options,
                                                          kube::ListWatchSink* sink) = 0;

  // What fetches the past before `target`'s history from the upstream (see
  // HistoryBackfill), or null when this upstream cannot: a root informerd
  // has no older history to give than its own.
  // REQUIRES: *target outlives the result.
  virtual std::unique_ptr<HistoryBackfill> NewBackfill(
      const kube::ResourceInfo& info, const config::ResourceConfig& wanted,
      const ServedResourceOptions& options, const informer::InformerOptions& informer_options,
      informer::Informer* target) {
    return nullptr;
  }

  // The schema of `info`'s custom resource (see CrdSchema), or null: a
  // built-in kind, or an upstream that cannot tell (a root informerd).
  virtual std::shared_ptr<const CrdSchema> CustomResourceSchema(const kube::ResourceInfo& info) {
    return nullptr;
  }
};

// The kube-apiserver: discovery documents and a Reflector. Asks the server
// its version once, the first time an UpstreamList::kAuto reader needs it.
class ApiServerUpstream : public Upstream {
 public:
  // REQUIRES: *client outlives this and every reader it makes.
  explicit ApiServerUpstream(kube::RestClient* client) : client_(client) {}

  absl::StatusOr<kube::ResourceInfo> Discover(const config::ResourceConfig& wanted) override;
  std::unique_ptr<kube::UpstreamReader> NewReader(const kube::ResourceInfo& info,
                                                  const config::ResourceConfig& wanted,
                                                  const ServedResourceOptions& options,
                                                  kube::ListWatchSink* sink) override;
  std::unique_ptr<HistoryBackfill> NewBackfill(const kube::ResourceInfo& info,
                                               const config::ResourceConfig& wanted,
                                               const ServedResourceOptions& options,
                                               const informer::InformerOptions& informer_options,
                                               informer::Informer* target) override;
  std::shared_ptr<const CrdSchema> CustomResourceSchema(const kube::ResourceInfo& info) override;

 private:
  kube::ReflectorOptions ReflectorOptionsFor(const config::ResourceConfig& wanted,
                                             const ServedResourceOptions& options);
  // Whether readers start with a streaming list, for `mode`. For kAuto,
  // asks the server's version (a blocking GET) until one answer decides.
  bool StreamingList(config::UpstreamList mode) ABSL_LOCKS_EXCLUDED(mutex_);

  kube::RestClient* const client_;
  absl::Mutex mutex_;
  // kAuto's choice, once the server's version was read.
  std::optional<bool> auto_streaming_list_ ABSL_GUARDED_BY(mutex_);
};

// The one assembly of a served resource, for the server and its tests
// alike: the object schema from `wanted` (managedFields cut, dropped fields,
// field indexes) with apiVersion and kind from `info`; an Informer; and
// `upstream`'s reader for `wanted`'s namespace and selectors, started.
// REQUIRES: `info` is what upstream->Discover found for `wanted`; the
// readers of `upstream` may outlive it (see NewReader).
std::unique_ptr<ServedResource> StartServedResource(Upstream* upstream, kube::ResourceInfo info,
                                                    const config::ResourceConfig& wanted,
                                                    const ServedResourceOptions& options);

// The same with the kube-apiserver behind `client` as the upstream.
// REQUIRES: *client outlives the result.
std::unique_ptr<ServedResource> StartServedResource(kube::RestClient* client,
                                                    kube::ResourceInfo info,
                                                    const config::ResourceConfig& wanted,
                                                    const ServedResourceOptions& options);

// How ResourceRegistry::Start discovers and serves resources.
struct RegistryOptions {
  ServedResourceOptions resource;
  // Discovery failures that may pass (UNAVAILABLE, DEADLINE_EXCEEDED) are
  // retried this long at start-up.
  absl::Duration discovery_retry_for = absl::Minutes(2);
  // How often pending resources are looked up again.
  absl::Duration rediscovery_interval = absl::Seconds(5);
};

// INVALID_ARGUMENT naming the field when `name` cannot name a Kubernetes
// resource: no resource, or a part longer than Kubernetes allows.
absl::Status CheckResourceName(const v1::ResourceName& name);

class ResourceRegistry {
 public:
  ResourceRegistry() = default;
  ResourceRegistry(const ResourceRegistry&) = delete;
  ResourceRegistry& operator=(const ResourceRegistry&) = delete;
  // Stop().
  ~ResourceRegistry();

  // Calls `on_ready` once, when at least one resource is served, nothing is
  // pending and every resource has completed its first list; at once if
  // that is already so. It runs on the
  // thread that completed the last list (or the caller's), with no lock
  // held. REQUIRES: called at most once.
  void OnReady(std::function<void()> on_ready);

  // Discovers each of `resources` on `upstream` and serves it
  // (StartServedResource). A resource the upstream does not serve is
  // pending and looked up again every options.rediscovery_interval until it
  // is. A discovery that fails otherwise, after retries for the transient
  // failures, is returned naming the resource.
  // REQUIRES: *upstream outlives the registry; called at most once.
  absl::Status Start(Upstream* upstream, const std::vector<config::ResourceConfig>& resources,
                     const RegistryOptions& options);

  // Ends rediscovery and stops every resource's Reflector. Idempotent.
  void Stop();

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
  bool AllSyncedLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Runs on_ready_ if the registry has just become ready.
  void CheckReady() ABSL_LOCKS_EXCLUDED(mu_);
  void Rediscover(Upstream* upstream, std::vector<config::ResourceConfig> pending,
                  RegistryOptions options);

  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<ServedResource>> resources_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, std::string>> pending_ ABSL_GUARDED_BY(mu_);
  std::function<void()> on_ready_ ABSL_GUARDED_BY(mu_);
  bool ready_signalled_ ABSL_GUARDED_BY(mu_) = false;

  absl::Notification stopping_;
  std::thread rediscoverer_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_SERVED_RESOURCE_H_
