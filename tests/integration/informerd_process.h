// InformerdProcess: the informerd binary (the test's data dependency
// //server:informerd) run as a child process with the given flags, for
// tests of what the binary itself does with its command line. It inherits
// the test's environment ($KUBECONFIG); its stdout and stderr go to a file.
//
// Thread safety: one thread.
#ifndef INFORMERD_TESTS_INTEGRATION_INFORMERD_PROCESS_H_
#define INFORMERD_TESTS_INTEGRATION_INFORMERD_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace informerd::testing {

// A TCP port free on 127.0.0.1 when asked (the usual race applies).
int FreeLoopbackPort();

// "STATUS BODY" of an HTTP GET of `path` on 127.0.0.1:`port`, or
// "no answer".
std::string HttpGet(int port, const std::string& path);

// The value in KiB of `field` (VmRSS, VmHWM, ...) in /proc/`pid`/status,
// or -1 when the process or the field is not there. `pid` 0: this process.
int64_t ProcStatusKiB(pid_t pid, const std::string& field);

// Polls `condition` every 100 ms until it holds or `timeout` passes.
template <typename Condition>
bool Eventually(Condition condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return true;
}

class InformerdProcess {
 public:
  // Starts the binary with `args` (program name excluded); stdout and
  // stderr go to $TEST_TMPDIR/`log_name`. With `descriptor_limit`, its
  // RLIMIT_NOFILE (soft and hard) is that.
  InformerdProcess(const std::vector<std::string>& args, const std::string& log_name,
                   std::optional<uint64_t> descriptor_limit = std::nullopt);
  // Kills the process if it still runs.
  ~InformerdProcess();
  InformerdProcess(const InformerdProcess&) = delete;
  InformerdProcess& operator=(const InformerdProcess&) = delete;

  // The exit code once the process exited within `timeout` (128 + N when
  // killed by signal N); nullopt while it still runs.
  std::optional<int> WaitForExit(absl::Duration timeout);

  // SIGTERM (a drain), then the exit code as WaitForExit gives it; SIGKILL
  // and nullopt when it has not exited within `timeout`.
  std::optional<int> Stop(absl::Duration timeout = absl::Seconds(20));

  // What the process wrote so far.
  std::string Log() const;

  // The child's process id (-1 if it did not start).
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::string log_path_;
};

}  // namespace informerd::testing

#endif  // INFORMERD_TESTS_INTEGRATION_INFORMERD_PROCESS_H_
