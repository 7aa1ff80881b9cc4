// UpstreamProgress: which synced resources have heard nothing from their
// upstream (no event, bookmark or completed list) for longer than a
// timeout: a watch that stays open but goes silent, or one that cannot be
// re-established (out of descriptors, say), leaves the cache stale while
// every request is still answered. The kube-apiserver sends a watch that
// allows bookmarks one about every minute, and an upstream informerd one
// every bookmarkIntervalSeconds, so silence well past that is a fault.
//
// Progress is sampled when asked (the readiness probe asks every few
// seconds): a counter that moved since the last question counts as
// progress at the time of this one.
//
// Thread safety: Stalled from any thread (serialized inside).
#ifndef INFORMERD_SERVER_ADMIN_UPSTREAM_PROGRESS_H_
#define INFORMERD_SERVER_ADMIN_UPSTREAM_PROGRESS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/service/served_resource.h"

namespace informerd::admin {

class UpstreamProgress {
 public:
  // `registry` must outlive this. A zero `timeout` turns the check off.
  UpstreamProgress(const service::ResourceRegistry* registry, absl::Duration timeout);

  struct Silence {
    std::string resource;  // ServedResource::DisplayName
    absl::Duration silent_for;
  };
  // Each synced resource silent longer than the timeout, as of `now`.
  std::vector<Silence> Stalled(absl::Time now);

 private:
  struct Seen {
    uint64_t progress = 0;
    absl::Time since;
  };

  const service::ResourceRegistry* const registry_;
  const absl::Duration timeout_;
  absl::Mutex mu_;
  std::map<std::string, Seen> seen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::admin

#endif  // INFORMERD_SERVER_ADMIN_UPSTREAM_PROGRESS_H_
