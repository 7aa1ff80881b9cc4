// Small measurement helpers shared by the benchmark programs.
#ifndef INFORMERD_BENCH_MEASUREMENT_H_
#define INFORMERD_BENCH_MEASUREMENT_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace informerd::bench {

// A monotonic clock in nanoseconds, comparable across threads of one
// process (and across processes on one machine).
int64_t SteadyNanos();

// The first whitespace-separated word of the file (a bearer token), or "".
std::string ReadToken(const std::string& path);

// The value at `fraction` (0..1) of `values`, by nearest rank; 0 when empty.
// Reorders `values`.
template <typename T>
double Percentile(std::vector<T>* values, double fraction) {
  if (values->empty()) return 0;
  size_t rank = static_cast<size_t>(fraction * (values->size() - 1));
  std::nth_element(values->begin(), values->begin() + rank, values->end());
  return static_cast<double>((*values)[rank]);
}

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_MEASUREMENT_H_
