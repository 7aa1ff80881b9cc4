// Child processes of a benchmark program: a server started from a shell
// command line (so a harness can pass redirections and wrappers such as
// `ip netns exec`) and killed with SIGKILL, as a crash would end it.
//
// Thread safety: pure functions.
#ifndef INFORMERD_BENCH_CHILD_PROCESS_H_
#define INFORMERD_BENCH_CHILD_PROCESS_H_

#include <sys/types.h>

#include <string>

namespace informerd::bench {

// Runs `command` under /bin/sh, prefixed with exec so the pid is the
// command's own; 0 if it could not be started.
pid_t SpawnShell(const std::string& command);

// Sends SIGKILL to `pid` and reaps it. Does nothing for pid 0.
void KillAndReap(pid_t pid);

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_CHILD_PROCESS_H_
