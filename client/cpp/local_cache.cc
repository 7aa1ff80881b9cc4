#include "client/cpp/local_cache.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "selector/label_selector.h"

namespace informerd {
namespace client {

namespace {

// The server's selector matcher reads labels as a sorted vector.
selector::Labels SortedLabels(const informerd::v1::Object& object) {
  selector::Labels labels(object.labels().begin(), object.labels().end());
  std::sort(labels.begin(), labels.end());
  return labels;
}

}  // namespace

std::string ObjectKey(absl::string_view object_namespace,
                      absl::string_view name) {
  if (object_namespace.empty()) return std::string(name);
  return absl::StrCat(object_namespace, "/", name);
}

LocalCache::LocalCache() {
  indexes_[kNamespaceIndex].index_func = [](const informerd::v1::Object& o) {
    return std::vector<std::string>{o.namespace_()};
  };
}

absl::Status LocalCache::AddIndex(const std::string& index_name,
                                  IndexFunc index_func) {
  absl::MutexLock lock(&mu_);
  if (indexes_.count(index_name) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("index \"", index_name, "\" already exists"));
  }
  Index& index = indexes_[index_name];
  index.index_func = std::move(index_func);
  for (const auto& [key, cached] : objects_) {
    FileLocked(key, cached->object, &index);
  }
  return absl::OkStatus();
}

CachedObjectPtr LocalCache::Get(absl::string_view object_namespace,
                                absl::string_view name) const {
  std::string key = ObjectKey(object_namespace, name);
  absl::ReaderMutexLock lock(&mu_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

absl::StatusOr<std::vector<CachedObjectPtr>> LocalCache::List(
    absl::string_view label_selector) const {
  absl::StatusOr<selector::LabelSelector> parsed = selector::LabelSelector::Parse(
      std::string_view(label_selector.data(), label_selector.size()));
  if (!parsed.ok()) return parsed.status();
  std::vector<CachedObjectPtr> matching;
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& entry : objects_) {
    if (parsed->Matches(SortedLabels(entry.second->object))) {
      matching.push_back(entry.second);
    }
  }
  return matching;
}

absl::StatusOr<const std::set<std::string>*> LocalCache::IndexedKeysLocked(
    absl::string_view index_name, absl::string_view value) const {
  auto index = indexes_.find(index_name);
  if (index == indexes_.end()) {
    return absl::NotFoundError(
        absl::StrCat("index_name: no index \"", index_name, "\""));
  }
  auto keys = index->second.keys_by_value.find(value);
  if (keys == index->second.keys_by_value.end()) return nullptr;
  return &keys->second;
}

absl::StatusOr<std::vector<CachedObjectPtr>> LocalCache::ByIndex(
    absl::string_view index_name, absl::string_view value) const {
  std::vector<CachedObjectPtr> filed;
  absl::ReaderMutexLock lock(&mu_);
  absl::StatusOr<const std::set<std::string>*> keys =
      IndexedKeysLocked(index_name, value);
  if (!keys.ok()) return keys.status();
  if (*keys == nullptr) return filed;
  for (const std::string& key : **keys) {
    auto object = objects_.find(key);
    if (object != objects_.end()) filed.push_back(object->second);
  }
  return filed;
}

absl::StatusOr<std::vector<std::string>> LocalCache::IndexKeys(
    absl::string_view index_name, absl::string_view value) const {
  absl::ReaderMutexLock lock(&mu_);
  absl::StatusOr<const std::set<std::string>*> keys =
      IndexedKeysLocked(index_name, value);
  if (!keys.ok()) return keys.status();
  if (*keys == nullptr) return std::vector<std::string>();
  return std::vector<std::string>((*keys)->begin(), (*keys)->end());
}

std::vector<CachedObjectPtr> LocalCache::All() const {
  std::vector<CachedObjectPtr> all;
  absl::ReaderMutexLock lock(&mu_);
  all.reserve(objects_.size());
  for (const auto& entry : objects_) all.push_back(entry.second);
  return all;
}

size_t LocalCache::Size() const {
  absl::ReaderMutexLock lock(&mu_);
  return objects_.size();
}

CachedObjectPtr LocalCache::Upsert(informerd::v1::Object object) {
  return Store(std::make_shared<const CachedObject>(
      CachedObject{std::move(object)}));
}

CachedObjectPtr LocalCache::Store(CachedObjectPtr object) {
  std::string key = ObjectKey(object->object.namespace_(), object->object.name());
  absl::MutexLock lock(&mu_);
  CachedObjectPtr& slot = objects_[key];
  CachedObjectPtr previous = std::move(slot);
  if (previous != nullptr) UnfileLocked(key, previous->object);
  slot = std::move(object);
  for (auto& entry : indexes_) FileLocked(key, slot->object, &entry.second);
  return previous;
}

CachedObjectPtr LocalCache::Remove(absl::string_view object_namespace,
                                   absl::string_view name) {
  std::string key = ObjectKey(object_namespace, name);
  absl::MutexLock lock(&mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return nullptr;
  CachedObjectPtr removed = std::move(it->second);
  objects_.erase(it);
  UnfileLocked(key, removed->object);
  return removed;
}

void LocalCache::FileLocked(const std::string& key,
                            const informerd::v1::Object& object,
                            Index* index) {
  for (std::string& value : index->index_func(object)) {
    index->keys_by_value[std::move(value)].insert(key);
  }
}

void LocalCache::UnfileLocked(const std::string& key,
                              const informerd::v1::Object& object) {
  for (auto& entry : indexes_) {
    Index& index = entry.second;
    for (const std::string& value : index.index_func(object)) {
      auto keys = index.keys_by_value.find(value);
      if (keys == index.keys_by_value.end()) continue;
      keys->second.erase(key);
      if (keys->second.empty()) index.keys_by_value.erase(keys);
    }
  }
}

}  // namespace client
}  // namespace informerd
