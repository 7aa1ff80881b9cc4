#include "client/cpp/example/stdout_line.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "absl/base/const_init.h"
#include "absl/synchronization/mutex.h"

namespace informerd {
namespace example {
namespace {

ABSL_CONST_INIT absl::Mutex stdout_mu(absl::kConstInit);

}  // namespace

void EmitLineToStdout(const std::string& line) {
  std::string text = line + "\n";
  absl::MutexLock lock(&stdout_mu);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
      std::fflush(stdout) != 0) {
    std::cerr << "example: writing stdout failed" << std::endl;
    std::_Exit(1);
  }
}

}  // namespace example
}  // namespace informerd
