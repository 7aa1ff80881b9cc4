#include "server/service/served_resource.h"

#include <algorithm>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/kube/resource_name.h"
#include "server/log/log.h"

namespace informerd::service {
namespace {

constexpr std::string_view kUpstreamComponent = "upstream";

}  // namespace

std::string ServedResource::DisplayName() const {
  return kube::KubectlName(info.group, info.resource);
}

bool ServedResource::IsSelectableField(std::string_view field) const {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  return std::binary_search(schema.field_indexes.begin(), schema.field_indexes.end(), field);
}

absl::StatusOr<kube::ResourceInfo> ApiServerUpstream::Discover(
    const config::ResourceConfig& wanted) {
  return kube::Discover(*client_, wanted.group, wanted.version, wanted.resource);
}

std::shared_ptr<const CrdSchema> ApiServerUpstream::CustomResourceSchema(
    const kube::ResourceInfo& info) {
  return FetchCrdSchema(*client_, info);
}

bool ApiServerUpstream::StreamingList(config::UpstreamList mode) {
  switch (mode) {
    case config::UpstreamList::kStream:
      return true;
    case config::UpstreamList::kPaged:
      return false;
    case config::UpstreamList::kAuto:
      break;
  }
  absl::MutexLock lock(&mutex_);
  if (auto_streaming_list_.has_value()) return *auto_streaming_list_;
  absl::StatusOr<kube::ServerVersion> version = kube::GetServerVersion(*client_);
  if (!version.ok()) {
    // Works on every version (where it is refused, its fallback lists);
    // the next reader asks again, so a passing failure does not decide for
    // the life of the process.
    log::Warning(kUpstreamComponent,
                 absl::StrCat("upstream lists: streaming for now (--upstream-list=auto; the "
                              "API server's version is unknown: ",
                              version.status().ToString(), ")"));
    return true;
  }
  auto_streaming_list_ = !version->StreamsListEncoding();
  log::Info(kUpstreamComponent,
            absl::StrCat("upstream lists: ", *auto_streaming_list_ ? "streaming" : "paged",
                         " (--upstream-list=auto; kube-apiserver ", version->major, ".",
                         version->minor,
                         *auto_streaming_list_ ? " builds LIST responses whole)"
                                               : " streams LIST responses)"));
  return *auto_streaming_list_;
}

kube::ReflectorOptions ApiServerUpstream::ReflectorOptionsFor(
    const config::ResourceConfig& wanted, const ServedResourceOptions& options) {
  kube::ReflectorOptions reflector_options;
  reflector_options.namespace_ = wanted.namespace_;
  reflector_options.label_selector = wanted.label_selector;
  reflector_options.field_selector = wanted.field_selector;
  reflector_options.cut_managed_fields_from_lists = wanted.strip_managed_fields;
  reflector_options.streaming_list = StreamingList(options.upstream_list);
  return reflector_options;
}

std::unique_ptr<kube::UpstreamReader> ApiServerUpstream::NewReader(
    const kube::ResourceInfo& info, const config::ResourceConfig& wanted,
    const ServedResourceOptions& options, kube::ListWatchSink* sink) {
  return std::make_unique<kube::Reflector>(client_, info, ReflectorOptionsFor(wanted, options),
                                           sink);
}

std::unique_ptr<HistoryBackfill> ApiServerUpstream::NewBackfill(
    const kube::ResourceInfo& info, const config::ResourceConfig& wanted,
    const ServedResourceOptions& options, const informer::InformerOptions& informer_options,
    informer::Informer* target) {
  return std::make_unique<HistoryBackfill>(client_, info, ReflectorOptionsFor(wanted, options),
                                           informer_options, target);
}

std::unique_ptr<ServedResource> StartServedResource(kube::RestClient* client,
                                                    kube::ResourceInfo info,
                                                    const config::ResourceConfig& wanted,
                                                    const ServedResourceOptions& options) {
  ApiServerUpstream upstream(client);
  return StartServedResource(&upstream, std::move(info), wanted, options);
}

std::unique_ptr<ServedResource> StartServedResource(Upstream* upstream, kube::ResourceInfo info,
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
  served->informer = std::make_unique<informer::Informer>(informer_options);
  served->reflector =
      upstream->NewReader(served->info, wanted, options, served->informer.get());
  if (options.history_backfill) {
    served->backfill = upstream->NewBackfill(served->info, wanted, options, informer_options,
                                             served->informer.get());
  }
  served->crd_schema = upstream->CustomResourceSchema(served->info);
  served->reflector->Start();
  return served;
}

namespace {

constexpr std::string_view kComponent = "registry";

bool Transient(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kDeadlineExceeded;
}

}  // namespace

ResourceRegistry::~ResourceRegistry() { Stop(); }

void ResourceRegistry::OnReady(std::function<void()> on_ready) {
  {
    absl::MutexLock lock(&mu_);
    on_ready_ = std::move(on_ready);
  }
  CheckReady();
}

absl::Status ResourceRegistry::Start(Upstream* upstream,
                                     const std::vector<config::ResourceConfig>& resources,
                                     const RegistryOptions& options) {
  std::vector<config::ResourceConfig> pending;
  for (const config::ResourceConfig& wanted : resources) {
    const std::string name = kube::KubectlName(wanted.group, wanted.resource);
    absl::Duration delay = absl::Milliseconds(500);
    const absl::Time deadline = absl::Now() + options.discovery_retry_for;
    absl::StatusOr<kube::ResourceInfo> info;
    while (true) {
      info = upstream->Discover(wanted);
      if (info.ok() || !Transient(info.status()) || absl::Now() > deadline) break;
      log::Warning(kComponent, absl::StrCat("discovery of ", name, " failed, retrying: ",
                                            info.status().message()));
      if (stopping_.WaitForNotificationWithTimeout(delay)) return absl::CancelledError("stopping");
      delay = std::min(delay * 2, absl::Seconds(10));
    }
    if (info.ok()) {
      Add(StartServedResource(upstream, *std::move(info), wanted, options.resource));
    } else if (info.status().code() == absl::StatusCode::kNotFound) {
      log::Warning(kComponent, absl::StrCat("resource ", name,
                                            " is not served by the upstream yet (is its "
                                            "CustomResourceDefinition installed?); waiting for it"));
      AddPending(wanted.group, wanted.resource);
      pending.push_back(wanted);
    } else {
      return absl::Status(info.status().code(),
                          absl::StrCat("resource ", name, ": ", info.status().message()));
    }
  }
  if (!pending.empty()) {
    rediscoverer_ = std::thread(
        [this, upstream, pending = std::move(pending), options]() mutable {
          Rediscover(upstream, std::move(pending), options);
        });
  }
  return absl::OkStatus();
}

void ResourceRegistry::Rediscover(Upstream* upstream,
                                  std::vector<config::ResourceConfig> pending,
                                  RegistryOptions options) {
  while (!pending.empty() &&
         !stopping_.WaitForNotificationWithTimeout(options.rediscovery_interval)) {
    for (auto it = pending.begin(); it != pending.end();) {
      absl::StatusOr<kube::ResourceInfo> info = upstream->Discover(*it);
      if (!info.ok()) {
        if (info.status().code() != absl::StatusCode::kNotFound) {
          log::Warning(kComponent, absl::StrCat("discovery of ",
                                                kube::KubectlName(it->group, it->resource),
                                                " failed, retrying: ", info.status().message()));
        }
        ++it;
        continue;
      }
      Add(StartServedResource(upstream, *std::move(info), *it, options.resource));
      it = pending.erase(it);
    }
  }
}

void ResourceRegistry::Stop() {
  if (!stopping_.HasBeenNotified()) stopping_.Notify();
  if (rediscoverer_.joinable()) rediscoverer_.join();
  for (ServedResource* served : all()) {
    if (served->reflector != nullptr) served->reflector->Stop();
  }
}

void ResourceRegistry::Add(std::unique_ptr<ServedResource> resource) {
  log::Info(kComponent, absl::StrCat("serving ", resource->DisplayName(), " (",
                                     resource->info.kind, ", ", resource->info.version, ")"));
  informer::Informer* informer = resource->informer.get();
  {
    absl::MutexLock lock(&mu_);
    pending_.erase(std::remove(pending_.begin(), pending_.end(),
                               std::make_pair(resource->info.group, resource->info.resource)),
                   pending_.end());
    resources_.push_back(std::move(resource));
  }
  informer->NotifyWhenSynced([this] { CheckReady(); });
}

void ResourceRegistry::CheckReady() {
  std::function<void()> on_ready;
  {
    absl::MutexLock lock(&mu_);
    // An empty registry is not ready: nothing has been configured yet.
    if (ready_signalled_ || !on_ready_ || resources_.empty() || !AllSyncedLocked()) return;
    ready_signalled_ = true;
    on_ready.swap(on_ready_);
  }
  on_ready();
}

void ResourceRegistry::AddPending(const std::string& group, const std::string& resource) {
  absl::MutexLock lock(&mu_);
  pending_.emplace_back(group, resource);
}

absl::Status CheckResourceName(const v1::ResourceName& name) {
  if (name.resource().empty()) {
    return absl::InvalidArgumentError("resource.resource: required (e.g. \"pods\")");
  }
  // Kubernetes' own bounds (DNS label, subdomain, label), so that errors
  // echo no more than these.
  for (auto [field, value, limit] :
       {std::tuple{"resource.resource", &name.resource(), size_t{63}},
        std::tuple{"resource.group", &name.group(), size_t{253}},
        std::tuple{"resource.version", &name.version(), size_t{63}}}) {
    if (value->size() > limit) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": longer than ", limit, " characters"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ServedResource*> ResourceRegistry::Find(const v1::ResourceName& name) const {
  if (absl::Status status = CheckResourceName(name); !status.ok()) return status;
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
  // Not the list of what is served: ListResources tells each caller what it
  // may list.
  return absl::NotFoundError(absl::StrCat("resource ", requested, " is not served"));
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
  return AllSyncedLocked();
}

bool ResourceRegistry::AllSyncedLocked() const {
  return pending_.empty() &&
         std::all_of(resources_.begin(), resources_.end(),
                     [](const auto& served) { return served->informer->synced(); });
}

}  // namespace informerd::service
