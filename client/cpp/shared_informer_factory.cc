#include "client/cpp/shared_informer_factory.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace informerd {
namespace client {

InformerKey InformerKey::Of(const RemoteInformerOptions& options) {
  InformerKey key;
  key.group = options.resource.group();
  key.version = options.resource.version();
  key.resource = options.resource.resource();
  key.watch_namespace = options.watch_namespace;
  key.label_selector = options.label_selector;
  key.field_selector = options.field_selector;
  key.transform_name = options.transform.name;
  return key;
}

std::string InformerKey::ToString() const {
  return absl::StrCat(resource, ".", version, ".", group,
                      " namespace=", watch_namespace, " labels=", label_selector,
                      " fields=", field_selector, " transform=", transform_name);
}

namespace {

auto Tie(const InformerKey& k) {
  return std::tie(k.group, k.version, k.resource, k.watch_namespace,
                  k.label_selector, k.field_selector, k.transform_name);
}

}  // namespace

bool InformerKey::operator<(const InformerKey& other) const {
  return Tie(*this) < Tie(other);
}

bool InformerKey::operator==(const InformerKey& other) const {
  return Tie(*this) == Tie(other);
}

SharedInformerFactory::SharedInformerFactory(
    std::shared_ptr<grpc::Channel> channel, ConnectionOptions connection,
    absl::Duration default_resync_period)
    : channel_(std::move(channel)),
      connection_(std::move(connection)),
      default_resync_period_(default_resync_period) {}

SharedInformerFactory::~SharedInformerFactory() { Shutdown(); }

RemoteInformer* SharedInformerFactory::InformerFor(
    RemoteInformerOptions options) {
  return InformerFor(std::move(options), default_resync_period_);
}

RemoteInformer* SharedInformerFactory::InformerFor(
    RemoteInformerOptions options, absl::Duration resync_period) {
  InformerKey key = InformerKey::Of(options);
  absl::MutexLock lock(&mu_);
  Entry& entry = informers_[key];
  if (entry.informer == nullptr) {
    options.default_resync_period = resync_period;
    entry.informer = std::make_unique<RemoteInformer>(channel_, connection_,
                                                      std::move(options));
  }
  return entry.informer.get();
}

void SharedInformerFactory::Start() {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  for (auto& [key, entry] : informers_) {
    if (entry.started) continue;
    entry.informer->Start();
    entry.started = true;
  }
}

std::map<InformerKey, bool> SharedInformerFactory::WaitForCacheSync(
    absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  std::vector<std::pair<InformerKey, const RemoteInformer*>> started;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, entry] : informers_) {
      if (entry.started) started.emplace_back(key, entry.informer.get());
    }
  }
  // Informers are never destroyed before the factory, so they can be
  // waited for without the lock.
  std::map<InformerKey, bool> synced;
  for (const auto& [key, informer] : started) {
    synced[key] = informer->WaitForSync(
        std::max(deadline - absl::Now(), absl::ZeroDuration()));
  }
  return synced;
}

void SharedInformerFactory::Shutdown() {
  absl::MutexLock shutdown_lock(&shutdown_mu_);
  std::vector<RemoteInformer*> informers;
  {
    absl::MutexLock lock(&mu_);
    shut_down_ = true;
    for (auto& [key, entry] : informers_) {
      informers.push_back(entry.informer.get());
    }
  }
  // Outside mu_: a handler that asks for an informer while it is being
  // stopped must not wait for Shutdown.
  for (RemoteInformer* informer : informers) informer->Stop();
}

}  // namespace client
}  // namespace informerd
