// TransportLimits: what one gRPC connection may hold and for how long, so
// that no client can keep resources (streams, idle connections, pings)
// beyond a bound, and long-lived clients are spread again over replicas.
#ifndef INFORMERD_SERVER_LIMITS_TRANSPORT_LIMITS_H_
#define INFORMERD_SERVER_LIMITS_TRANSPORT_LIMITS_H_

#include <cstddef>

#include "absl/time/time.h"

namespace informerd::limits {

struct TransportLimits {
  // Concurrent RPCs (Watch streams included) on one connection; more wait
  // in the client, as HTTP/2 says.
  size_t max_concurrent_streams = 1000;
  // A connection with no RPC for this long is closed.
  absl::Duration max_connection_idle = absl::Minutes(5);
  // A connection this old (±10%, gRPC's jitter) is asked to go away, and
  // its RPCs get this grace before they are cut: clients reconnect, perhaps
  // to another replica, and resume their watches from their versions.
  absl::Duration max_connection_age = absl::Minutes(30);
  absl::Duration max_connection_age_grace = absl::Minutes(1);
  // Clients pinging more often than this (twice) are disconnected.
  absl::Duration min_ping_interval = absl::Seconds(10);
  // gRPC's own buffers (reads, writes, metadata) across all connections.
  size_t memory_quota_bytes = size_t{1} << 30;
};

}  // namespace informerd::limits

#endif  // INFORMERD_SERVER_LIMITS_TRANSPORT_LIMITS_H_
