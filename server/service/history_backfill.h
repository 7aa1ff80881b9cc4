// HistoryBackfill: fills an Informer's history backwards from the API
// server, so that a client resuming from a version older than the
// Informer's first list resumes instead of relisting.
//
// A restarted informerd knows nothing before its first list, at version L,
// while its clients resume from their last versions C < L; without this
// every one of them would get OUT_OF_RANGE and list its whole cache again.
// The API server still has the recent past (its watch cache: ~75 s and up
// to ~100k events; etcd until compaction, 5 min by default). A backfill run
// asks for it once for every waiting client: a temporary Informer, fed by a
// Reflector that lists at exactly C (resourceVersionMatch=Exact) and then
// watches from C, builds the events after C with their previous objects
// the same way the served Informer builds its own; once it has reached the
// served history's oldest version (a short watch timeout makes the
// apiserver send a bookmark a second in), those events are put in front of
// the served history (Informer::PrependHistory). The temporary Informer
// keeps only the listed objects that changed after C: an object the served
// Informer holds at the same resourceVersion has no event in between, so a
// run holds what changed, not a second copy of the resource.
//
// What a caller can make it cost (issue 26): any caller that may watch one
// namespace can ask for any version. So:
// - runs go one at a time, and at most one starts per `window`; a request
//   that would need another run inside it is refused at once (not
//   queued) with OUT_OF_RANGE "too old resource version", which makes a
//   client relist, as it would without a backfill;
// - a run starts once requests stop arriving (`gather`, `max_gather`) and
//   goes back to the oldest version asked for meanwhile, so clients
//   resuming together after a restart share it; a request that arrives
//   while a run is under way joins it when the run covers its version;
// - the versions from a finished run's start on were answered once: a
//   request from them that the history no longer holds (evicted since, or
//   the run failed) is refused at once and never fetched again;
// - a version the API server has refused (410) stays refused;
// - a run nobody waits for any more (every caller cancelled) stops, and
//   still counts against its window.
//
// Thread safety: thread-safe. `done` callbacks run on this object's thread
// (or the caller's, for an answer known at once) with no lock held;
// `wanted` callbacks run on this object's thread under its lock, so they
// must be quick and must not call into this object.
#ifndef INFORMERD_SERVER_SERVICE_HISTORY_BACKFILL_H_
#define INFORMERD_SERVER_SERVICE_HISTORY_BACKFILL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/informer/informer.h"
#include "server/kube/discovery.h"
#include "server/kube/reflector.h"
#include "server/kube/rest_client.h"

namespace informerd::service {

struct HistoryBackfillOptions {
  // A run that has not reached the served history by then ends UNAVAILABLE.
  absl::Duration run_timeout = absl::Seconds(30);
  // The watch timeout the run's Reflector asks for: the apiserver sends a
  // bookmark 2 s before it, which tells the run how far the stream got when
  // nothing changes.
  absl::Duration watch_timeout = absl::Seconds(3);
  // A run starts once no request has joined it for `gather`, and at the
  // latest `max_gather` after the first: clients resuming after a restart
  // arrive in a burst, and every one that joins costs nothing more.
  absl::Duration gather = absl::Milliseconds(500);
  absl::Duration max_gather = absl::Seconds(3);
  // At most one run starts per window (one paged LIST of the resource).
  absl::Duration window = absl::Minutes(1);
};

class HistoryBackfill {
 public:
  // `reflector` and `informer` are the served resource's options, so the
  // run reads the same namespace and selectors and builds the same objects.
  // REQUIRES: *client and *target outlive this object.
  HistoryBackfill(kube::RestClient* client, kube::ResourceInfo info,
                  kube::ReflectorOptions reflector, informer::InformerOptions informer,
                  informer::Informer* target, HistoryBackfillOptions options = {});
  // Ends a run in progress; pending requests get UNAVAILABLE.
  ~HistoryBackfill();

  HistoryBackfill(const HistoryBackfill&) = delete;
  HistoryBackfill& operator=(const HistoryBackfill&) = delete;

  // Calls `done` once: OK when the target's history reaches back to
  // `version` (a watcher may resume from it now), OUT_OF_RANGE when the API
  // server no longer has it or the policy above refuses it, UNAVAILABLE
  // when a run failed otherwise. `done` must be quick. While the request
  // waits, `wanted` (if set) is asked now and then whether anyone still
  // waits for the answer; once it says no, the request is dropped and
  // `done` is not called.
  void Request(uint64_t version, std::function<void(absl::Status)> done,
               std::function<bool()> wanted = nullptr);

  struct Stats {
    uint64_t runs = 0;      // runs started (each one paged LIST upstream)
    uint64_t refused = 0;   // requests refused at once by the policy above
    uint64_t abandoned = 0; // runs stopped because nobody waited any more
    uint64_t failures = 0;  // runs that failed otherwise than by a 410
    // Objects the last run's temporary Informer held after its list, and
    // those it skipped as unchanged.
    uint64_t last_run_kept = 0;
    uint64_t last_run_skipped = 0;
  };
  Stats stats() const;
  // Requests waiting for a run, for tests and metrics.
  size_t pending() const;
  uint64_t runs() const { return stats().runs; }
  // Runs that ended neither with the history nor with the API server's 410
  // (a timeout, an unreachable upstream): their clients got UNAVAILABLE.
  uint64_t failures() const { return stats().failures; }

 private:
  struct Waiting {
    uint64_t version;
    std::function<void(absl::Status)> done;
    std::function<bool()> wanted;
  };
  enum class Phase { kIdle, kGathering, kRunning };

  void Loop();
  // Backfills the target from `version`.
  absl::Status Run(uint64_t version);
  // Drops waiting requests nobody wants any more; true when none is left.
  bool AbandonedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Why a request for `version` is refused at once, or OK to let it wait.
  absl::Status RefusalLocked(uint64_t version, uint64_t oldest, absl::Time now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  kube::RestClient* const client_;
  const kube::ResourceInfo info_;
  const kube::ReflectorOptions reflector_options_;
  const informer::InformerOptions informer_options_;
  informer::Informer* const target_;
  const HistoryBackfillOptions options_;

  mutable absl::Mutex mu_;
  std::vector<Waiting> waiting_ ABSL_GUARDED_BY(mu_);
  Phase phase_ ABSL_GUARDED_BY(mu_) = Phase::kIdle;
  // The version the gathering or running run starts from, and when the
  // last request joined it while it gathered.
  uint64_t run_from_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_join_ ABSL_GUARDED_BY(mu_);
  // When the last run started (InfinitePast: never).
  absl::Time last_start_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // The oldest version a finished run started from (0: none), and how the
  // last finished run ended.
  uint64_t answered_from_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status last_outcome_ ABSL_GUARDED_BY(mu_);
  // The newest version the API server answered 410 for.
  uint64_t refused_through_ ABSL_GUARDED_BY(mu_) = 0;
  Stats stats_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mu_);  // started by the first request
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_HISTORY_BACKFILL_H_
