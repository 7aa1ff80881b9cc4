// WatchStream: one Watch RPC, a callback-API write reactor that pulls events
// from its Informer's history.
//
// The stream owns a position in the history, not a queue. Each time a write
// completes it reads on from its position, skipping events its filter does
// not see; when caught up it registers with the Informer and is woken by the
// dispatcher. A stream that falls so far behind that its position is evicted
// from the history ends with RESOURCE_EXHAUSTED: it held no memory while it
// lagged, and it never slowed anyone else. No thread is held per stream.
// With a re-check, the stream is authorized again every interval on the
// ReviewWorkers's thread, and ends when permission is withdrawn.
//
// Thread safety: gRPC callbacks, Wake (dispatcher) and Shutdown may run
// concurrently; all state is guarded by one mutex. The object deletes itself
// in OnDone.
//
// Lock order, across the classes that take these locks (never the reverse):
//   WakeHandle::mu_ -> WatchStream::mu_ -> Informer::mu_ -> Informer::waiters_mu_
// A wake-up enters through the handle and then the stream; a stream reads
// the Informer under its own lock, and the Informer registers a caught-up
// stream's waiter under its lock (Informer::Read). The dispatcher collects
// waiters under waiters_mu_ alone and wakes them after releasing it.
#ifndef INFORMERD_SERVER_SERVICE_WATCH_STREAM_H_
#define INFORMERD_SERVER_SERVICE_WATCH_STREAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.pb.h"
#include "server/cache/filter.h"
#include "server/auth/review_workers.h"
#include "server/informer/informer.h"
#include "server/limits/concurrency_limiter.h"
#include "server/metrics/metrics.h"
#include "server/service/wire_format.h"

namespace informerd::service {

class WatchRegistry;

// How long a stream may hold what it cannot send before it ends.
struct StallLimits {
  // A write the client has not accepted for this long: it is not reading.
  absl::Duration write_wait = absl::ZeroDuration();
  // Initial events not all written this long after the stream started: a
  // client that takes one message now and then would otherwise keep its
  // snapshot (and its share of the initial-events budget) for ever.
  absl::Duration initial_events = absl::ZeroDuration();
};

struct WatchStreamOptions {
  bool allow_bookmarks = false;
  // What of each object the events carry, and how it is encoded.
  ReplyForm form;
  absl::Duration bookmark_interval = absl::Minutes(1);
  // When set, runs on `review_workers` every `recheck_interval` (checked at
  // the stream's wake-ups, at least once a second); PERMISSION_DENIED or
  // UNAUTHENTICATED ends the stream with that status, other errors are
  // retried a second later.
  std::function<absl::Status()> recheck;
  absl::Duration recheck_interval = absl::Minutes(1);
  // A stream whose re-checks have failed (the apiserver unreachable, or the
  // workers' queue full) for longer than this ends with UNAVAILABLE: a
  // revocation informerd cannot learn of must not keep a stream open for
  // ever.
  absl::Duration recheck_grace = absl::Minutes(2);
  auth::ReviewWorkers* review_workers = nullptr;  // must outlive the stream
};

// Where a stream starts: its history position, and for send_initial_events
// the objects to send first and the version they were read at.
struct WatchStart {
  uint64_t position = 0;
  bool send_initial_events = false;
  std::vector<cache::ObjectPtr> initial_objects;
  uint64_t initial_version = 0;
  // The caller's budget charged for the initial objects; released once
  // they are all written.
  std::shared_ptr<limits::ConcurrencyLimiter::Permit> initial_charge;
  // For a stream admitted after it began (its caller's reviews ran on a
  // worker): its slot under the watch limits, held until the stream is
  // done. A stream admitted at once got its slot from its constructor.
  std::shared_ptr<limits::ConcurrencyLimiter::Permit> late_permit;
};

class WatchStream : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  // `informer`, `metrics` and `registry` must outlive the stream; `permit`
  // (its slot under the watch limits) is held until the stream is done.
  // Without `start` the stream writes nothing until Starter() is called:
  // for a Watch that waits for its Informer to reach a version.
  WatchStream(informer::Informer* informer, std::string resource_name,
              cache::Filter filter, WatchStreamOptions options,
              std::optional<WatchStart> start, metrics::Metrics* metrics,
              WatchRegistry* registry, limits::ConcurrencyLimiter::Permit permit = {});

  // Begins writing. Call once, right after construction.
  void Begin();

  // For a stream made without a start: call the result once, from any
  // thread, after Begin, with where the stream starts, or with why it
  // cannot (it then ends with that status). Safe to call after the stream
  // is done: it then does nothing.
  std::function<void(absl::StatusOr<WatchStart>)> Starter();
  // For a stream made without a start: whether it still waits for one (the
  // client has not gone). Safe to call from any thread, at any time.
  std::function<bool()> StillWaiting();

  // Ends the stream with `status` (used at server shutdown).
  void End(const grpc::Status& status, const std::string& reason);

  // Ends the stream if a write has waited for the client longer than
  // `limits.write_wait`, or if it still holds initial events
  // `limits.initial_events` after it started (a zero limit is not checked):
  // what the stream holds must not stay for ever. The RPC is cancelled,
  // since a status cannot pass the unread data before it. `context` is the
  // stream's, for that cancellation.
  void EndIfStalled(absl::Time now, const StallLimits& limits);
  void set_context(grpc::CallbackServerContext* context) { context_ = context; }

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Registered with the Informer while caught up, and held by pending
  // re-checks; forwards Wake and re-check results to the stream while it is
  // alive.
  class WakeHandle : public informer::Waiter {
   public:
    explicit WakeHandle(WatchStream* stream) : stream_(stream) {}
    void Wake() override;
    void Rechecked(const absl::Status& status);
    void Started(absl::StatusOr<WatchStart> start);
    void Detach();
    bool attached();

   private:
    absl::Mutex mu_;
    WatchStream* stream_ ABSL_GUARDED_BY(mu_);
  };

  void Pump();
  void PumpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MaybeRecheckLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnRechecked(const absl::Status& status);
  // Notes a re-check that could not decide; ends the stream past the grace.
  void RecheckFailedLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnStarted(absl::StatusOr<WatchStart> start);
  void Write(grpc::ByteBuffer buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishLocked(const grpc::Status& status, const std::string& reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  informer::Informer* const informer_;
  const std::string resource_name_;
  const cache::Filter filter_;
  const WatchStreamOptions options_;
  metrics::Metrics* const metrics_;
  WatchRegistry* const registry_;
  prometheus::Counter& dispatched_;
  std::shared_ptr<WakeHandle> wake_handle_;
  const limits::ConcurrencyLimiter::Permit permit_;
  grpc::CallbackServerContext* context_ = nullptr;  // set before Begin

  absl::Mutex mu_;
  // False until a deferred start arrives; nothing is written before.
  bool started_ ABSL_GUARDED_BY(mu_);
  bool sent_initial_metadata_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t position_ ABSL_GUARDED_BY(mu_);
  std::vector<cache::ObjectPtr> initial_ ABSL_GUARDED_BY(mu_);
  size_t initial_sent_ ABSL_GUARDED_BY(mu_) = 0;
  bool initial_end_pending_ ABSL_GUARDED_BY(mu_);
  uint64_t initial_version_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<limits::ConcurrencyLimiter::Permit> initial_charge_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<limits::ConcurrencyLimiter::Permit> late_permit_ ABSL_GUARDED_BY(mu_);
  // When the stream started; its initial events must be written within
  // StallLimits::initial_events of it.
  absl::Time started_at_ ABSL_GUARDED_BY(mu_);
  // The last version sent (event or bookmark): the client's resume point.
  uint64_t sent_version_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_write_ ABSL_GUARDED_BY(mu_);
  bool write_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ByteBuffer in_flight_buffer_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time next_recheck_ ABSL_GUARDED_BY(mu_);
  // When re-checks began to fail; InfiniteFuture while they succeed.
  absl::Time recheck_failing_since_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool recheck_pending_ ABSL_GUARDED_BY(mu_) = false;
};

// The header a Watch sends once its stream has started (admitted and
// positioned), before any event.
inline constexpr char kWatchStartedHeader[] = "informerd-watch-started";

// The open streams, so shutdown can end them all with UNAVAILABLE.
class WatchRegistry {
 public:
  // With a non-zero limit, a thread ends every second the streams past it
  // (EndIfStalled).
  explicit WatchRegistry(StallLimits limits = {});
  ~WatchRegistry();
  WatchRegistry(const WatchRegistry&) = delete;
  WatchRegistry& operator=(const WatchRegistry&) = delete;

  void Add(WatchStream* stream);
  void Remove(WatchStream* stream);
  // Ends every open stream; later Adds are ended at once.
  void EndAll(const grpc::Status& status);
  size_t size() const;

 private:
  void SweepStalled();

  const StallLimits limits_;
  mutable absl::Mutex mu_;
  std::vector<WatchStream*> streams_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status end_status_ ABSL_GUARDED_BY(mu_);
  std::thread sweeper_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_WATCH_STREAM_H_
