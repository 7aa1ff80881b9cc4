// Reconnect storm (scenario 4 of docs/BENCHMARKS.md): N watchers on
// informerd are cut at once (every stream cancelled, every connection
// dropped) and immediately reconnect on new connections, each resuming
// from the last resourceVersion it saw, while a writer keeps patching
// through the kube-apiserver. Prints one table row:
//   - informerd's upstream LISTs and relists before and after (a resume
//     must be served from the history: no new LIST),
//   - events replayed to resumed streams (ADDED initial events, or events
//     at or before the resume point: must be none),
//   - events missed by resumed streams (writes after the resume point that
//     never arrived: must be none),
//   - informerd's RSS before the cut and its peak while streams reconnect.
//
// bench/reconnect.sh starts informerd and runs it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bench/apiserver_flags.h"
#include "bench/measurement.h"
#include "bench/apiserver_writer.h"
#include "bench/informerd_metrics.h"
#include "bench/proc_stats.h"
#include "bench/resuming_streams.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/cache/resource_version.h"

ABSL_FLAG(int, watchers, 1000, "watch streams cut and resumed");
ABSL_FLAG(int, streams_per_connection, 100, "streams per gRPC connection");
ABSL_FLAG(double, rate, 20, "writes per second, before, during and after the storm");
ABSL_FLAG(std::string, informerd_address, "127.0.0.1:20074", "informerd gRPC address");
ABSL_FLAG(std::string, informerd_admin, "http://127.0.0.1:8074", "informerd admin URL");
ABSL_FLAG(int, informerd_pid, 0, "informerd's pid, for RSS");
ABSL_FLAG(bool, header, false, "print the table header first");

namespace informerd::bench {
namespace {

int Run() {
  const size_t watchers = absl::GetFlag(FLAGS_watchers);
  const double rate = absl::GetFlag(FLAGS_rate);
  const std::string admin = absl::GetFlag(FLAGS_informerd_admin);
  const pid_t pid = absl::GetFlag(FLAGS_informerd_pid);
  const ApiserverTarget apiserver = ApiserverTargetFromFlags();
  ApiserverWriter writer(apiserver, 10, 10240);
  if (absl::Status status = writer.Prepare(); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  auto write_for = [&](absl::Duration duration) { return writer.RunRecorded(rate, duration); };

  // Every stream sees some events, so each has its own resume point.
  const double open_before = SumMetric(admin, "informerd_watchers_open");
  StreamSet before(absl::GetFlag(FLAGS_informerd_address), apiserver.namespace_,
                   absl::GetFlag(FLAGS_streams_per_connection));
  before.Open(std::vector<uint64_t>(watchers, 0));
  if (!AwaitWatchersOpen(admin, open_before + watchers, absl::Seconds(60))) {
    std::fprintf(stderr, "informerd did not open %zu streams\n", watchers);
    return 1;
  }
  if (!write_for(absl::Seconds(2)) ||
      !AwaitAll(&before, writer.writes().back().resource_version, absl::Seconds(30))) {
    std::fprintf(stderr, "streams did not receive the first writes\n");
    return 1;
  }
  const double lists_before = SumMetric(admin, "informerd_upstream_lists_total");
  const double relists_before = SumMetric(admin, "informerd_upstream_relists_total");
  const ProcStats stats_before = ReadProcStats(pid);

  // The storm, with writes going on: cut everything, resume everything.
  std::atomic<bool> sampling{true};
  size_t peak_resident = stats_before.resident_bytes;
  std::thread sampler([&] {
    while (sampling.load()) {
      peak_resident = std::max(peak_resident, ReadProcStats(pid).resident_bytes);
      absl::SleepFor(absl::Milliseconds(5));
    }
  });
  bool writes_ok = true;
  std::thread writes([&] { writes_ok = write_for(absl::Seconds(4)); });
  absl::SleepFor(absl::Seconds(1));
  const absl::Time cut = absl::Now();
  std::vector<uint64_t> resume_points;
  for (auto& stream : before.streams()) resume_points.push_back(stream->last());
  before.Close();
  StreamSet after(absl::GetFlag(FLAGS_informerd_address), apiserver.namespace_,
                  absl::GetFlag(FLAGS_streams_per_connection));
  after.Open(resume_points);
  const bool reopened = AwaitWatchersOpen(admin, open_before + watchers, absl::Seconds(60));
  const absl::Duration storm = absl::Now() - cut;
  writes.join();
  const bool delivered = writes_ok && AwaitAll(&after, writer.writes().back().resource_version,
                                               absl::Seconds(30));
  sampling.store(false);
  sampler.join();
  const double lists_after = SumMetric(admin, "informerd_upstream_lists_total");
  const double relists_after = SumMetric(admin, "informerd_upstream_relists_total");

  std::vector<uint64_t> written;
  for (const Write& write : writer.writes()) written.push_back(write.resource_version);
  size_t replayed = 0;
  size_t missing = 0;
  for (auto& stream : after.streams()) {
    replayed += stream->replayed();
    missing += stream->Missing(written);
  }
  after.Close();

  if (absl::GetFlag(FLAGS_header)) {
    std::printf(
        "| watchers | per connection | writes/s | reconnected | cut to all open ms | replayed "
        "events | missed events | upstream LISTs before/after | relists before/after | informerd "
        "RSS before MiB | peak during storm MiB | growth B/client |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  const double growth = static_cast<double>(peak_resident) - stats_before.resident_bytes;
  std::printf("| %zu | %d | %.0f | %s | %.0f | %zu | %zu | %.0f/%.0f | %.0f/%.0f | %.1f | %.1f | "
              "%.0f |\n",
              watchers, absl::GetFlag(FLAGS_streams_per_connection), rate,
              reopened && delivered ? "all" : "NOT ALL", absl::ToDoubleMilliseconds(storm),
              replayed, missing, lists_before, lists_after, relists_before, relists_after,
              stats_before.resident_bytes / 1048576.0, peak_resident / 1048576.0,
              growth / watchers);
  std::fflush(stdout);
  const bool passed = reopened && delivered && replayed == 0 && missing == 0 &&
                      lists_after == lists_before && relists_after == relists_before;
  return passed ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return informerd::bench::Run();
}
