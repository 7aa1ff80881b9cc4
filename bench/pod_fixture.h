// Kubernetes Pod JSON shaped like what a real cluster serves, for benchmarks.
//
// Each pod is about 10 KB: three containers with env, ports, resources,
// probes and volume mounts; labels, annotations, an owner reference; a full
// status; and managedFields for two managers (roughly 40% of the object, as
// measured in kubernetes#118454). Pods differ by index in name, uid,
// namespace, node and label values, so indexes see realistic cardinality.
//
// Thread safety: pure functions.
#ifndef INFORMERD_BENCH_POD_FIXTURE_H_
#define INFORMERD_BENCH_POD_FIXTURE_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace informerd::bench {

// Pod number `index` at `resource_version`, compact JSON as the apiserver
// sends it. 50 namespaces, 100 nodes.
std::string PodJson(size_t index, uint64_t resource_version);

// A LIST response page at `resource_version` holding pods [first, first +
// count); pod i has resourceVersion i + 1.
std::string PodListJson(size_t first, size_t count, uint64_t resource_version);

// A watch frame (one line of a watch body, without the newline).
std::string PodWatchFrameJson(const char* type, size_t index, uint64_t resource_version);

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_POD_FIXTURE_H_
