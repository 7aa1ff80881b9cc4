// Fan-out: N watchers of one resource while writers patch ~10 KB
// ConfigMaps through the kube-apiserver at a fixed rate in total. Prints one table
// row per run: deliveries/s, delivery latency (write response to client
// receipt, same machine and clock), and the CPU each server spent per 1000
// deliveries, read from /proc around the measurement window.
//
//   --target=informerd  N gRPC Watch streams on informerd (one upstream watch)
//   --target=apiserver  N HTTP watches straight to kube-apiserver
//   --target=probe      N streams on bench/grpc_probe (no apiserver, no writer):
//                       the same client reading gRPC's physical limit; with
//                       --probe_background_rate the writers patch the
//                       apiserver meanwhile (informerd ingesting, no one
//                       watching it), so the probe shares the machine with
//                       the same upstream load as informerd's rows
//   --target=idle       N informerd streams and no writes: RSS per idle watcher
//
// bench/fanout.sh starts informerd and runs the table; see docs/BENCHMARKS.md.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/apiserver_flags.h"
#include "bench/measurement.h"
#include "bench/apiserver_writer.h"
#include "bench/deliveries.h"
#include "bench/informerd_metrics.h"
#include "bench/proc_stats.h"
#include "bench/watch_clients.h"

ABSL_FLAG(std::string, target, "informerd", "informerd, apiserver, probe or idle");
ABSL_FLAG(int, watchers, 100, "number of watch streams");
ABSL_FLAG(double, rate, 20, "writes per second");
ABSL_FLAG(int, warmup_seconds, 3, "writes before measuring (streams settle)");
ABSL_FLAG(int, seconds, 10, "measured writes");
ABSL_FLAG(int, drain_seconds, 2, "wait after the last write for deliveries");
ABSL_FLAG(int, writers, 0,
          "concurrent writers sharing the rate; 0: one per 10 writes/s (one sequential "
          "writer manages about 20 PATCHes/s of 10 KB on this machine)");
ABSL_FLAG(int, objects, 10, "ConfigMaps patched round-robin");
ABSL_FLAG(int, object_bytes, 10240, "ConfigMap data size");
ABSL_FLAG(int, streams_per_connection, 100, "informerd streams per gRPC connection");
ABSL_FLAG(std::string, informerd_address, "127.0.0.1:20071", "informerd gRPC address");
ABSL_FLAG(std::string, informerd_admin, "http://127.0.0.1:8071", "informerd admin URL");
ABSL_FLAG(int, informerd_pid, 0, "informerd's pid, for CPU and RSS");
ABSL_FLAG(std::string, probe_address, "127.0.0.1:20072", "grpc_probe's address");
ABSL_FLAG(int, probe_pid, 0, "grpc_probe's pid, for CPU and RSS");
ABSL_FLAG(double, probe_background_rate, 0,
          "probe rows: writes/s to the apiserver meanwhile (0: none)");
ABSL_FLAG(int, apiserver_pid, 0, "kube-apiserver's pid, for CPU and RSS");
ABSL_FLAG(bool, header, false, "print the table header first");

namespace informerd::bench {
namespace {

// informerd_watchers_open summed over resources, or -1.
double WatchersOpen(const std::string& admin_url) {
  return SumMetric(admin_url, "informerd_watchers_open");
}

int RunIdle() {
  const size_t watchers = absl::GetFlag(FLAGS_watchers);
  const pid_t pid = absl::GetFlag(FLAGS_informerd_pid);
  const std::string admin = absl::GetFlag(FLAGS_informerd_admin);
  const double open_before = WatchersOpen(admin);
  const ProcStats before = ReadProcStats(pid);
  auto clients = NewInformerdWatchClients(absl::GetFlag(FLAGS_informerd_address),
                                          absl::GetFlag(FLAGS_namespace_),
                                          absl::GetFlag(FLAGS_streams_per_connection));
  if (!clients->Start(watchers).ok()) return 1;
  AwaitWatchersOpen(admin, open_before + watchers);
  const double open = WatchersOpen(admin);
  const ProcStats after = ReadProcStats(pid);
  if (absl::GetFlag(FLAGS_header)) {
    std::printf("| idle streams | per connection | open | informerd RSS before MiB | after MiB | "
                "bytes/idle watcher |\n|---|---|---|---|---|---|\n");
  }
  std::printf("| %zu | %d | %.0f | %.1f | %.1f | %.0f |\n", watchers,
              absl::GetFlag(FLAGS_streams_per_connection), open - open_before,
              before.resident_bytes / 1048576.0, after.resident_bytes / 1048576.0,
              (static_cast<double>(after.resident_bytes) - before.resident_bytes) / watchers);
  std::fflush(stdout);
  clients->Stop();
  return open >= open_before + watchers ? 0 : 1;
}

// One row of the fan-out table. "server" is informerd or the probe; the
// apiserver columns are empty for the probe, which does not involve it.
struct Row {
  std::string target;
  size_t watchers = 0;
  size_t events = 0;        // distinct events sent in the window
  double seconds = 0;       // the window
  double delivered = 0;     // receipts of those events, all streams
  size_t fewest = 0;        // fewest of them on one stream
  double p50_ms = 0;
  double p99_ms = 0;
  double server_cpu_seconds = -1;
  size_t server_resident_bytes = 0;
  double apiserver_cpu_seconds = -1;
  size_t apiserver_resident_bytes = 0;
  // informerd's own share of the latency: p99 from an event's arrival from
  // the apiserver to its write to a watcher (informerd_dispatch_latency_seconds
  // over the window). The other hops of p99_ms are the write's way through
  // the apiserver to informerd and the stream to the client (p99s do not
  // subtract exactly, but a small one here puts the time there).
  double server_dispatch_p99_ms = -1;
};

void PrintRow(const Row& row) {
  if (absl::GetFlag(FLAGS_header)) {
    std::printf(
        "| target | watchers | events/s | deliveries/s | delivered | fewest/stream | p50 ms | "
        "p99 ms | server CPU s/1000 deliveries | server RSS MiB | apiserver CPU s | apiserver "
        "CPU s/1000 deliveries | apiserver RSS MiB | informerd dispatch p99 ms |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  const double expected = static_cast<double>(row.events) * row.watchers;
  auto per_thousand = [&row](double cpu_seconds) {
    return cpu_seconds < 0 || row.delivered == 0
               ? std::string("-")
               : absl::StrFormat("%.4f", cpu_seconds / row.delivered * 1000);
  };
  auto mib = [](double cpu_seconds, size_t bytes) {
    return cpu_seconds < 0 ? std::string("-") : absl::StrFormat("%.0f", bytes / 1048576.0);
  };
  std::printf("| %s | %zu | %.1f | %.0f | %.1f%% | %zu/%zu | %.1f | %.1f | %s | %s | %s | %s | %s | %s |\n",
              row.target.c_str(), row.watchers, row.events / row.seconds,
              row.delivered / row.seconds, expected > 0 ? 100.0 * row.delivered / expected : 0,
              row.fewest, row.events, row.p50_ms, row.p99_ms,
              per_thousand(row.server_cpu_seconds).c_str(),
              mib(row.server_cpu_seconds, row.server_resident_bytes).c_str(),
              row.apiserver_cpu_seconds < 0
                  ? "-"
                  : absl::StrFormat("%.2f", row.apiserver_cpu_seconds).c_str(),
              per_thousand(row.apiserver_cpu_seconds).c_str(),
              mib(row.apiserver_cpu_seconds, row.apiserver_resident_bytes).c_str(),
              row.server_dispatch_p99_ms < 0
                  ? "-"
                  : absl::StrFormat("%.2f", row.server_dispatch_p99_ms).c_str());
  std::fflush(stdout);
}

// The writers for `rate` writes/s (--writers, or one per 10 writes/s),
// prepared; empty after printing the error if one fails.
std::vector<std::unique_ptr<ApiserverWriter>> PrepareWriters(const ApiserverTarget& apiserver,
                                                             double rate) {
  const int writer_count = absl::GetFlag(FLAGS_writers) > 0
                               ? absl::GetFlag(FLAGS_writers)
                               : std::max(1, static_cast<int>(std::ceil(rate / 10)));
  std::vector<std::unique_ptr<ApiserverWriter>> writers;
  for (int i = 0; i < writer_count; ++i) {
    writers.push_back(std::make_unique<ApiserverWriter>(apiserver, absl::GetFlag(FLAGS_objects),
                                                        absl::GetFlag(FLAGS_object_bytes)));
    if (absl::Status status = writers.back()->Prepare(); !status.ok()) {
      std::fprintf(stderr, "%s\n", status.ToString().c_str());
      return {};
    }
  }
  return writers;
}

// Runs every writer on its own thread, each at its share of `rate`; the
// first error, if any.
absl::Status RunWriters(std::vector<std::unique_ptr<ApiserverWriter>>* writers, double rate,
                        absl::Duration duration, const std::atomic<bool>* recording) {
  std::vector<absl::Status> results(writers->size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < writers->size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = (*writers)[i]->Run(rate / writers->size(), duration, recording);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& result : results) {
    if (!result.ok()) return result;
  }
  return absl::OkStatus();
}

// The probe stamps each event with its send time (steady clock) as the
// resourceVersion; the window is the events sent during the measured
// seconds.
int RunProbe() {
  const size_t watchers = absl::GetFlag(FLAGS_watchers);
  const pid_t pid = absl::GetFlag(FLAGS_probe_pid);
  auto clients = NewInformerdWatchClients(absl::GetFlag(FLAGS_probe_address), "",
                                          absl::GetFlag(FLAGS_streams_per_connection));
  const double background_rate = absl::GetFlag(FLAGS_probe_background_rate);
  std::vector<std::unique_ptr<ApiserverWriter>> writers;
  if (background_rate > 0) {
    writers = PrepareWriters(ApiserverTargetFromFlags(), background_rate);
    if (writers.empty()) return 1;
  }
  if (!clients->Start(watchers).ok()) return 1;
  const int warmup = absl::GetFlag(FLAGS_warmup_seconds);
  const int seconds = absl::GetFlag(FLAGS_seconds);
  const int drain = absl::GetFlag(FLAGS_drain_seconds);
  absl::Status background;
  std::thread background_writes([&] {
    if (writers.empty()) return;
    const std::atomic<bool> recording{false};
    background = RunWriters(&writers, background_rate,
                            absl::Seconds(warmup + seconds + drain), &recording);
  });
  absl::SleepFor(absl::Seconds(warmup));
  const ProcStats before = ReadProcStats(pid);
  const ProcStats apiserver_before = ReadProcStats(absl::GetFlag(FLAGS_apiserver_pid));
  const int64_t window_start = SteadyNanos();
  absl::SleepFor(absl::Seconds(seconds));
  const int64_t window_end = SteadyNanos();
  absl::SleepFor(absl::Seconds(drain));
  const ProcStats after = ReadProcStats(pid);
  const ProcStats apiserver_after = ReadProcStats(absl::GetFlag(FLAGS_apiserver_pid));
  clients->Stop();
  background_writes.join();
  if (!background.ok()) {
    std::fprintf(stderr, "background writes: %s\n", background.ToString().c_str());
    return 1;
  }

  std::unordered_set<uint64_t> events;
  std::vector<double> latencies_ms;
  size_t fewest = SIZE_MAX;
  for (const std::vector<Receipt>& stream : clients->receipts()) {
    size_t matched = 0;
    for (const Receipt& receipt : stream) {
      const int64_t sent = static_cast<int64_t>(receipt.resource_version);
      if (sent < window_start || sent >= window_end) continue;
      events.insert(receipt.resource_version);
      latencies_ms.push_back((receipt.arrival_ns - sent) / 1e6);
      ++matched;
    }
    fewest = std::min(fewest, matched);
  }
  Row row;
  row.target = background_rate > 0 ? "probe+writes" : "probe";
  row.watchers = watchers;
  row.events = events.size();
  row.seconds = (window_end - window_start) / 1e9;
  row.delivered = latencies_ms.size();
  row.fewest = latencies_ms.empty() ? 0 : fewest;
  row.p50_ms = Percentile(&latencies_ms, 0.50);
  row.p99_ms = Percentile(&latencies_ms, 0.99);
  row.server_cpu_seconds = after.cpu_seconds - before.cpu_seconds;
  row.server_resident_bytes = after.resident_bytes;
  if (background_rate > 0) {
    row.apiserver_cpu_seconds = apiserver_after.cpu_seconds - apiserver_before.cpu_seconds;
    row.apiserver_resident_bytes = apiserver_after.resident_bytes;
  }
  PrintRow(row);
  return row.delivered > 0 ? 0 : 1;
}

int RunFanout() {
  const std::string target = absl::GetFlag(FLAGS_target);
  const size_t watchers = absl::GetFlag(FLAGS_watchers);
  const double rate = absl::GetFlag(FLAGS_rate);
  const ApiserverTarget apiserver = ApiserverTargetFromFlags();
  std::vector<std::unique_ptr<ApiserverWriter>> writers = PrepareWriters(apiserver, rate);
  if (writers.empty()) return 1;
  const int total_seconds = absl::GetFlag(FLAGS_warmup_seconds) + absl::GetFlag(FLAGS_seconds) +
                            absl::GetFlag(FLAGS_drain_seconds) + 10;
  std::unique_ptr<WatchClients> clients =
      target == "apiserver"
          ? NewApiserverWatchClients(apiserver.url, apiserver.ca_file, apiserver.token,
                                     apiserver.namespace_, total_seconds)
          : NewInformerdWatchClients(absl::GetFlag(FLAGS_informerd_address), apiserver.namespace_,
                                     absl::GetFlag(FLAGS_streams_per_connection));
  const std::string admin = absl::GetFlag(FLAGS_informerd_admin);
  const double open_before = target == "apiserver" ? 0 : WatchersOpen(admin);
  if (!clients->Start(watchers).ok()) return 1;
  if (target != "apiserver" && !AwaitWatchersOpen(admin, open_before + watchers)) {
    std::fprintf(stderr, "informerd did not open %zu streams\n", watchers);
    return 1;
  }

  std::atomic<bool> recording{false};
  if (absl::Status s = RunWriters(&writers, rate, absl::Seconds(absl::GetFlag(FLAGS_warmup_seconds)),
                                  &recording);
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const ProcStats informerd_before = ReadProcStats(absl::GetFlag(FLAGS_informerd_pid));
  const ProcStats apiserver_before = ReadProcStats(absl::GetFlag(FLAGS_apiserver_pid));
  const std::string metrics_before = target == "apiserver" ? "" : MetricsText(admin);
  recording.store(true);
  const absl::Time start = absl::Now();
  if (absl::Status s = RunWriters(&writers, rate, absl::Seconds(absl::GetFlag(FLAGS_seconds)),
                                  &recording);
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const double write_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  absl::SleepFor(absl::Seconds(absl::GetFlag(FLAGS_drain_seconds)));
  const ProcStats informerd_after = ReadProcStats(absl::GetFlag(FLAGS_informerd_pid));
  const ProcStats apiserver_after = ReadProcStats(absl::GetFlag(FLAGS_apiserver_pid));
  const std::string metrics_after = target == "apiserver" ? "" : MetricsText(admin);
  clients->Stop();

  std::vector<Write> written;
  for (const auto& writer : writers) {
    written.insert(written.end(), writer->writes().begin(), writer->writes().end());
  }
  Deliveries deliveries = MatchDeliveries(written, clients->receipts());
  std::vector<double>& latencies_ms = deliveries.latencies_ms;
  const double delivered = latencies_ms.size();

  Row row;
  row.target = target;
  row.watchers = watchers;
  row.events = written.size();
  row.seconds = write_seconds;
  row.delivered = delivered;
  row.fewest = deliveries.fewest;
  row.p50_ms = Percentile(&latencies_ms, 0.50);
  row.p99_ms = Percentile(&latencies_ms, 0.99);
  if (target != "apiserver") {
    row.server_cpu_seconds = informerd_after.cpu_seconds - informerd_before.cpu_seconds;
    row.server_resident_bytes = informerd_after.resident_bytes;
    const double dispatch_p99 = HistogramQuantileBetween(
        metrics_before, metrics_after, "informerd_dispatch_latency_seconds", 0.99);
    if (dispatch_p99 >= 0) row.server_dispatch_p99_ms = dispatch_p99 * 1000;
  }
  row.apiserver_cpu_seconds = apiserver_after.cpu_seconds - apiserver_before.cpu_seconds;
  row.apiserver_resident_bytes = apiserver_after.resident_bytes;
  PrintRow(row);
  return delivered > 0 ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_target) == "idle") return informerd::bench::RunIdle();
  if (absl::GetFlag(FLAGS_target) == "probe") return informerd::bench::RunProbe();
  return informerd::bench::RunFanout();
}
