#include "server/limits/memory_limit.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace informerd::limits {
namespace {

// cgroup v1 writes "no limit" as 2^63-1 rounded down to a page.
constexpr uint64_t kV1Unlimited = uint64_t{1} << 62;

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The limit in one limit file; none for "max", no file, or no number.
std::optional<uint64_t> ReadLimitFile(const std::string& path) {
  std::optional<std::string> text = ReadFile(path);
  if (!text.has_value()) return std::nullopt;
  const absl::string_view value = absl::StripAsciiWhitespace(*text);
  uint64_t bytes = 0;
  if (value == "max" || !absl::SimpleAtoi(value, &bytes) || bytes >= kV1Unlimited) {
    return std::nullopt;
  }
  return bytes;
}

// The lowest limit in `file_name` of `path`'s cgroup and its ancestors
// under `mount`. Inside a container's cgroup namespace the path is "/", and
// the mount's own file is the container's.
void LowestAlongPath(const std::string& mount, absl::string_view path, const std::string& file_name,
                     std::optional<MemoryLimit>* lowest) {
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  for (size_t depth = 0; depth <= parts.size(); ++depth) {
    std::string dir = mount;
    for (size_t i = 0; i < depth; ++i) dir += "/" + parts[i];
    const std::string file = dir + "/" + file_name;
    std::optional<uint64_t> bytes = ReadLimitFile(file);
    if (bytes.has_value() && (!lowest->has_value() || *bytes < (*lowest)->bytes)) {
      *lowest = MemoryLimit{*bytes, file};
    }
  }
}

}  // namespace

std::optional<MemoryLimit> ReadMemoryLimit(std::string_view proc_self_cgroup,
                                           const std::string& cgroup_root) {
  std::optional<MemoryLimit> lowest;
  const absl::string_view text(proc_self_cgroup.data(), proc_self_cgroup.size());
  // Lines "ID:CONTROLLERS:PATH": "0::PATH" for v2, "N:...memory...:PATH" for v1.
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() != 3) continue;
    if (fields[0] == "0" && fields[1].empty()) {
      LowestAlongPath(cgroup_root, fields[2], "memory.max", &lowest);
      continue;
    }
    for (absl::string_view controller : absl::StrSplit(fields[1], ',')) {
      if (controller == "memory") {
        LowestAlongPath(cgroup_root + "/memory", fields[2], "memory.limit_in_bytes", &lowest);
      }
    }
  }
  return lowest;
}

std::optional<MemoryLimit> ProcessMemoryLimit() {
  std::optional<std::string> cgroup = ReadFile("/proc/self/cgroup");
  if (!cgroup.has_value()) return std::nullopt;
  return ReadMemoryLimit(*cgroup, "/sys/fs/cgroup");
}

}  // namespace informerd::limits
