// The history-backfill attack of issue 26 (finding 1), run from outside
// against a running informerd, with what it cost: a caller that may watch
// one namespace resumes a Watch from one version before the oldest one
// informerd says it can resume from (ListResources' oldest_resource_version),
// then, whatever the answer, from one before the new oldest, and so on.
// Each resume informerd cannot serve from its history used to make it LIST
// the whole served resource from the apiserver at that exact version and
// hold a second copy of it.
//
// The cost is read from outside: informerd's resident memory from /proc
// (sampled every 20 ms for the peak), and the apiserver's LIST requests for
// the resource from its /metrics (apiserver_request_total{verb="LIST"}), so
// the resource should be one nothing else lists meanwhile.
//
// Thread safety: RunBackfillAttack is self-contained; call it from one
// thread.
#ifndef INFORMERD_BENCH_BACKFILL_ATTACK_H_
#define INFORMERD_BENCH_BACKFILL_ATTACK_H_

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/apiserver_target.h"

namespace informerd::bench {

struct BackfillAttackOptions {
  std::string target;        // informerd's gRPC address (plaintext)
  std::string bearer_token;  // the attacker's, if informerd asks for one
  std::string group;         // the served resource: "" for the core group
  std::string version = "v1";
  std::string resource = "pods";
  std::string namespace_;    // the one namespace the attacker may watch
  int rounds = 10;
  // How long a round waits for the Watch's first message or its status.
  absl::Duration round_timeout = absl::Seconds(120);
  pid_t informerd_pid = 0;
  // The apiserver, as an identity that may read its /metrics and list the
  // resource (the admin).
  ApiserverTarget apiserver;
  // informerd's LIST page size (ReflectorOptions::page_size): a full list
  // of N objects costs ceil(N / page_size) LIST requests.
  int page_size = 500;
  // informerd's backfill window (HistoryBackfillOptions::window): the
  // bound is one extra full LIST per window the attack spans.
  absl::Duration window = absl::Minutes(1);
  // Resident memory is taken as the highest of this many samples, 100 ms
  // apart, before the attack.
  int steady_samples = 10;
};

struct BackfillAttackResult {
  int rounds = 0;
  int resumed = 0;  // Watches that started (their first message arrived)
  std::map<std::string, int> refusals;  // by gRPC status code name
  double seconds = 0;
  size_t rss_steady = 0;  // bytes
  size_t rss_after = 0;
  size_t rss_peak = 0;
  size_t objects = 0;          // the resource's objects on the apiserver
  size_t full_list_requests = 0;  // LIST requests one full list takes
  double extra_list_requests = 0;  // the apiserver's LISTs during the attack
  int windows = 1;  // backfill windows the attack spanned (at least one)

  double rss_after_ratio() const;
  double rss_peak_ratio() const;
  // Extra LIST requests in units of one full list.
  double extra_full_lists() const;
  double extra_full_lists_per_window() const { return extra_full_lists() / windows; }
  // One line: "backfill_attack rounds=.. resumed=.. ...".
  std::string Summary() const;
};

// Runs the attack; an error when informerd, its process or the apiserver
// cannot be read.
absl::StatusOr<BackfillAttackResult> RunBackfillAttack(const BackfillAttackOptions& options);

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_BACKFILL_ATTACK_H_
