#include "server/auth/review_workers.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace informerd::auth {

ReviewWorkers::ReviewWorkers(ReviewWorkersOptions options) : options_(options) {
  for (size_t i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { Run(); });
}

ReviewWorkers::~ReviewWorkers() {
  std::deque<Task> left;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    left.swap(rechecks_);
    for (auto& [key, state] : keys_) {
      for (Task& task : state.waiting) left.push_back(std::move(task));
      state.waiting.clear();
    }
  }
  for (std::thread& thread : threads_) thread.join();
  for (Task& task : left) {
    if (task.dropped) task.dropped();
  }
}

absl::Status ReviewWorkers::Submit(const std::string& key, std::function<void()> task,
                                   std::function<void()> dropped, size_t quota) {
  if (quota == 0) quota = options_.max_per_key;
  absl::MutexLock lock(&mu_);
  if (stopping_) return absl::UnavailableError("informerd is shutting down");
  Key& state = keys_[key];
  if (state.waiting.size() + state.running >= quota) {
    if (state.waiting.empty() && state.running == 0) keys_.erase(key);
    return absl::ResourceExhaustedError(
        absl::StrCat("too many of this caller's calls wait for the kube-apiserver's reviews (at "
                     "most ",
                     quota, "); retry when they are answered"));
  }
  if (waiting_ >= options_.max_queued) {
    if (state.waiting.empty() && state.running == 0) keys_.erase(key);
    return absl::UnavailableError("too many calls waiting for the kube-apiserver's reviews; retry");
  }
  if (state.waiting.empty()) turns_.push_back(key);
  state.waiting.push_back({std::move(task), std::move(dropped)});
  ++waiting_;
  return absl::OkStatus();
}

bool ReviewWorkers::SubmitRecheck(std::function<void()> task, std::function<void()> dropped) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  rechecks_.push_back({std::move(task), std::move(dropped)});
  return true;
}

size_t ReviewWorkers::queued() const {
  absl::MutexLock lock(&mu_);
  return waiting_ + rechecks_.size();
}

bool ReviewWorkers::RunnableLocked() const {
  if (!rechecks_.empty()) return true;
  for (const std::string& key : turns_) {
    if (keys_.at(key).running < options_.max_running_per_key) return true;
  }
  return false;
}

bool ReviewWorkers::TakeLocked(Task* task, std::string* key, bool* recheck) {
  *recheck = !rechecks_.empty();
  if (*recheck) {
    *task = std::move(rechecks_.front());
    rechecks_.pop_front();
    return true;
  }
  for (auto turn = turns_.begin(); turn != turns_.end(); ++turn) {
    Key& state = keys_.at(*turn);
    if (state.running >= options_.max_running_per_key) continue;
    *task = std::move(state.waiting.front());
    state.waiting.pop_front();
    ++state.running;
    --waiting_;
    *key = *turn;
    // Its next task, if any, waits for every other key's turn.
    if (state.waiting.empty()) {
      turns_.erase(turn);
    } else {
      turns_.splice(turns_.end(), turns_, turn);
    }
    return true;
  }
  return false;
}

void ReviewWorkers::FinishedLocked(const std::string& key) {
  auto found = keys_.find(key);
  if (--found->second.running == 0 && found->second.waiting.empty()) keys_.erase(found);
}

void ReviewWorkers::Run() {
  while (true) {
    Task task;
    std::string key;
    bool recheck = false;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ReviewWorkers* workers) ABSL_EXCLUSIVE_LOCKS_REQUIRED(workers->mu_) {
            return workers->stopping_ || workers->RunnableLocked();
          },
          this));
      if (stopping_) return;
      TakeLocked(&task, &key, &recheck);
    }
    task.run();
    if (!recheck) {
      absl::MutexLock lock(&mu_);
      FinishedLocked(key);
    }
  }
}

}  // namespace informerd::auth
