// Tiers (issue 16, item 3): one root informerd reading the kube-apiserver
// and L leaf informerds reading the root (`--upstream grpc://ROOT`), each
// leaf on a host of its own (bench/tiers.sh puts each in a network
// namespace); W watch streams on every leaf, a few straight on the root,
// one writer patching ConfigMaps through the apiserver. The root and the
// leaves are this program's children (--root_command, --leaf_command with
// {leaf} for the leaf's number, 1..L, run under /bin/sh).
//
//   --mode=fanout  one row: the apiserver's WATCH requests on configmaps
//                  that this run added (one, the root's, whatever L is), the
//                  CPU of the apiserver, the root and each leaf over the
//                  measured window, write-to-watcher latency on the root and
//                  on the leaves (the difference is what a tier adds), and
//                  events lost (written events some watcher never got, once
//                  deliveries have stopped: a backlog is late, not lost).
//                  --leaves=0 is the reference: a single informerd with all
//                  the watchers.
//   --mode=kill    under writes, leaf 1 is killed with SIGKILL and its
//                  watchers resume on leaf 2 from their last version; then
//                  the root is killed, stays down --down_seconds and starts
//                  again, and the leaves resume from their last version. One
//                  row: relists (informerd_watch_initial_states_total served
//                  after setup, on the root and every surviving leaf),
//                  events replayed and missed over all watchers.
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "bench/apiserver_flags.h"
#include "bench/apiserver_writer.h"
#include "bench/child_process.h"
#include "bench/deliveries.h"
#include "bench/informerd_metrics.h"
#include "bench/measurement.h"
#include "bench/proc_stats.h"
#include "bench/resuming_streams.h"
#include "bench/watch_clients.h"

ABSL_FLAG(std::string, mode, "fanout", "fanout or kill");
ABSL_FLAG(int, leaves, 4, "leaf informerds (0: a single informerd, the reference)");
ABSL_FLAG(int, watchers, 2500, "watch streams per leaf (--leaves=0: on the single informerd)");
ABSL_FLAG(int, root_watchers, 100, "watch streams straight on the root (fanout, with leaves)");
ABSL_FLAG(double, rate, 5, "writes per second");
ABSL_FLAG(int, warmup_seconds, 2, "writes before measuring");
ABSL_FLAG(int, seconds, 10, "measured writes");
ABSL_FLAG(int, quiet_seconds, 2,
          "after the last write, deliveries are over once none arrived this long");
ABSL_FLAG(int, max_drain_seconds, 120, "... or this long after the last write");
ABSL_FLAG(int, object_bytes, 1024, "ConfigMap data size");
ABSL_FLAG(int, streams_per_connection, 100, "streams per gRPC connection");
ABSL_FLAG(double, down_seconds, 2, "kill mode: how long the root stays down");
ABSL_FLAG(std::string, root_command, "", "shell command that runs the root");
ABSL_FLAG(std::string, leaf_command, "", "shell command that runs leaf {leaf}");
ABSL_FLAG(std::string, root_address, "", "the root's gRPC HOST:PORT, as watchers reach it");
ABSL_FLAG(std::string, root_admin, "", "the root's admin URL");
ABSL_FLAG(std::string, leaf_address, "", "leaf {leaf}'s gRPC HOST:PORT");
ABSL_FLAG(std::string, leaf_admin, "", "leaf {leaf}'s admin URL");
ABSL_FLAG(int, apiserver_pid, 0, "kube-apiserver's pid, for its CPU");
ABSL_FLAG(bool, header, false, "print the table header first");

namespace informerd::bench {
namespace {

constexpr char kInitialStates[] = "informerd_watch_initial_states_total";

std::string ForLeaf(const std::string& pattern, int leaf) {
  return absl::StrReplaceAll(pattern, {{"{leaf}", absl::StrCat(leaf)}});
}
std::string LeafAddress(int leaf) { return ForLeaf(absl::GetFlag(FLAGS_leaf_address), leaf); }
std::string LeafAdmin(int leaf) { return ForLeaf(absl::GetFlag(FLAGS_leaf_admin), leaf); }

// The apiserver's open WATCH requests on configmaps (any namespace, any
// client): apiserver_longrunning_requests, as 1.37 exports it; -1 when
// /metrics cannot be read. The median of five samples 200 ms apart, so a
// short watch of another client on a shared apiserver is not counted.
double ApiserverWatches(const ApiserverTarget& apiserver) {
  httplib::Client client(apiserver.url);
  client.set_ca_cert_path(apiserver.ca_file.c_str());
  client.set_bearer_token_auth(apiserver.token.c_str());
  std::vector<double> samples;
  for (int i = 0; i < 5; ++i) {
    if (i > 0) absl::SleepFor(absl::Milliseconds(200));
    auto response = client.Get("/metrics");
    if (!response || response->status != 200) return -1;
    samples.push_back(SumMetricSamples(response->body, "apiserver_longrunning_requests",
                                       {"resource=\"configmaps\"", "verb=\"WATCH\""}));
  }
  return Percentile(&samples, 0.5);
}

// The root and its leaves as child processes. Leaves are numbered from 1;
// a killed one keeps pid 0.
class Tier {
 public:
  ~Tier() {
    for (pid_t leaf : leaves_) KillAndReap(leaf);
    KillAndReap(root_);
  }

  // Starts the root, then `leaves` leaves; true once all are ready.
  bool Start(int leaves) {
    if (!StartRoot()) return false;
    for (int leaf = 1; leaf <= leaves; ++leaf) {
      leaves_.push_back(SpawnShell(ForLeaf(absl::GetFlag(FLAGS_leaf_command), leaf)));
      if (leaves_.back() == 0 || !AwaitReady(LeafAdmin(leaf))) {
        std::fprintf(stderr, "leaf %d did not become ready\n", leaf);
        return false;
      }
    }
    return true;
  }

  bool StartRoot() {
    root_ = SpawnShell(absl::GetFlag(FLAGS_root_command));
    if (root_ == 0 || !AwaitReady(absl::GetFlag(FLAGS_root_admin))) {
      std::fprintf(stderr, "the root did not become ready\n");
      return false;
    }
    return true;
  }
  void KillRoot() {
    KillAndReap(root_);
    root_ = 0;
  }
  void KillLeaf(int leaf) {
    KillAndReap(leaves_[leaf - 1]);
    leaves_[leaf - 1] = 0;
  }

  pid_t root() const { return root_; }
  const std::vector<pid_t>& leaves() const { return leaves_; }

 private:
  pid_t root_ = 0;
  std::vector<pid_t> leaves_;
};

std::string Ms(std::vector<double>* latencies) {
  if (latencies->empty()) return "-";
  const double p50 = Percentile(latencies, 0.50);
  return absl::StrFormat("%.1f / %.1f", p50, Percentile(latencies, 0.99));
}

int RunFanout() {
  const int leaves = absl::GetFlag(FLAGS_leaves);
  const size_t per_leaf = absl::GetFlag(FLAGS_watchers);
  const size_t on_root = leaves == 0 ? per_leaf : absl::GetFlag(FLAGS_root_watchers);
  const size_t per_connection = absl::GetFlag(FLAGS_streams_per_connection);
  const double rate = absl::GetFlag(FLAGS_rate);
  const std::string root_admin = absl::GetFlag(FLAGS_root_admin);
  const ApiserverTarget apiserver = ApiserverTargetFromFlags();
  ApiserverWriter writer(apiserver, 10, absl::GetFlag(FLAGS_object_bytes));
  if (absl::Status status = writer.Prepare(); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  const double watches_before = ApiserverWatches(apiserver);
  Tier tier;
  if (!tier.Start(leaves)) return 1;

  auto root_clients = NewInformerdWatchClients(absl::GetFlag(FLAGS_root_address),
                                               apiserver.namespace_, per_connection);
  std::vector<std::unique_ptr<WatchClients>> leaf_clients;
  if (!root_clients->Start(on_root).ok()) return 1;
  for (int leaf = 1; leaf <= leaves; ++leaf) {
    leaf_clients.push_back(
        NewInformerdWatchClients(LeafAddress(leaf), apiserver.namespace_, per_connection));
    if (!leaf_clients.back()->Start(per_leaf).ok()) return 1;
  }
  // The root's watchers include each leaf's upstream Watch.
  bool open = AwaitWatchersOpen(root_admin, on_root + leaves, absl::Seconds(120));
  for (int leaf = 1; leaf <= leaves; ++leaf) {
    open = open && AwaitWatchersOpen(LeafAdmin(leaf), per_leaf, absl::Seconds(120));
  }
  if (!open) {
    std::fprintf(stderr, "the watch streams did not all open\n");
    return 1;
  }

  std::atomic<bool> recording{false};
  if (absl::Status s = writer.Run(rate, absl::Seconds(absl::GetFlag(FLAGS_warmup_seconds)),
                                  &recording);
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const double watches_during = ApiserverWatches(apiserver);
  const pid_t apiserver_pid = absl::GetFlag(FLAGS_apiserver_pid);
  auto cpu_now = [&] {
    std::vector<double> cpu = {ReadProcStats(apiserver_pid).cpu_seconds,
                               ReadProcStats(tier.root()).cpu_seconds};
    for (pid_t leaf : tier.leaves()) cpu.push_back(ReadProcStats(leaf).cpu_seconds);
    return cpu;
  };
  const std::vector<double> cpu_before = cpu_now();
  recording.store(true);
  if (absl::Status s = writer.Run(rate, absl::Seconds(absl::GetFlag(FLAGS_seconds)), &recording);
      !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  // A backlog is delivered late rather than lost: wait for it to drain.
  const absl::Time last_write = absl::Now();
  const absl::Duration quiet = absl::Seconds(absl::GetFlag(FLAGS_quiet_seconds));
  const absl::Time drain_deadline =
      last_write + absl::Seconds(absl::GetFlag(FLAGS_max_drain_seconds));
  auto received = [&] {
    size_t total = root_clients->received();
    for (auto& clients : leaf_clients) total += clients->received();
    return total;
  };
  size_t seen = received();
  absl::Time changed = absl::Now();
  while (absl::Now() - changed < quiet && absl::Now() < drain_deadline) {
    absl::SleepFor(absl::Milliseconds(100));
    if (const size_t now = received(); now != seen) {
      seen = now;
      changed = absl::Now();
    }
  }
  const double drain_seconds = absl::ToDoubleSeconds(changed - last_write);
  const std::vector<double> cpu_after = cpu_now();
  root_clients->Stop();
  for (auto& clients : leaf_clients) clients->Stop();

  Deliveries on_root_deliveries = MatchDeliveries(writer.writes(), root_clients->receipts());
  std::vector<std::vector<Receipt>> leaf_receipts;
  for (auto& clients : leaf_clients) {
    for (auto& stream : clients->receipts()) leaf_receipts.push_back(std::move(stream));
  }
  Deliveries on_leaves = MatchDeliveries(writer.writes(), leaf_receipts);
  const size_t lost = on_root_deliveries.lost + on_leaves.lost;
  std::string added = "-";
  if (!on_leaves.latencies_ms.empty() && !on_root_deliveries.latencies_ms.empty()) {
    added = absl::StrFormat("%.1f / %.1f",
                            Percentile(&on_leaves.latencies_ms, 0.50) -
                                Percentile(&on_root_deliveries.latencies_ms, 0.50),
                            Percentile(&on_leaves.latencies_ms, 0.99) -
                                Percentile(&on_root_deliveries.latencies_ms, 0.99));
  }
  double leaf_cpu = 0;
  for (int leaf = 0; leaf < leaves; ++leaf) leaf_cpu += cpu_after[2 + leaf] - cpu_before[2 + leaf];

  if (absl::GetFlag(FLAGS_header)) {
    std::printf(
        "| leaves | watchers per leaf | watchers on root | writes/s | writes | apiserver "
        "configmap WATCHes added | apiserver CPU s | root CPU s | leaf CPU s (mean) | root "
        "watchers p50 / p99 ms | leaf watchers p50 / p99 ms | added by the tier p50 / p99 ms | "
        "last write to last delivery s | events lost | verdict |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  // Other clients of a shared apiserver move the gauge too: the verdict
  // only catches more WATCHes than a single informerd's one (a leaf that
  // watched the apiserver would add one each).
  const double watches_added = watches_during - watches_before;
  const bool passed = lost == 0 && !writer.writes().empty() && watches_added <= 1;
  std::printf("| %d | %s | %zu | %.0f | %zu | %.0f (%.0f → %.0f) | %.2f | %.2f | %s | %s | %s | %s "
              "| %.1f | %zu | %s |\n",
              leaves, leaves == 0 ? "-" : absl::StrCat(per_leaf).c_str(), on_root, rate,
              writer.writes().size(), watches_added, watches_before, watches_during,
              cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1],
              leaves == 0 ? "-" : absl::StrFormat("%.2f", leaf_cpu / leaves).c_str(),
              Ms(&on_root_deliveries.latencies_ms).c_str(), Ms(&on_leaves.latencies_ms).c_str(),
              added.c_str(), drain_seconds, lost, passed ? "pass" : "FAIL");
  std::fflush(stdout);
  return passed ? 0 : 1;
}

int RunKill() {
  const int leaves = absl::GetFlag(FLAGS_leaves);
  if (leaves < 2) {
    std::fprintf(stderr, "--mode=kill needs --leaves >= 2\n");
    return 2;
  }
  const size_t per_leaf = absl::GetFlag(FLAGS_watchers);
  const size_t per_connection = absl::GetFlag(FLAGS_streams_per_connection);
  const double rate = absl::GetFlag(FLAGS_rate);
  const std::string root_admin = absl::GetFlag(FLAGS_root_admin);
  const absl::Duration down = absl::Seconds(absl::GetFlag(FLAGS_down_seconds));
  const ApiserverTarget apiserver = ApiserverTargetFromFlags();
  ApiserverWriter writer(apiserver, 10, absl::GetFlag(FLAGS_object_bytes));
  if (absl::Status status = writer.Prepare(); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  auto write_for = [&](absl::Duration duration) { return writer.RunRecorded(rate, duration); };
  Tier tier;
  if (!tier.Start(leaves)) return 1;
  // sets[i]: the watchers of leaf i + 1, all opened before the first write.
  std::vector<std::unique_ptr<StreamSet>> sets;
  for (int leaf = 1; leaf <= leaves; ++leaf) {
    sets.push_back(
        std::make_unique<StreamSet>(LeafAddress(leaf), apiserver.namespace_, per_connection));
    sets.back()->Open(std::vector<uint64_t>(per_leaf, 0));
  }
  bool ready = true;
  for (int leaf = 1; leaf <= leaves; ++leaf) {
    ready = ready && AwaitWatchersOpen(LeafAdmin(leaf), per_leaf, absl::Seconds(120));
  }
  ready = ready && write_for(absl::Seconds(2));
  for (auto& set : sets) {
    ready = ready && AwaitAll(set.get(), writer.writes().back().resource_version,
                              absl::Seconds(60));
  }
  if (!ready) {
    std::fprintf(stderr, "streams did not receive the first writes\n");
    return 1;
  }
  // Full states served so far: the leaves' first syncs from the root.
  std::vector<double> initial_before;
  for (int leaf = 1; leaf <= leaves; ++leaf) {
    initial_before.push_back(SumMetric(LeafAdmin(leaf), kInitialStates));
  }

  // The writer goes on through both kills.
  bool writes_ok = true;
  std::thread writes(
      [&] { writes_ok = write_for(absl::Seconds(1 + 3) + down + absl::Seconds(3)); });
  absl::SleepFor(absl::Seconds(1));
  // Leaf 1 dies; its watchers resume on leaf 2 from the last version each saw.
  tier.KillLeaf(1);
  std::vector<uint64_t> resume_points;
  for (auto& stream : sets[0]->streams()) {
    stream->AwaitDone();
    resume_points.push_back(stream->last());
  }
  StreamSet moved(LeafAddress(2), apiserver.namespace_, per_connection);
  moved.Open(resume_points);
  // Phases, not synchronisation: the moved watchers resume under writes
  // before the root goes down.
  absl::SleepFor(absl::Seconds(3));
  const absl::Time root_killed = absl::Now();
  tier.KillRoot();
  absl::SleepFor(down);
  const bool root_back = tier.StartRoot();
  writes.join();
  const uint64_t target = writer.writes().back().resource_version;
  bool caught_up = root_back && writes_ok && AwaitAll(&moved, target, absl::Seconds(60));
  for (int leaf = 2; leaf <= leaves; ++leaf) {
    caught_up = caught_up && AwaitAll(sets[leaf - 1].get(), target, absl::Seconds(60));
  }
  const absl::Duration recovery = absl::Now() - root_killed;
  // Live events after the resumes reach everyone too.
  caught_up = caught_up && write_for(absl::Seconds(1));
  const uint64_t last = writer.writes().back().resource_version;
  caught_up = caught_up && AwaitAll(&moved, last, absl::Seconds(30));
  for (int leaf = 2; leaf <= leaves; ++leaf) {
    caught_up = caught_up && AwaitAll(sets[leaf - 1].get(), last, absl::Seconds(30));
  }

  // Relists: full states the new root served (to its leaves) and the
  // surviving leaves served (to their watchers) after setup.
  double relists = std::max(0.0, SumMetric(root_admin, kInitialStates));
  for (int leaf = 2; leaf <= leaves; ++leaf) {
    relists += SumMetric(LeafAdmin(leaf), kInitialStates) - initial_before[leaf - 1];
  }
  std::vector<uint64_t> written;
  for (const Write& write : writer.writes()) written.push_back(write.resource_version);
  size_t replayed = 0;
  size_t missed = 0;
  size_t refused = 0;
  for (size_t i = 0; i < resume_points.size(); ++i) {
    ResumingStream& before = *sets[0]->streams()[i];
    ResumingStream& after = *moved.streams()[i];
    std::vector<uint64_t> until_kill;
    for (uint64_t version : written) {
      if (version <= resume_points[i]) until_kill.push_back(version);
    }
    replayed += before.replayed() + after.replayed();
    missed += before.Missing(until_kill) + after.Missing(written);
    if (after.refused_as_too_old()) ++refused;
  }
  for (int leaf = 2; leaf <= leaves; ++leaf) {
    for (auto& stream : sets[leaf - 1]->streams()) {
      replayed += stream->replayed();
      missed += stream->Missing(written);
      if (stream->refused_as_too_old()) ++refused;
    }
  }
  moved.Close();
  for (auto& set : sets) set->Close();

  if (absl::GetFlag(FLAGS_header)) {
    std::printf(
        "| leaves | watchers per leaf | writes/s | writes | watchers moved from the killed leaf | "
        "root down s | root kill to all caught up s | relists (full states served) | "
        "resumes refused | replayed events | missed events | verdict |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  const bool passed = caught_up && relists == 0 && refused == 0 && replayed == 0 && missed == 0;
  std::printf("| %d | %zu | %.0f | %zu | %zu | %.1f | %s | %.0f | %zu | %zu | %zu | %s |\n",
              leaves, per_leaf, rate, written.size(), resume_points.size(),
              absl::ToDoubleSeconds(down),
              caught_up ? absl::StrFormat("%.2f", absl::ToDoubleSeconds(recovery)).c_str()
                        : "never",
              relists, refused, replayed, missed, passed ? "pass" : "FAIL");
  std::fflush(stdout);
  return passed ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_mode) == "kill") return informerd::bench::RunKill();
  return informerd::bench::RunFanout();
}
