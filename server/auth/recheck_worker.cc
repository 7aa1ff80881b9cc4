#include "server/auth/recheck_worker.h"

#include <utility>

namespace informerd::auth {

RecheckWorker::RecheckWorker(size_t max_queued)
    : max_queued_(max_queued), thread_([this] { Run(); }) {}

RecheckWorker::~RecheckWorker() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    tasks_.clear();
  }
  thread_.join();
}

bool RecheckWorker::Submit(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || tasks_.size() >= max_queued_) return false;
  tasks_.push_back(std::move(task));
  return true;
}

void RecheckWorker::Run() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](RecheckWorker* worker) ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker->mu_) {
            return worker->stopping_ || !worker->tasks_.empty();
          },
          this));
      if (stopping_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace informerd::auth
