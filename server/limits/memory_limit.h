// The memory limit the kernel enforces on this process, if any: its cgroup's
// memory.max (cgroup v2) or memory.limit_in_bytes (v1), the lowest along its
// cgroup's path, as a container's resources.limits.memory sets it. Bounds
// that must scale with the pod (a leaf's pending upstream lists) are taken
// as a share of it.
//
// Thread safety: pure functions over the files they are pointed at.
#ifndef INFORMERD_SERVER_LIMITS_MEMORY_LIMIT_H_
#define INFORMERD_SERVER_LIMITS_MEMORY_LIMIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace informerd::limits {

// A limit and where it was read, for the log line that reports it.
struct MemoryLimit {
  uint64_t bytes = 0;
  std::string source;  // e.g. "/sys/fs/cgroup/memory.max"
};

// The limit for the process whose /proc/self/cgroup is `proc_self_cgroup`
// (its text), reading cgroup files under `cgroup_root` (normally
// "/sys/fs/cgroup"). None when no limit is set ("max", or v1's
// page-rounded 2^63-1) or no file can be read.
std::optional<MemoryLimit> ReadMemoryLimit(std::string_view proc_self_cgroup,
                                           const std::string& cgroup_root);

// ReadMemoryLimit for this process.
std::optional<MemoryLimit> ProcessMemoryLimit();

}  // namespace informerd::limits

#endif  // INFORMERD_SERVER_LIMITS_MEMORY_LIMIT_H_
