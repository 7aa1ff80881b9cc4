// informerctl: a kubectl-like command line client for informerd.

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "client/cpp/informerctl/args.h"
#include "client/cpp/informerctl/commands.h"
#include "client/cpp/informerctl/errors.h"

int main(int argc, char** argv) {
  using informerd::informerctl::Command;
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* env_token =
      std::getenv(informerd::informerctl::kTokenEnvironmentVariable);
  absl::StatusOr<informerd::informerctl::CommandLine> line =
      informerd::informerctl::ParseCommandLine(
          args, env_token == nullptr ? "" : env_token);
  if (!line.ok()) {
    std::cerr << "informerctl: " << line.status().message() << "\n"
              << "Run 'informerctl --help' for usage." << std::endl;
    return informerd::informerctl::kExitUsage;
  }
  if (line->help) {
    std::cout << informerd::informerctl::kUsage;
    return informerd::informerctl::kExitOk;
  }
  switch (line->command) {
    case Command::kResources:
      return informerd::informerctl::RunResources(*line);
    case Command::kGet:
      return informerd::informerctl::RunGet(*line);
    case Command::kWatch:
      return informerd::informerctl::RunWatch(*line);
    case Command::kHealth:
      return informerd::informerctl::RunHealth(*line);
  }
  return informerd::informerctl::kExitUsage;
}
