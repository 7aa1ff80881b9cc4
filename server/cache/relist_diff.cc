#include "server/cache/relist_diff.h"

#include <algorithm>

namespace informerd::cache {

std::vector<Event> ComputeRelistDiff(const ObjectStore& store,
                                     const std::vector<ObjectPtr>& listed,
                                     uint64_t previous_version,
                                     uint64_t list_version, absl::Time now) {
  std::vector<const ObjectPtr*> sorted;
  sorted.reserve(listed.size());
  for (const ObjectPtr& object : listed) sorted.push_back(&object);
  std::sort(sorted.begin(), sorted.end(),
            [](const ObjectPtr* a, const ObjectPtr* b) { return (*a)->key() < (*b)->key(); });

  std::vector<Event> events;
  auto emit = [&](EventType type, ObjectPtr object, ObjectPtr previous, bool unknown) {
    Event event;
    event.type = type;
    event.object = std::move(object);
    event.previous = std::move(previous);
    event.final_state_unknown = unknown;
    if (type == EventType::kModified) {
      event.previous_as_deleted = std::make_shared<RestampedObject>(event.previous, list_version);
    }
    event.resource_version = list_version;
    event.resume_version = previous_version;
    event.time = now;
    events.push_back(std::move(event));
  };
  auto vanished = [&](const ObjectPtr& old) {
    emit(EventType::kDeleted, old, old, /*unknown=*/true);
  };

  // Merge the two key-ordered sequences.
  auto cached = store.objects().begin();
  auto cached_end = store.objects().end();
  for (const ObjectPtr* fresh_ptr : sorted) {
    const ObjectPtr& fresh = *fresh_ptr;
    while (cached != cached_end && cached->first < fresh->key()) {
      vanished(cached->second);
      ++cached;
    }
    if (cached != cached_end && cached->first == fresh->key()) {
      const ObjectPtr& old = cached->second;
      if (!old->uid().empty() && old->uid() != fresh->uid()) {
        vanished(old);
        emit(EventType::kAdded, fresh, nullptr, false);
      } else if (old->resource_version() != fresh->resource_version()) {
        emit(EventType::kModified, fresh, old, false);
      }
      ++cached;
    } else {
      emit(EventType::kAdded, fresh, nullptr, false);
    }
  }
  for (; cached != cached_end; ++cached) vanished(cached->second);
  if (!events.empty()) events.back().resume_version = list_version;
  return events;
}

}  // namespace informerd::cache
