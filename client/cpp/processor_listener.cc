#include "client/cpp/processor_listener.h"

#include <utility>

namespace informerd {
namespace client {

namespace {

std::string KeyOf(const CachedObjectPtr& object) {
  return ObjectKey(object->object.namespace_(), object->object.name());
}

}  // namespace

ProcessorListener::ProcessorListener(EventHandler* handler,
                                     absl::Duration resync_period,
                                     size_t queue_limit, Notification first)
    : handler_(handler),
      resync_period_(resync_period),
      queue_limit_(queue_limit) {
  {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(first));
  }
  thread_ = std::thread([this] { Run(); });
}

ProcessorListener::~ProcessorListener() { Stop(); }

bool ProcessorListener::TryPush(Notification n) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return true;
  if (queue_.size() >= queue_limit_) return false;
  queue_.push_back(std::move(n));
  return true;
}

void ProcessorListener::Reset(Notification n) {
  absl::MutexLock lock(&mu_);
  queue_.clear();
  if (!stopping_) queue_.push_back(std::move(n));
}

void ProcessorListener::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    queue_.clear();
  }
  if (thread_.joinable()) thread_.join();
}

bool ProcessorListener::HasSynced() const {
  absl::MutexLock lock(&mu_);
  return synced_;
}

bool ProcessorListener::WaitForSynced(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&synced_), timeout);
}

bool ProcessorListener::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

void ProcessorListener::MarkSynced() {
  absl::MutexLock lock(&mu_);
  if (synced_) return;
  synced_ = true;
  if (resync_period_ > absl::ZeroDuration()) {
    next_resync_ = absl::Now() + resync_period_;
  }
}

void ProcessorListener::Run() {
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || !queue_.empty();
  };
  bool resynced_last = false;
  while (true) {
    Notification n;
    bool resync = false;
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithDeadline(absl::Condition(&ready), next_resync_);
      if (stopping_) return;
      // A due resync goes first, so that a handler that is never idle is
      // still resynced; but never twice in a row while changes wait, so
      // that a resync slower than the period cannot starve them.
      if (absl::Now() >= next_resync_ && (!resynced_last || queue_.empty())) {
        resync = true;
      } else if (queue_.empty()) {
        continue;  // woken at the deadline a moment early
      } else {
        n = std::move(queue_.front());
        queue_.pop_front();
      }
    }
    resynced_last = resync;
    if (resync) {
      Resync();
    } else {
      Deliver(n);
    }
  }
}

void ProcessorListener::Deliver(const Notification& n) {
  switch (n.type) {
    case Notification::Type::kAdd:
      view_[KeyOf(n.new_object)] = n.new_object;
      handler_->OnAdd(n.new_object->object);
      break;
    case Notification::Type::kUpdate:
      view_[KeyOf(n.new_object)] = n.new_object;
      handler_->OnUpdate(n.old_object->object, n.new_object->object);
      break;
    case Notification::Type::kDelete:
      view_.erase(KeyOf(n.old_object));
      handler_->OnDelete(n.old_object->object, n.final_state_unknown);
      break;
    case Notification::Type::kSnapshot:
      DeliverSnapshot(*n.snapshot);
      break;
    case Notification::Type::kSynced:
      MarkSynced();
      break;
  }
}

void ProcessorListener::DeliverSnapshot(const CacheSnapshot& snapshot) {
  // Both sides are ordered by key: one merge gives the difference.
  std::vector<Notification> changes;
  auto seen = view_.begin();
  auto retract = [&changes](const CachedObjectPtr& gone) {
    changes.push_back({Notification::Type::kDelete, gone, nullptr,
                       /*final_state_unknown=*/true, nullptr});
  };
  for (const CachedObjectPtr& object : snapshot.objects) {
    std::string key = KeyOf(object);
    while (seen != view_.end() && seen->first < key) retract((seen++)->second);
    if (seen != view_.end() && seen->first == key) {
      if (seen->second->object.resource_version() !=
          object->object.resource_version()) {
        changes.push_back(
            {Notification::Type::kUpdate, seen->second, object, false, nullptr});
      }
      ++seen;
    } else {
      changes.push_back(
          {Notification::Type::kAdd, nullptr, object, false, nullptr});
    }
  }
  while (seen != view_.end()) retract((seen++)->second);
  for (const Notification& change : changes) {
    // A stopped listener calls its handler no more, however long the
    // snapshot.
    if (Stopping()) return;
    Deliver(change);
  }
  if (snapshot.informer_synced) MarkSynced();
}

void ProcessorListener::Resync() {
  for (const auto& [key, object] : view_) {
    if (Stopping()) return;  // Run() returns next
    handler_->OnUpdate(object->object, object->object);
  }
  absl::MutexLock lock(&mu_);
  next_resync_ = absl::Now() + resync_period_;
}

}  // namespace client
}  // namespace informerd
