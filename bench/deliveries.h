// Matches what watchers received against what the writer wrote: the
// delivery latency of each receipt (write response to arrival, one steady
// clock on one machine) and what never arrived.
//
// Thread safety: pure functions.
#ifndef INFORMERD_BENCH_DELIVERIES_H_
#define INFORMERD_BENCH_DELIVERIES_H_

#include <cstddef>
#include <vector>

#include "bench/apiserver_writer.h"
#include "bench/watch_clients.h"

namespace informerd::bench {

struct Deliveries {
  std::vector<double> latencies_ms;  // one per receipt of a written event
  size_t fewest = 0;                 // fewest written events received by one stream
  size_t lost = 0;                   // (written event, stream) pairs never received
};

// `receipts`: per stream. Receipts of versions not in `writes` (other
// writers, events before the window) are ignored.
Deliveries MatchDeliveries(const std::vector<Write>& writes,
                           const std::vector<std::vector<Receipt>>& receipts);

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_DELIVERIES_H_
