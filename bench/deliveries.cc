#include "bench/deliveries.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace informerd::bench {

Deliveries MatchDeliveries(const std::vector<Write>& writes,
                           const std::vector<std::vector<Receipt>>& receipts) {
  std::unordered_map<uint64_t, int64_t> written;
  for (const Write& write : writes) written[write.resource_version] = write.response_ns;
  Deliveries result;
  result.fewest = receipts.empty() ? 0 : SIZE_MAX;
  for (const std::vector<Receipt>& stream : receipts) {
    std::unordered_set<uint64_t> seen;
    for (const Receipt& receipt : stream) {
      auto it = written.find(receipt.resource_version);
      if (it == written.end()) continue;
      result.latencies_ms.push_back((receipt.arrival_ns - it->second) / 1e6);
      seen.insert(receipt.resource_version);
    }
    result.fewest = std::min(result.fewest, seen.size());
    result.lost += written.size() - seen.size();
  }
  return result;
}

}  // namespace informerd::bench
