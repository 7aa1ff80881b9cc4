#include "client/cpp/relist_diff.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace informerd {
namespace client {

std::vector<CacheChange> DiffRelist(const std::vector<CachedObjectPtr>& cached,
                                    std::vector<informerd::v1::Object> listed) {
  std::unordered_map<std::string, CachedObjectPtr> cached_by_key;
  for (const CachedObjectPtr& object : cached) {
    cached_by_key[ObjectKey(object->object.namespace_(),
                            object->object.name())] = object;
  }

  // Index of each key's last listing, so duplicates collapse to one change.
  std::unordered_map<std::string, size_t> last_listing;
  for (size_t i = 0; i < listed.size(); ++i) {
    last_listing[ObjectKey(listed[i].namespace_(), listed[i].name())] = i;
  }

  std::vector<CacheChange> changes;
  std::unordered_set<std::string> listed_keys;
  for (size_t i = 0; i < listed.size(); ++i) {
    std::string key = ObjectKey(listed[i].namespace_(), listed[i].name());
    if (last_listing[key] != i) continue;
    listed_keys.insert(key);
    auto old = cached_by_key.find(key);
    if (old == cached_by_key.end()) {
      changes.push_back(
          {CacheChange::Type::kAdd, nullptr, std::move(listed[i])});
    } else if (!old->second->object.uid().empty() &&
               old->second->object.uid() != listed[i].uid()) {
      changes.push_back({CacheChange::Type::kDelete, old->second, {}});
      changes.push_back(
          {CacheChange::Type::kAdd, nullptr, std::move(listed[i])});
    } else if (old->second->object.resource_version() !=
               listed[i].resource_version()) {
      changes.push_back(
          {CacheChange::Type::kUpdate, old->second, std::move(listed[i])});
    }
  }
  for (const CachedObjectPtr& object : cached) {
    std::string key =
        ObjectKey(object->object.namespace_(), object->object.name());
    if (listed_keys.count(key) == 0) {
      changes.push_back({CacheChange::Type::kDelete, object, {}});
    }
  }
  return changes;
}

}  // namespace client
}  // namespace informerd
