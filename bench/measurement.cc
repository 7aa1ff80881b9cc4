#include "bench/measurement.h"

#include <chrono>
#include <fstream>

namespace informerd::bench {

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string ReadToken(const std::string& path) {
  std::ifstream file(path);
  std::string token;
  file >> token;
  return token;
}

}  // namespace informerd::bench
