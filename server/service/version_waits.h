// VersionWaits: reads that must wait for an Informer to reach a version,
// without holding a thread each.
//
// gRPC's callback server runs every method on a small shared pool; a read
// that blocked there for readWaitSeconds would stall every other caller
// once a handful of them waited (on a 2-core machine, 4 did). Instead a
// waiting read registers `done` here and returns its reactor; `done` runs
// exactly once: with true on the Reflector thread when the Informer gets
// there (Informer::NotifyAtVersion), or with false on this class's timer
// thread at the deadline, or when this object is destroyed.
//
// Thread safety: thread-safe. Every Informer passed to Wait must outlive
// this object.
#ifndef INFORMERD_SERVER_SERVICE_VERSION_WAITS_H_
#define INFORMERD_SERVER_SERVICE_VERSION_WAITS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/informer/informer.h"

namespace informerd::service {

// Whether `informer` is synced and at `version` or later: a read needs no
// wait.
bool Reached(const informer::Informer& informer, uint64_t version);
// Why a read of `name` that waited for `version` gave up: UNAVAILABLE,
// saying what the informer lacks.
absl::Status NotReached(const informer::Informer& informer, const std::string& name,
                        uint64_t version);

class VersionWaits {
 public:
  VersionWaits();
  // Runs every pending `done` with false.
  ~VersionWaits();

  VersionWaits(const VersionWaits&) = delete;
  VersionWaits& operator=(const VersionWaits&) = delete;

  // `done(true)` once `informer` is synced and at `version`, or
  // `done(false)` at `deadline`, whichever comes first; at once (on this
  // thread) if the informer is already there. `done` must be quick.
  void Wait(informer::Informer* informer, uint64_t version, absl::Time deadline,
            std::function<void(bool reached)> done);

  size_t pending() const;

 private:
  struct Pending;
  void TimerLoop();

  mutable absl::Mutex mu_;
  // By deadline; an entry leaves when it fires either way.
  std::multimap<absl::Time, std::shared_ptr<Pending>> by_deadline_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread timer_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_VERSION_WAITS_H_
