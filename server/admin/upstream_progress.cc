#include "server/admin/upstream_progress.h"

namespace informerd::admin {

UpstreamProgress::UpstreamProgress(const service::ResourceRegistry* registry,
                                   absl::Duration timeout)
    : registry_(registry), timeout_(timeout) {}

std::vector<UpstreamProgress::Silence> UpstreamProgress::Stalled(absl::Time now) {
  std::vector<Silence> stalled;
  if (timeout_ <= absl::ZeroDuration()) return stalled;
  absl::MutexLock lock(&mu_);
  for (const service::ServedResource* served : registry_->all()) {
    if (served->reflector == nullptr || !served->informer->synced()) continue;
    const kube::ReflectorStats& stats = served->reflector->stats();
    const uint64_t progress = stats.lists.load() + stats.events.load() + stats.bookmarks.load();
    const std::string name = served->DisplayName();
    auto [seen, inserted] = seen_.try_emplace(name, Seen{progress, now});
    if (inserted || seen->second.progress != progress) {
      seen->second = Seen{progress, now};
      continue;
    }
    if (now - seen->second.since > timeout_) {
      stalled.push_back(Silence{name, now - seen->second.since});
    }
  }
  return stalled;
}

}  // namespace informerd::admin
