// VersionBound: which resourceVersions a leaf takes from its root.
//
// A leaf's Informer never goes back in version (its clients resume by
// version), so one version from a lying root far beyond the real one (a
// BOOKMARK at 2^64-1) would freeze the leaf: every later event is older.
// The root is otherwise trusted for what it serves; this bounds how far
// ahead of the truth it can move the leaf.
//
// The rule. The root's versions are the kube-apiserver's, etcd revisions:
// int64 values that grow by one per write to the cluster. So a version is
// refused when
//   - it is not a decimal integer in 1..2^63-1, or
//   - it is ahead of the highest version accepted by more than the writes
//     the cluster can have made since: a bucket of `burst` revisions,
//     refilled at `revisions_per_second`, or that rate times the time since
//     the version last advanced (whichever is more: after a long break the
//     gap is as long as the break, and a refused honest version is taken
//     after a retry or two, since the allowance grows faster than any real
//     cluster's version). An advance taken by the second rule empties the
//     bucket.
// Over T seconds of lying a root can thus move the leaf at most
// burst + 2 * revisions_per_second * T ahead. The first version (the first
// list's) has nothing to be compared with and is bounded only by the range.
//
// Thread safety: none; one reader thread owns it.
#ifndef INFORMERD_SERVER_TIER_VERSION_BOUND_H_
#define INFORMERD_SERVER_TIER_VERSION_BOUND_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace informerd::tier {

struct VersionBoundPolicy {
  // Far above a real cluster's write rate: etcd commits some tens of
  // thousands of writes a second at best, busy clusters a few thousand.
  uint64_t revisions_per_second = 100000;
  uint64_t burst = 1000000;
};

class VersionBound {
 public:
  explicit VersionBound(VersionBoundPolicy policy = {}) : policy_(policy) {}

  // OK when `version` can be the root's at `now`, and then remembered (a
  // version at or below the highest is always possible: the Informer
  // decides what an older one means). Otherwise FAILED_PRECONDITION saying
  // why, prefixed by `what` (the upstream and field).
  absl::Status Check(std::string_view version, absl::Time now, std::string_view what);

  // The highest version accepted; nullopt before the first.
  std::optional<uint64_t> highest() const { return highest_; }

 private:
  const VersionBoundPolicy policy_;
  std::optional<uint64_t> highest_;
  absl::Time advanced_;     // when highest_ last grew
  double tokens_ = 0;       // the bucket, as of refilled_
  absl::Time refilled_;
};

}  // namespace informerd::tier

#endif  // INFORMERD_SERVER_TIER_VERSION_BOUND_H_
