// ReviewWorkers: a few threads that run everything that waits for the
// kube-apiserver's reviews on a caller's behalf: the re-authorization of
// open Watch streams, and List, Get and ListResources calls whose token or
// permission is not cached. Neither the Informer's dispatcher nor a gRPC
// callback thread ever waits for a review, so callers whose answers are
// cached are served at once however many others wait for theirs.
//
// Every caller's task carries a key (its identity, or the lane of tokens
// that were never accepted) and the keys take turns: a worker takes the
// oldest task of the next key in line, so a task waits behind at most one
// task of each other key, never behind a flood queued before it. A key
// holds at most `max_per_key` tasks queued or running and runs at most
// `max_running_per_key` at once, so no one caller fills the queue or
// occupies every worker; past its quota, Submit refuses rather than queues.
//
// The re-checks of open Watches have a lane of their own, served first and
// outside the callers' quotas: a stream has at most one re-check waiting,
// so the lane is bounded by the open streams, and no flood of calls can
// refuse a re-check (which would end the stream after its grace).
//
// Thread safety: thread-safe. Destruction drops queued tasks (running their
// `dropped` callbacks) and waits for the running ones.
#ifndef INFORMERD_SERVER_AUTH_REVIEW_WORKERS_H_
#define INFORMERD_SERVER_AUTH_REVIEW_WORKERS_H_

#include <deque>
#include <functional>
#include <list>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace informerd::auth {

struct ReviewWorkersOptions {
  size_t threads = 4;
  // Callers' tasks queued, all keys together (re-checks not counted).
  size_t max_queued = 1024;
  // Per key: tasks queued or running, and tasks running.
  size_t max_per_key = 8;
  size_t max_running_per_key = 2;
};

class ReviewWorkers {
 public:
  // REQUIRES: every option > 0.
  explicit ReviewWorkers(ReviewWorkersOptions options = {});
  ~ReviewWorkers();
  ReviewWorkers(const ReviewWorkers&) = delete;
  ReviewWorkers& operator=(const ReviewWorkers&) = delete;

  // Runs `task` on a worker thread later, in `key`'s turn, or `dropped` (if
  // given) instead when the workers are destroyed first. When refused,
  // neither runs and the caller answers for itself: RESOURCE_EXHAUSTED when
  // `key` holds its quota (`quota`, or max_per_key when 0), UNAVAILABLE when
  // the queue is full or the workers are stopping.
  absl::Status Submit(const std::string& key, std::function<void()> task,
                      std::function<void()> dropped = nullptr, size_t quota = 0);

  // As Submit, in the re-check lane. False only when stopping.
  // REQUIRES: the caller has at most one re-check waiting per open stream.
  bool SubmitRecheck(std::function<void()> task, std::function<void()> dropped = nullptr);

  // Callers' tasks and re-checks waiting.
  size_t queued() const;

 private:
  struct Task {
    std::function<void()> run;
    std::function<void()> dropped;
  };
  struct Key {
    std::deque<Task> waiting;
    size_t running = 0;
  };

  void Run();
  // The next task to run, and its key or that it is a re-check; false when
  // none may run now.
  bool TakeLocked(Task* task, std::string* key, bool* recheck) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool RunnableLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishedLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ReviewWorkersOptions options_;
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<Task> rechecks_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<std::string, Key> keys_ ABSL_GUARDED_BY(mu_);
  // The keys with waiting tasks, in turn order.
  std::list<std::string> turns_ ABSL_GUARDED_BY(mu_);
  size_t waiting_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_;
};

}  // namespace informerd::auth

#endif  // INFORMERD_SERVER_AUTH_REVIEW_WORKERS_H_
