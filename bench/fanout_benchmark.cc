// Fan-out: N watchers of one resource while one writer patches ~10 KB
// ConfigMaps through the kube-apiserver at a fixed rate. Prints one table
// row per run: deliveries/s, delivery latency (write response to client
// receipt, same machine and clock), and the CPU each server spent per 1000
// deliveries, read from /proc around the measurement window.
//
//   --target=informerd  N gRPC Watch streams on informerd (one upstream watch)
//   --target=apiserver  N HTTP watches straight to kube-apiserver
//   --target=idle       N informerd streams and no writes: RSS per idle watcher
//
// bench/fanout.sh starts informerd and runs the table; see docs/BENCHMARKS.md.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <httplib.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/apiserver_writer.h"
#include "bench/proc_stats.h"
#include "bench/watch_clients.h"

ABSL_FLAG(std::string, target, "informerd", "informerd, apiserver or idle");
ABSL_FLAG(int, watchers, 100, "number of watch streams");
ABSL_FLAG(double, rate, 20, "writes per second");
ABSL_FLAG(int, warmup_seconds, 3, "writes before measuring (streams settle)");
ABSL_FLAG(int, seconds, 10, "measured writes");
ABSL_FLAG(int, drain_seconds, 2, "wait after the last write for deliveries");
ABSL_FLAG(int, objects, 10, "ConfigMaps patched round-robin");
ABSL_FLAG(int, object_bytes, 10240, "ConfigMap data size");
ABSL_FLAG(int, streams_per_connection, 100, "informerd streams per gRPC connection");
ABSL_FLAG(std::string, informerd_address, "127.0.0.1:50071", "informerd gRPC address");
ABSL_FLAG(std::string, informerd_admin, "http://127.0.0.1:8071", "informerd admin URL");
ABSL_FLAG(int, informerd_pid, 0, "informerd's pid, for CPU and RSS");
ABSL_FLAG(int, apiserver_pid, 0, "kube-apiserver's pid, for CPU and RSS");
ABSL_FLAG(std::string, apiserver_url, "", "kube-apiserver URL");
ABSL_FLAG(std::string, ca_file, "", "kube-apiserver CA file");
ABSL_FLAG(std::string, token_file, "", "bearer token file (admin)");
ABSL_FLAG(std::string, namespace_, "", "namespace to write and watch (unique per run)");
ABSL_FLAG(bool, header, false, "print the table header first");

namespace informerd::bench {
namespace {

std::string ReadToken(const std::string& path) {
  std::ifstream file(path);
  std::string token;
  file >> token;
  return token;
}

double Percentile(std::vector<double>* values, double fraction) {
  if (values->empty()) return 0;
  size_t rank = static_cast<size_t>(fraction * (values->size() - 1));
  std::nth_element(values->begin(), values->begin() + rank, values->end());
  return (*values)[rank];
}

// informerd_watchers_open summed over resources, or -1.
double WatchersOpen(const std::string& admin_url) {
  httplib::Client client(admin_url);
  auto response = client.Get("/metrics");
  if (!response || response->status != 200) return -1;
  std::istringstream lines(response->body);
  double total = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("informerd_watchers_open", 0) != 0) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) total += value;
  }
  return total;
}

// Polls informerd until `count` streams are open; false after a minute.
bool AwaitWatchersOpen(const std::string& admin_url, double count) {
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (WatchersOpen(admin_url) < count) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(200));
  }
  return true;
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

int RunFanout() {
  const std::string target = absl::GetFlag(FLAGS_target);
  const size_t watchers = absl::GetFlag(FLAGS_watchers);
  const double rate = absl::GetFlag(FLAGS_rate);
  const ApiserverTarget apiserver{absl::GetFlag(FLAGS_apiserver_url),
                                  absl::GetFlag(FLAGS_ca_file),
                                  ReadToken(absl::GetFlag(FLAGS_token_file)),
                                  absl::GetFlag(FLAGS_namespace_)};
  ApiserverWriter writer(apiserver, absl::GetFlag(FLAGS_objects),
                         absl::GetFlag(FLAGS_object_bytes));
  if (absl::Status status = writer.Prepare(); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
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
  if (absl::Status s = writer.Run(rate, absl::Seconds(absl::GetFlag(FLAGS_warmup_seconds)),
                                  &recording);
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const ProcStats informerd_before = ReadProcStats(absl::GetFlag(FLAGS_informerd_pid));
  const ProcStats apiserver_before = ReadProcStats(absl::GetFlag(FLAGS_apiserver_pid));
  recording.store(true);
  const absl::Time start = absl::Now();
  if (absl::Status s = writer.Run(rate, absl::Seconds(absl::GetFlag(FLAGS_seconds)), &recording);
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const double write_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  absl::SleepFor(absl::Seconds(absl::GetFlag(FLAGS_drain_seconds)));
  const ProcStats informerd_after = ReadProcStats(absl::GetFlag(FLAGS_informerd_pid));
  const ProcStats apiserver_after = ReadProcStats(absl::GetFlag(FLAGS_apiserver_pid));
  clients->Stop();

  std::unordered_map<uint64_t, int64_t> written;
  for (const Write& write : writer.writes()) written[write.resource_version] = write.response_ns;
  std::vector<double> latencies_ms;
  size_t fewest = SIZE_MAX;
  for (const std::vector<Receipt>& stream : clients->receipts()) {
    size_t matched = 0;
    for (const Receipt& receipt : stream) {
      auto it = written.find(receipt.resource_version);
      if (it == written.end()) continue;
      latencies_ms.push_back((receipt.arrival_ns - it->second) / 1e6);
      ++matched;
    }
    fewest = std::min(fewest, matched);
  }
  if (latencies_ms.empty()) fewest = 0;
  const double delivered = latencies_ms.size();
  const double expected = static_cast<double>(written.size()) * watchers;
  const double informerd_cpu = informerd_after.cpu_seconds - informerd_before.cpu_seconds;
  const double apiserver_cpu = apiserver_after.cpu_seconds - apiserver_before.cpu_seconds;
  const double p50 = Percentile(&latencies_ms, 0.50);
  const double p99 = Percentile(&latencies_ms, 0.99);

  if (absl::GetFlag(FLAGS_header)) {
    std::printf(
        "| target | watchers | writes/s | deliveries/s | delivered | fewest/stream | p50 ms | p99 ms | "
        "informerd CPU s/1000 deliveries | informerd RSS MiB | apiserver CPU s | apiserver CPU "
        "s/1000 deliveries | apiserver RSS MiB |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  const bool informerd = target != "apiserver";
  std::printf("| %s | %zu | %.1f | %.0f | %.1f%% | %zu/%zu | %.1f | %.1f | %s | %s | %.2f | %.3f | "
              "%.0f |\n",
              target.c_str(), watchers, written.size() / write_seconds,
              delivered / write_seconds, expected > 0 ? 100.0 * delivered / expected : 0, fewest,
              written.size(), p50, p99,
              informerd ? absl::StrCat(informerd_cpu / delivered * 1000).c_str() : "-",
              informerd ? absl::StrCat(informerd_after.resident_bytes / 1048576).c_str() : "-",
              apiserver_cpu, delivered > 0 ? apiserver_cpu / delivered * 1000 : 0,
              apiserver_after.resident_bytes / 1048576.0);
  std::fflush(stdout);
  return delivered > 0 ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_target) == "idle") return informerd::bench::RunIdle();
  return informerd::bench::RunFanout();
}
