#include "server/limits/descriptors.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace informerd::limits {

DescriptorLimit CurrentDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return {};
  return {static_cast<uint64_t>(limit.rlim_cur), static_cast<uint64_t>(limit.rlim_max)};
}

absl::StatusOr<DescriptorLimit> RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return absl::InternalError(
        absl::StrCat("RLIMIT_NOFILE: cannot read it: ", std::strerror(errno)));
  }
  if (limit.rlim_cur < limit.rlim_max) {
    const rlim_t before = limit.rlim_cur;
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
      return absl::InternalError(absl::StrCat("RLIMIT_NOFILE: cannot raise the soft limit from ",
                                              before, " to the hard limit ", limit.rlim_max, ": ",
                                              std::strerror(errno)));
    }
  }
  return CurrentDescriptorLimit();
}

size_t AdminConnectionBudget(uint64_t soft_limit, size_t configured) {
  constexpr size_t kFloor = 16;
  const uint64_t quarter = soft_limit / 4;
  return std::max<size_t>(kFloor, std::min<uint64_t>(configured, quarter));
}

}  // namespace informerd::limits
