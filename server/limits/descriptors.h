// The process's file-descriptor limit, and the share of it the admin port
// may hold.
//
// Every part of informerd takes descriptors from one RLIMIT_NOFILE: the
// admin port's connections, gRPC's connections and its listener, the
// upstream watches and the review client. When they run out, gRPC 1.51's
// TCP server takes EMFILE as a fatal accept error and never re-arms its
// listener (grpc/grpc#20418), so a replica stops serving for good while
// its probes still pass. Two rules keep that from happening:
//   - at start the soft limit is raised to the hard one (a container's soft
//     limit is often 1024 while its hard limit is far higher);
//   - the admin port, the one listener any pod can reach without a token,
//     holds at most a quarter of the soft limit, so the other three
//     quarters stay for gRPC, the upstream and reviews whatever the admin
//     port's clients do.
//
// Thread safety: RaiseDescriptorLimit changes process state: call it once,
// from main, before threads open descriptors. The rest are pure.
#ifndef INFORMERD_SERVER_LIMITS_DESCRIPTORS_H_
#define INFORMERD_SERVER_LIMITS_DESCRIPTORS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace informerd::limits {

struct DescriptorLimit {
  uint64_t soft = 0;
  uint64_t hard = 0;
};

// The current RLIMIT_NOFILE.
DescriptorLimit CurrentDescriptorLimit();

// Raises the soft RLIMIT_NOFILE to the hard one; the limit after. An error
// names the limit that could not be set.
absl::StatusOr<DescriptorLimit> RaiseDescriptorLimit();

// How many connections the admin port may hold under a soft limit of
// `soft_limit`: `configured`, but at most a quarter of the limit and at
// least 16 (probes and a scraper need a few even under a tiny limit).
size_t AdminConnectionBudget(uint64_t soft_limit, size_t configured);

}  // namespace informerd::limits

#endif  // INFORMERD_SERVER_LIMITS_DESCRIPTORS_H_
