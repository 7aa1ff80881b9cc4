// RecheckWorker: one thread that runs authorization re-checks for open
// Watch streams, so neither the Informer's dispatcher nor a gRPC callback
// ever waits for the kube-apiserver on a stream's behalf.
//
// Thread safety: thread-safe. Destruction drops queued tasks and waits for
// the running one.
#ifndef INFORMERD_SERVER_AUTH_RECHECK_WORKER_H_
#define INFORMERD_SERVER_AUTH_RECHECK_WORKER_H_

#include <deque>
#include <functional>
#include <thread>

#include "absl/synchronization/mutex.h"

namespace informerd::auth {

class RecheckWorker {
 public:
  // At most `max_queued` tasks wait; more are refused rather than queued, so
  // a storm of re-checks cannot grow memory without bound.
  explicit RecheckWorker(size_t max_queued = 10000);
  ~RecheckWorker();
  RecheckWorker(const RecheckWorker&) = delete;
  RecheckWorker& operator=(const RecheckWorker&) = delete;

  // Runs `task` on the worker thread later. False when the queue is full:
  // the caller tries again at its next opportunity.
  bool Submit(std::function<void()> task);

 private:
  void Run();

  const size_t max_queued_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_RECHECK_WORKER_H_
