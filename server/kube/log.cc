#include "server/kube/log.h"

#include <cstdio>
#include <string>

namespace informerd::kube {

void LogWarning(std::string_view msg) {
  // One fwrite per line so concurrent lines do not interleave.
  std::string line = "W informerd: ";
  line.append(msg);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace informerd::kube
