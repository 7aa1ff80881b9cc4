// Resource versions as numbers.
//
// Kubernetes says resourceVersion is opaque, but the kube-apiserver's
// watch cache and every etcd-backed server compare them as decimal integers
// (etcd revisions); informerd does the same to order events and to answer
// "not older than" reads.
#ifndef INFORMERD_SERVER_CACHE_RESOURCE_VERSION_H_
#define INFORMERD_SERVER_CACHE_RESOURCE_VERSION_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace informerd::cache {

// The value of a decimal resourceVersion; nullopt if `text` is empty, not
// all digits, or does not fit in 64 bits.
std::optional<uint64_t> ParseResourceVersion(std::string_view text);

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_RESOURCE_VERSION_H_
