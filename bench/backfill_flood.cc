// backfill_flood: the history-backfill attack of issue 26 (finding 1)
// against a running informerd, printing what it cost (see
// bench/backfill_attack.h): one line
//   backfill_attack rounds=.. resumed=.. refused=CODE:N,.. seconds=..
//     objects=.. rss_steady_mib=.. rss_after_mib=.. rss_peak_mib=..
//     rss_after_ratio=.. rss_peak_ratio=.. extra_list_requests=..
//     full_list_requests=.. extra_full_lists=..
// then a verdict line against the bound (RSS within 1.2x of its steady
// state, at most one extra full LIST), and exits 1 when it is not met.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "bench/apiserver_flags.h"
#include "bench/backfill_attack.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "informerd's gRPC address (plaintext)");
ABSL_FLAG(std::string, attacker_token_file, "",
          "the attacker's bearer token, when informerd asks for one");
ABSL_FLAG(std::string, group, "", "the served resource's group (\"\": core)");
ABSL_FLAG(std::string, version, "v1", "the served resource's version");
ABSL_FLAG(std::string, resource, "pods", "the served resource (one nothing else lists)");
ABSL_FLAG(std::string, watch_namespace, "default", "the namespace the attacker watches");
ABSL_FLAG(int, rounds, 10, "resumes, each one version older than the last oldest");
ABSL_FLAG(int, informerd_pid, 0, "informerd's process id, for its RSS");
ABSL_FLAG(int, page_size, 500, "informerd's upstream LIST page size");
ABSL_FLAG(double, max_rss_ratio, 1.2, "the bound on RSS (peak and after) over steady state");
ABSL_FLAG(double, max_extra_full_lists, 1.0, "the bound on extra full LISTs per window");
ABSL_FLAG(int, window_seconds, 60, "informerd's backfill window");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  using informerd::bench::BackfillAttackOptions;
  BackfillAttackOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  if (const std::string path = absl::GetFlag(FLAGS_attacker_token_file); !path.empty()) {
    std::ifstream file(path);
    std::stringstream token;
    token << file.rdbuf();
    options.bearer_token = std::string(absl::StripAsciiWhitespace(token.str()));
  }
  options.group = absl::GetFlag(FLAGS_group);
  options.version = absl::GetFlag(FLAGS_version);
  options.resource = absl::GetFlag(FLAGS_resource);
  options.namespace_ = absl::GetFlag(FLAGS_watch_namespace);
  options.rounds = absl::GetFlag(FLAGS_rounds);
  options.informerd_pid = absl::GetFlag(FLAGS_informerd_pid);
  options.page_size = absl::GetFlag(FLAGS_page_size);
  options.window = absl::Seconds(absl::GetFlag(FLAGS_window_seconds));
  options.apiserver = informerd::bench::ApiserverTargetFromFlags();
  if (options.informerd_pid <= 0) {
    std::fprintf(stderr, "--informerd_pid: want informerd's process id\n");
    return 2;
  }
  absl::StatusOr<informerd::bench::BackfillAttackResult> result =
      informerd::bench::RunBackfillAttack(options);
  if (!result.ok()) {
    std::fprintf(stderr, "backfill_flood: %s\n", result.status().ToString().c_str());
    return 2;
  }
  std::printf("%s\n", result->Summary().c_str());
  const double max_rss = absl::GetFlag(FLAGS_max_rss_ratio);
  const double max_lists = absl::GetFlag(FLAGS_max_extra_full_lists);
  const bool met = result->rss_peak_ratio() <= max_rss && result->rss_after_ratio() <= max_rss &&
                   result->extra_full_lists_per_window() <= max_lists;
  std::printf("verdict %s (RSS peak and after within %.2fx of steady: %.2fx, %.2fx; extra full "
              "LISTs per backfill window at most %.1f: %.2f)\n",
              met ? "pass" : "FAIL", max_rss, result->rss_peak_ratio(), result->rss_after_ratio(),
              max_lists, result->extra_full_lists_per_window());
  return met ? 0 : 1;
}
