// Restart under writes (issue "many replicas and tiers", item 2): N
// watchers follow informerd; informerd is killed with SIGKILL while a
// writer keeps patching through the kube-apiserver, stays down a while,
// and is started again; every watcher then resumes from the last
// resourceVersion it saw, as a client library does. The new process's
// history begins after those versions, so each resume is served from a
// backfill (historyBackfill: true) or refused OUT_OF_RANGE, which makes a
// client list again (false, as before the backfill). Prints one table row:
//   - resumes refused (client relists),
//   - kill to every watcher caught up with the last write made while
//     informerd was down or starting,
//   - events replayed (at or before a resume point) and missed (writes
//     after a resume point that never arrived, the refused streams' too).
//
// informerd is this program's child: --informerd_command runs under
// /bin/sh (prefixed with exec), once before and once after the kill.
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/apiserver_flags.h"
#include "bench/apiserver_writer.h"
#include "bench/child_process.h"
#include "bench/informerd_metrics.h"
#include "bench/measurement.h"
#include "bench/resuming_streams.h"

ABSL_FLAG(int, watchers, 1000, "watch streams that resume after the restart");
ABSL_FLAG(int, streams_per_connection, 100, "streams per gRPC connection");
ABSL_FLAG(double, rate, 20, "writes per second, before, during and after the restart");
ABSL_FLAG(double, down_seconds, 2, "how long informerd stays down");
ABSL_FLAG(std::string, informerd_command, "", "the shell command that runs informerd");
ABSL_FLAG(std::string, informerd_address, "127.0.0.1:20077", "informerd gRPC address");
ABSL_FLAG(std::string, informerd_admin, "http://127.0.0.1:8077", "informerd admin URL");
ABSL_FLAG(std::string, label, "", "the first column: what this row's informerd differs by");
ABSL_FLAG(bool, expect_resumes, true,
          "exit 1 unless every resume succeeded with nothing replayed or missed");
ABSL_FLAG(bool, header, false, "print the table header first");

namespace informerd::bench {
namespace {

pid_t SpawnInformerd() { return SpawnShell(absl::GetFlag(FLAGS_informerd_command)); }

int Run() {
  const size_t watchers = absl::GetFlag(FLAGS_watchers);
  const double rate = absl::GetFlag(FLAGS_rate);
  const std::string admin = absl::GetFlag(FLAGS_informerd_admin);
  const std::string address = absl::GetFlag(FLAGS_informerd_address);
  const size_t per_connection = absl::GetFlag(FLAGS_streams_per_connection);
  const ApiserverTarget apiserver = ApiserverTargetFromFlags();
  ApiserverWriter writer(apiserver, 10, 1024);
  if (absl::Status status = writer.Prepare(); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  auto write_for = [&](absl::Duration duration) { return writer.RunRecorded(rate, duration); };

  pid_t pid = SpawnInformerd();
  if (pid == 0 || !AwaitReady(admin)) {
    std::fprintf(stderr, "informerd did not become ready\n");
    if (pid != 0) KillAndReap(pid);
    return 1;
  }
  // Every stream sees some events, so each has its own resume point.
  StreamSet before(address, apiserver.namespace_, per_connection);
  before.Open(std::vector<uint64_t>(watchers, 0));
  if (!AwaitWatchersOpen(admin, watchers) || !write_for(absl::Seconds(2)) ||
      !AwaitAll(&before, writer.writes().back().resource_version, absl::Seconds(30))) {
    std::fprintf(stderr, "streams did not receive the first writes\n");
    KillAndReap(pid);
    return 1;
  }

  // The writer goes on through the kill, the time down and the restart.
  const absl::Duration down = absl::Seconds(absl::GetFlag(FLAGS_down_seconds));
  bool writes_ok = true;
  std::thread writes([&] { writes_ok = write_for(absl::Seconds(1) + down + absl::Seconds(3)); });
  absl::SleepFor(absl::Seconds(1));
  std::vector<uint64_t> resume_points;
  for (auto& stream : before.streams()) resume_points.push_back(stream->last());
  const absl::Time killed = absl::Now();
  KillAndReap(pid);
  before.Close();
  absl::SleepFor(down);
  pid = SpawnInformerd();
  const bool ready = pid != 0 && AwaitReady(admin);
  StreamSet after(address, apiserver.namespace_, per_connection);
  if (ready) after.Open(resume_points);
  writes.join();
  // The last write made while informerd was down or starting.
  const uint64_t target = writer.writes().back().resource_version;
  bool caught_up = ready && writes_ok && AwaitAll(&after, target, absl::Seconds(60));
  const absl::Duration recovery = absl::Now() - killed;
  // Live events after the resume reach everyone too.
  caught_up = caught_up && write_for(absl::Seconds(1)) &&
              AwaitAll(&after, writer.writes().back().resource_version, absl::Seconds(30));

  std::vector<uint64_t> written;
  for (const Write& write : writer.writes()) written.push_back(write.resource_version);
  size_t refused = 0;
  size_t replayed = 0;
  size_t missing = 0;
  for (auto& stream : after.streams()) {
    replayed += stream->replayed();
    missing += stream->Missing(written);
    // Streams still open have an OK status.
    if (stream->refused_as_too_old()) ++refused;
  }
  after.Close();
  if (pid != 0) KillAndReap(pid);

  if (absl::GetFlag(FLAGS_header)) {
    std::printf(
        "| historyBackfill | watchers | writes/s | down s | resumes refused (client relists) | "
        "kill to all caught up s | replayed events | missed events | verdict |\n"
        "|---|---|---|---|---|---|---|---|---|\n");
  }
  const bool passed = caught_up && refused == 0 && replayed == 0 && missing == 0;
  const bool expect = absl::GetFlag(FLAGS_expect_resumes);
  std::printf("| %s | %zu | %.0f | %.1f | %zu | %s | %zu | %zu | %s |\n",
              absl::GetFlag(FLAGS_label).c_str(), watchers, rate, absl::ToDoubleSeconds(down),
              refused,
              caught_up ? absl::StrFormat("%.2f", absl::ToDoubleSeconds(recovery)).c_str()
                        : "never",
              replayed, missing, expect ? (passed ? "pass" : "FAIL") : "reference");
  std::fflush(stdout);
  return !expect || passed ? 0 : 1;
}

}  // namespace
}  // namespace informerd::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return informerd::bench::Run();
}
