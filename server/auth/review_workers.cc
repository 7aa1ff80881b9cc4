#include "server/auth/review_workers.h"

#include <utility>

namespace informerd::auth {

ReviewWorkers::ReviewWorkers(size_t max_queued, size_t threads) : max_queued_(max_queued) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

ReviewWorkers::~ReviewWorkers() {
  std::deque<Task> left;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    left.swap(tasks_);
  }
  for (std::thread& thread : threads_) thread.join();
  for (Task& task : left) {
    if (task.dropped) task.dropped();
  }
}

bool ReviewWorkers::Submit(std::function<void()> task, std::function<void()> dropped) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || tasks_.size() >= max_queued_) return false;
  tasks_.push_back({std::move(task), std::move(dropped)});
  return true;
}

size_t ReviewWorkers::queued() const {
  absl::MutexLock lock(&mu_);
  return tasks_.size();
}

void ReviewWorkers::Run() {
  while (true) {
    Task task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ReviewWorkers* workers) ABSL_EXCLUSIVE_LOCKS_REQUIRED(workers->mu_) {
            return workers->stopping_ || !workers->tasks_.empty();
          },
          this));
      if (stopping_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task.run();
  }
}

}  // namespace informerd::auth
