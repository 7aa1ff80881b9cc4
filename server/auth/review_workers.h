// ReviewWorkers: a few threads that run everything that waits for the
// kube-apiserver's reviews on a caller's behalf: the re-authorization of
// open Watch streams, and List, Get and ListResources calls whose token or
// permission is not cached. Neither the Informer's dispatcher nor a gRPC
// callback thread ever waits for a review, so callers whose answers are
// cached are served at once however many others wait for theirs.
//
// Thread safety: thread-safe. Destruction drops queued tasks (running their
// `dropped` callbacks) and waits for the running ones.
#ifndef INFORMERD_SERVER_AUTH_REVIEW_WORKERS_H_
#define INFORMERD_SERVER_AUTH_REVIEW_WORKERS_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace informerd::auth {

class ReviewWorkers {
 public:
  // At most `max_queued` tasks wait; more are refused rather than queued, so
  // a storm of reviews cannot grow memory without bound. `threads` run them,
  // so one slow review delays no other.
  // REQUIRES: threads > 0.
  explicit ReviewWorkers(size_t max_queued = 10000, size_t threads = 4);
  ~ReviewWorkers();
  ReviewWorkers(const ReviewWorkers&) = delete;
  ReviewWorkers& operator=(const ReviewWorkers&) = delete;

  // Runs `task` on a worker thread later, or `dropped` (if given) instead
  // when the workers are destroyed first. False when the queue is full:
  // neither runs, and the caller answers for itself.
  bool Submit(std::function<void()> task, std::function<void()> dropped = nullptr);

  size_t queued() const;

 private:
  struct Task {
    std::function<void()> run;
    std::function<void()> dropped;
  };
  void Run();

  const size_t max_queued_;
  mutable absl::Mutex mu_;
  std::deque<Task> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_REVIEW_WORKERS_H_
