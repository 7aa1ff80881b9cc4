#include "server/informer/informer.h"

#include <algorithm>
#include <utility>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/cache/relist_diff.h"
#include "server/cache/resource_version.h"
#include "server/log/log.h"

namespace informerd::informer {
namespace {

using cache::Event;
using cache::EventType;
using cache::ObjectPtr;

constexpr std::string_view kComponent = "informer";

// State at an older version: key -> object then (null: absent then), for the
// keys that changed since.
using Overlay = absl::btree_map<std::string, ObjectPtr, std::less<>>;

// The narrowest index run that holds every object `filter` can match, or
// null when no index applies and the whole store must be read.
const cache::IndexedObjects* ChooseIndex(const cache::ObjectStore& store,
                                         const cache::Filter& filter) {
  static const cache::IndexedObjects kNone;
  const cache::IndexedObjects* best = nullptr;
  auto consider = [&](const cache::IndexedObjects* run) {
    if (run == nullptr) run = &kNone;
    if (best == nullptr || run->size() < best->size()) best = run;
  };
  if (!filter.namespace_.empty()) consider(store.ByNamespace(filter.namespace_));
  if (!filter.index_field.empty()) {
    consider(filter.index_field == "namespace"
                 ? store.ByNamespace(filter.index_value)
                 : store.ByField(filter.index_field, filter.index_value));
  }
  for (const auto& [key, value] : filter.labels.EqualityTerms()) {
    consider(store.ByLabel(key, value));
  }
  for (const auto& [field, value] : filter.fields.EqualityTerms()) {
    if (field == "metadata.namespace") {
      consider(store.ByNamespace(value));
    } else if (field != "metadata.name") {
      consider(store.ByField(field, value));
    }
  }
  return best;
}

// Walks a key-ordered run of current objects merged with an overlay of
// older states, calling visit(object) in key order after `after_key` until
// visit returns false. Overlay entries replace current objects of the same
// key; null overlay entries hide them.
template <typename Iterator, typename KeyOf, typename ObjectOf, typename Visit>
void MergeWalk(Iterator it, Iterator end, KeyOf key_of, ObjectOf object_of,
               const Overlay* overlay, std::string_view after_key, Visit visit) {
  Overlay::const_iterator o, o_end;
  if (overlay != nullptr) {
    o = overlay->upper_bound(after_key);
    o_end = overlay->end();
  }
  while (true) {
    bool have_current = it != end;
    bool have_overlay = overlay != nullptr && o != o_end;
    if (!have_current && !have_overlay) return;
    const cache::Object* next = nullptr;
    if (have_overlay && (!have_current || o->first <= key_of(it))) {
      if (have_current && o->first == key_of(it)) ++it;
      next = o->second.get();
      ++o;
    } else {
      next = object_of(it);
      ++it;
    }
    if (next != nullptr && !visit(next)) return;
  }
}

}  // namespace

Informer::Informer(InformerOptions options)
    : options_(std::move(options)), history_(options_.history, 0) {
  dispatcher_ = std::thread([this] { DispatchLoop(); });
}

Informer::~Informer() {
  {
    absl::MutexLock lock(&waiters_mu_);
    stopping_ = true;
  }
  dispatcher_.join();
}

// Frees the slots too: an abandoned list may have been long.
void Informer::OnListStart() { std::vector<ObjectPtr>().swap(pending_list_); }

void Informer::OnListItem(rapidjson::Value& object) {
  absl::StatusOr<ObjectPtr> built = cache::BuildObject(object, options_.schema);
  if (!built.ok()) {
    log::Warning(kComponent, absl::StrCat("list item rejected: ", built.status().message()));
    absl::MutexLock lock(&mu_);
    ++counters_.events_rejected;
    return;
  }
  pending_list_.push_back(*std::move(built));
}

void Informer::OnListEnd(std::string_view resource_version) {
  std::optional<uint64_t> list_version = cache::ParseResourceVersion(resource_version);
  std::vector<ObjectPtr> listed = std::move(pending_list_);
  pending_list_.clear();
  if (!list_version.has_value()) {
    log::Warning(kComponent, absl::StrCat("list rejected: resourceVersion \"",
                                          std::string(resource_version), "\" is not a decimal integer"));
    return;
  }
  std::vector<std::function<void()>> now_synced;
  std::vector<std::function<void()>> reached;
  {
    absl::MutexLock lock(&mu_);
    ++counters_.relists;
    if (!synced_) now_synced.swap(on_synced_);
    if (!synced_ || *list_version < version_) {
      if (synced_) {
        log::Warning(kComponent,
                     absl::StrCat("list version ", *list_version, " is older than the cache's ",
                                  version_, "; rebuilding, watchers must resume or relist"));
      }
      while (store_.size() > 0) store_.Remove(store_.objects().begin()->first);
      for (ObjectPtr& object : listed) store_.Put(std::move(object));
      history_.Reset(*list_version);
      version_ = *list_version;
      synced_ = true;
    } else {
      std::vector<Event> diff =
          cache::ComputeRelistDiff(store_, listed, version_, *list_version, absl::Now());
      counters_.relist_events += diff.size();
      for (Event& event : diff) {
        if (event.type == EventType::kDeleted) {
          store_.Remove(event.object->key());
        } else {
          store_.Put(event.object);
        }
        Append(std::move(event));
      }
      version_ = *list_version;
    }
    reached = TakeReachedLocked();
  }
  SignalDispatcher();
  for (const std::function<void()>& callback : now_synced) callback();
  for (const std::function<void()>& callback : reached) callback();
}

uint64_t Informer::NotifyAtVersion(uint64_t version, std::function<void()> reached) {
  {
    absl::MutexLock lock(&mu_);
    if (!synced_ || version_ < version) {
      uint64_t id = next_wait_id_++;
      version_waits_.emplace(version, VersionWait{id, std::move(reached)});
      return id;
    }
  }
  reached();
  return 0;
}

void Informer::CancelVersionNotification(uint64_t id) {
  absl::MutexLock lock(&mu_);
  for (auto it = version_waits_.begin(); it != version_waits_.end(); ++it) {
    if (it->second.id == id) {
      version_waits_.erase(it);
      return;
    }
  }
}

std::vector<std::function<void()>> Informer::TakeReachedLocked() {
  std::vector<std::function<void()>> reached;
  if (!synced_) return reached;
  auto end = version_waits_.upper_bound(version_);
  for (auto it = version_waits_.begin(); it != end; ++it) {
    reached.push_back(std::move(it->second.reached));
  }
  version_waits_.erase(version_waits_.begin(), end);
  return reached;
}

void Informer::NotifyWhenSynced(std::function<void()> callback) {
  {
    absl::MutexLock lock(&mu_);
    if (!synced_) {
      on_synced_.push_back(std::move(callback));
      return;
    }
  }
  callback();
}

void Informer::OnWatchEvent(kube::WatchEventType type, rapidjson::Value& json) {
  absl::StatusOr<ObjectPtr> built = cache::BuildObject(json, options_.schema);
  bool appended = false;
  std::vector<std::function<void()>> reached;
  {
    absl::MutexLock lock(&mu_);
    appended = ApplyWatchEvent(type, std::move(built));
    reached = TakeReachedLocked();
  }
  if (appended) SignalDispatcher();
  for (const std::function<void()>& callback : reached) callback();
}

bool Informer::ApplyWatchEvent(kube::WatchEventType type,
                               absl::StatusOr<ObjectPtr> built) {
  ++counters_.events_received;
  if (!built.ok()) {
    ++counters_.events_rejected;
    log::Warning(kComponent, absl::StrCat("watch event rejected: ", built.status().message()));
    return false;
  }
  ObjectPtr object = *std::move(built);
  uint64_t version = object->resource_version_number();
  if (version < version_) {
    ++counters_.events_rejected;
    log::Warning(kComponent, absl::StrCat("watch event for ", object->key(), " at version ",
                                          version, " is older than the cache's ", version_));
    return false;
  }
  version_ = version;
  Event event;
  event.resource_version = version;
  event.resume_version = version;
  event.time = absl::Now();
  if (type == kube::WatchEventType::kDeleted) {
    event.previous = store_.Remove(object->key());
    // A delete of an object the cache never held changes nothing visible.
    if (event.previous == nullptr) return false;
    event.type = EventType::kDeleted;
  } else {
    event.previous = store_.Put(object);
    event.type = event.previous == nullptr ? EventType::kAdded : EventType::kModified;
    if (event.previous != nullptr) {
      event.previous_as_deleted = std::make_shared<cache::RestampedObject>(event.previous, version);
    }
  }
  event.object = std::move(object);
  Append(std::move(event));
  return true;
}

void Informer::OnBookmark(std::string_view resource_version) {
  std::optional<uint64_t> version = cache::ParseResourceVersion(resource_version);
  if (!version.has_value()) return;
  std::vector<std::function<void()>> reached;
  {
    absl::MutexLock lock(&mu_);
    if (synced_ && *version > version_) version_ = *version;
    reached = TakeReachedLocked();
  }
  for (const std::function<void()>& callback : reached) callback();
}

void Informer::Append(Event event) {
  history_.Append(std::move(event), absl::Now());
}

bool Informer::synced() const {
  absl::ReaderMutexLock lock(&mu_);
  return synced_;
}

uint64_t Informer::resource_version() const {
  absl::ReaderMutexLock lock(&mu_);
  return version_;
}

InformerStats Informer::stats() const {
  InformerStats stats;
  {
    absl::ReaderMutexLock lock(&mu_);
    stats = counters_;
    stats.synced = synced_;
    stats.resource_version = version_;
    stats.oldest_resource_version = history_.oldest_version();
    stats.objects = store_.size();
    stats.object_bytes = store_.bytes();
    stats.history_events = history_.size();
  }
  absl::MutexLock lock(&waiters_mu_);
  stats.waiting_watchers = waiters_.size();
  return stats;
}

bool Informer::WaitForVersion(uint64_t version, absl::Duration timeout) const {
  auto reached = [this, version]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return synced_ && version_ >= version;
  };
  absl::ReaderMutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

std::pair<ObjectPtr, uint64_t> Informer::Get(std::string_view key) const {
  absl::ReaderMutexLock lock(&mu_);
  return {store_.Get(key), version_};
}

absl::Status Informer::TooOld(uint64_t version) const {
  return absl::OutOfRangeError(absl::StrCat("too old resource version: ", version, " (",
                                            history_.oldest_version(), ")"));
}

absl::StatusOr<Informer::Page> Informer::List(const cache::Filter& filter,
                                                  uint64_t at_version,
                                                  std::string_view after_key, size_t limit,
                                                  size_t max_bytes) const {
  absl::ReaderMutexLock lock(&mu_);
  Page page;
  page.resource_version = version_;
  Overlay overlay;
  bool historic = at_version != 0 && at_version < version_;
  if (historic) {
    std::optional<uint64_t> position = history_.PositionAfter(at_version);
    if (!position.has_value()) return TooOld(at_version);
    for (uint64_t p = history_.end_position(); p > *position; --p) {
      const Event* event = history_.At(p - 1);
      overlay[event->object->key()] = event->previous;
    }
    page.resource_version = at_version;
  }
  size_t bytes = 0;
  auto visit = [&](const cache::Object* object) {
    if (!filter.Matches(*object)) return true;
    if ((limit != 0 && page.items.size() >= limit) ||
        (!page.items.empty() && bytes >= max_bytes)) {
      page.more = true;
      return false;
    }
    bytes += object->wire().size();
    page.items.push_back(object->shared_from_this());
    return true;
  };
  const cache::IndexedObjects* run = ChooseIndex(store_, filter);
  const Overlay* overlay_ptr = historic ? &overlay : nullptr;
  if (run != nullptr) {
    MergeWalk(run->upper_bound(after_key), run->end(),
              [](auto it) -> const std::string& { return (*it)->key(); },
              [](auto it) { return *it; }, overlay_ptr, after_key, visit);
  } else {
    const auto& objects = store_.objects();
    MergeWalk(objects.upper_bound(after_key), objects.end(),
              [](auto it) -> const std::string& { return it->first; },
              [](auto it) { return it->second.get(); }, overlay_ptr, after_key, visit);
  }
  return page;
}

absl::StatusOr<uint64_t> Informer::WatchPosition(uint64_t version) const {
  absl::ReaderMutexLock lock(&mu_);
  std::optional<uint64_t> position = history_.PositionAfter(version);
  if (!position.has_value()) return TooOld(version);
  return *position;
}

absl::StatusOr<std::vector<Event>> Informer::EventsBetween(uint64_t from_version,
                                                          uint64_t through_version) const {
  absl::ReaderMutexLock lock(&mu_);
  std::optional<uint64_t> position = history_.PositionAfter(from_version);
  if (!position.has_value()) return TooOld(from_version);
  std::vector<Event> events;
  for (const Event* event = history_.At(*position);
       event != nullptr && event->resource_version <= through_version;
       event = history_.At(++*position)) {
    events.push_back(*event);
  }
  return events;
}

absl::Status Informer::PrependHistory(std::vector<Event> older, uint64_t from_version,
                                      uint64_t through_version) {
  absl::MutexLock lock(&mu_);
  const uint64_t oldest = history_.oldest_version();
  if (from_version >= oldest) return absl::OkStatus();
  if (!synced_ || through_version < oldest) {
    return absl::UnavailableError(absl::StrCat(
        "the backfill reached version ", through_version, ", short of the history's oldest, ",
        oldest));
  }
  std::vector<Event> missing;
  for (Event& event : older) {
    if (event.resource_version > from_version && event.resource_version <= oldest) {
      missing.push_back(std::move(event));
    }
  }
  if (!history_.Prepend(std::move(missing), from_version)) {
    return absl::UnavailableError(absl::StrCat("no room in the history for the events since ",
                                               from_version));
  }
  return absl::OkStatus();
}

Informer::InitialState Informer::Snapshot(const cache::Filter& filter) const {
  absl::ReaderMutexLock lock(&mu_);
  InitialState state;
  state.resource_version = version_;
  state.position = history_.end_position();
  const cache::IndexedObjects* run = ChooseIndex(store_, filter);
  if (run != nullptr) {
    for (const cache::Object* object : *run) {
      if (filter.Matches(*object)) state.objects.push_back(object->shared_from_this());
    }
  } else {
    for (const auto& [key, object] : store_.objects()) {
      if (filter.Matches(*object)) state.objects.push_back(object);
    }
  }
  return state;
}

Informer::ReadResult Informer::Read(uint64_t position, Event* event, uint64_t* version,
                                    const std::shared_ptr<Waiter>& waiter) const {
  absl::ReaderMutexLock lock(&mu_);
  if (position < history_.first_position()) return ReadResult::kTooOld;
  if (const Event* found = history_.At(position)) {
    *event = *found;
    return ReadResult::kEvent;
  }
  *version = version_;
  if (waiter != nullptr) {
    absl::MutexLock waiters_lock(&waiters_mu_);
    waiters_.push_back(waiter);
  }
  return ReadResult::kCaughtUp;
}

void Informer::SignalDispatcher() {
  absl::MutexLock lock(&waiters_mu_);
  // Read registers a waiter while holding mu_, so every waiter that could
  // miss an event appended under mu_ is already here. With none, waking the
  // dispatcher would only cost a futex round trip per event.
  if (!waiters_.empty()) wake_pending_ = true;
}

void Informer::DispatchLoop() {
  while (true) {
    std::vector<std::weak_ptr<Waiter>> woken;
    {
      absl::MutexLock lock(&waiters_mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(waiters_mu_) {
        return wake_pending_ || stopping_;
      };
      waiters_mu_.AwaitWithTimeout(absl::Condition(&ready), options_.tick);
      if (stopping_) return;
      wake_pending_ = false;
      woken.swap(waiters_);
    }
    for (const std::weak_ptr<Waiter>& weak : woken) {
      if (std::shared_ptr<Waiter> waiter = weak.lock()) waiter->Wake();
    }
  }
}

}  // namespace informerd::informer
