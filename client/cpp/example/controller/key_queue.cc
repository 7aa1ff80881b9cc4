#include "client/cpp/example/controller/key_queue.h"

namespace informerd {
namespace example {

void KeyQueue::Add(const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  if (processing_.count(key) != 0) {
    dirty_.insert(key);
    return;
  }
  if (queued_.insert(key).second) queue_.push_back(key);
}

std::optional<std::string> KeyQueue::Get() {
  absl::MutexLock lock(&mu_);
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return shut_down_ || !queue_.empty();
  };
  mu_.Await(absl::Condition(&ready));
  if (shut_down_) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  queued_.erase(key);
  processing_.insert(key);
  return key;
}

void KeyQueue::Done(const std::string& key) {
  absl::MutexLock lock(&mu_);
  processing_.erase(key);
  if (dirty_.erase(key) != 0 && !shut_down_ && queued_.insert(key).second) {
    queue_.push_back(key);
  }
}

void KeyQueue::ShutDown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
}

}  // namespace example
}  // namespace informerd
