// CPU time and resident memory of a process, read from /proc, so a harness
// can charge a server for what it spent during a measurement window.
//
// Thread safety: pure functions.
#ifndef INFORMERD_BENCH_PROC_STATS_H_
#define INFORMERD_BENCH_PROC_STATS_H_

#include <sys/types.h>

#include <cstddef>

namespace informerd::bench {

struct ProcStats {
  double cpu_seconds = 0;  // user + system
  size_t resident_bytes = 0;
  bool ok = false;         // false when the process could not be read
};

ProcStats ReadProcStats(pid_t pid);

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_PROC_STATS_H_
