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
// the served history (Informer::PrependHistory). The server's 410 for C
// ends the run with OUT_OF_RANGE: only then must the client relist.
//
// Runs go one at a time, on this object's thread, each from the oldest
// version asked for; requests that arrive during a run are served by it
// when it reaches back far enough, else by the next. A version the API
// server has refused stays refused here (anything at or below it fails at
// once), so a client asking for ancient versions costs one upstream call.
//
// Thread safety: thread-safe. `done` callbacks run on this object's thread
// (or the caller's, for an answer known at once) with no lock held.
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
  // server no longer has it, UNAVAILABLE when a run failed otherwise. `done`
  // must be quick.
  void Request(uint64_t version, std::function<void(absl::Status)> done);

  // Requests waiting for a run, for tests and metrics.
  size_t pending() const;
  uint64_t runs() const;
  // Runs that ended neither with the history nor with the API server's 410
  // (a timeout, an unreachable upstream): their clients got UNAVAILABLE.
  uint64_t failures() const;

 private:
  struct Waiting {
    uint64_t version;
    std::function<void(absl::Status)> done;
  };

  void Loop();
  // Backfills the target from `version`.
  absl::Status Run(uint64_t version);
  bool stopping() const;

  kube::RestClient* const client_;
  const kube::ResourceInfo info_;
  const kube::ReflectorOptions reflector_options_;
  const informer::InformerOptions informer_options_;
  informer::Informer* const target_;
  const HistoryBackfillOptions options_;

  mutable absl::Mutex mu_;
  std::vector<Waiting> waiting_ ABSL_GUARDED_BY(mu_);
  // The newest version the API server answered 410 for.
  uint64_t refused_through_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t runs_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t failures_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mu_);  // started by the first request
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_HISTORY_BACKFILL_H_
