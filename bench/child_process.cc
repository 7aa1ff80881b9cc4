#include "bench/child_process.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace informerd::bench {

pid_t SpawnShell(const std::string& command) {
  const std::string line = "exec " + command;
  const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    return 0;
  }
  return pid;
}

void KillAndReap(pid_t pid) {
  if (pid == 0) return;
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace informerd::bench
