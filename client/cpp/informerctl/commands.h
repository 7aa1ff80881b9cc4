// The informerctl subcommands. Each runs one command line to completion,
// prints its results on stdout and its errors on stderr, and returns the
// process exit code (see errors.h).

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_COMMANDS_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_COMMANDS_H_

#include "client/cpp/informerctl/args.h"

namespace informerd {
namespace informerctl {

int RunResources(const CommandLine& line);
int RunGet(const CommandLine& line);
// REQUIRES: no thread has been started (it installs an InterruptWatcher).
int RunWatch(const CommandLine& line);
int RunHealth(const CommandLine& line);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_COMMANDS_H_
