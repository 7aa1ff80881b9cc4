#include "client/cpp/shared_processor.h"

#include <algorithm>
#include <utility>

namespace informerd {
namespace client {

SharedProcessor::SharedProcessor(LocalCache* cache, size_t queue_limit)
    : cache_(cache), queue_limit_(queue_limit) {}

SharedProcessor::~SharedProcessor() { Stop(); }

void SharedProcessor::Upsert(informerd::v1::Object object) {
  auto stored = std::make_shared<const CachedObject>(
      CachedObject{std::move(object)});
  absl::MutexLock lock(&mu_);
  CachedObjectPtr old = cache_->Store(stored);
  if (old == nullptr) {
    PushLocked({Notification::Type::kAdd, nullptr, stored, false, nullptr});
  } else if (old->object.resource_version() !=
             stored->object.resource_version()) {
    PushLocked({Notification::Type::kUpdate, old, stored, false, nullptr});
  }
}

void SharedProcessor::Remove(informerd::v1::Object object,
                             bool final_state_unknown) {
  absl::MutexLock lock(&mu_);
  if (cache_->Remove(object.namespace_(), object.name()) == nullptr) return;
  auto reported = std::make_shared<const CachedObject>(
      CachedObject{std::move(object)});
  PushLocked({Notification::Type::kDelete, reported, nullptr,
              final_state_unknown, nullptr});
}

void SharedProcessor::MarkSynced() {
  absl::MutexLock lock(&mu_);
  if (synced_) return;
  synced_ = true;
  PushLocked({Notification::Type::kSynced, nullptr, nullptr, false, nullptr});
}

HandlerRegistration* SharedProcessor::AddHandler(EventHandler* handler,
                                                 absl::Duration resync_period) {
  absl::MutexLock lock(&mu_);
  Notification first = SnapshotLocked();
  if (stopped_) {
    // Never queued anything: an empty snapshot of an unsynced informer.
    first.snapshot = std::make_shared<const CacheSnapshot>();
  }
  listeners_.push_back(std::make_shared<ProcessorListener>(
      handler, resync_period, queue_limit_, std::move(first)));
  ProcessorListener* listener = listeners_.back().get();
  if (stopped_) listener->Stop();
  return listener;
}

absl::Status SharedProcessor::RemoveHandler(HandlerRegistration* registration) {
  std::shared_ptr<ProcessorListener> removed;
  {
    absl::MutexLock lock(&mu_);
    auto it = std::find_if(
        listeners_.begin(), listeners_.end(),
        [registration](const std::shared_ptr<ProcessorListener>& listener) {
          return listener.get() == registration;
        });
    if (it == listeners_.end()) {
      return absl::NotFoundError("registration: not a handler of this informer");
    }
    removed = std::move(*it);
    listeners_.erase(it);
  }
  // Outside the lock: the writer goes on while the handler finishes.
  removed->Stop();
  return absl::OkStatus();
}

void SharedProcessor::Stop() {
  std::vector<std::shared_ptr<ProcessorListener>> listeners;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    listeners = listeners_;
  }
  // Outside the lock, so that a handler that is adding or removing a
  // handler as it is stopped can finish.
  for (auto& listener : listeners) listener->Stop();
}

Notification SharedProcessor::SnapshotLocked() const {
  auto snapshot = std::make_shared<CacheSnapshot>();
  snapshot->objects = cache_->All();
  snapshot->informer_synced = synced_;
  return {Notification::Type::kSnapshot, nullptr, nullptr, false,
          std::move(snapshot)};
}

void SharedProcessor::PushLocked(const Notification& n) {
  Notification snapshot;
  bool have_snapshot = false;
  for (auto& listener : listeners_) {
    if (listener->TryPush(n)) continue;
    // One snapshot serves every listener that overflows on this change.
    if (!have_snapshot) {
      snapshot = SnapshotLocked();
      have_snapshot = true;
    }
    listener->Reset(snapshot);
  }
}

}  // namespace client
}  // namespace informerd
