#include "server/cache/object_store.h"


namespace informerd::cache {
namespace {

std::string PairKey(std::string_view key, std::string_view value) {
  std::string pair;
  pair.reserve(key.size() + 1 + value.size());
  pair.append(key).push_back('\0');
  pair.append(value);
  return pair;
}

const IndexedObjects* Lookup(const absl::flat_hash_map<std::string, IndexedObjects>& index,
                             const std::string& key) {
  auto it = index.find(key);
  return it == index.end() ? nullptr : &it->second;
}

void Erase(absl::flat_hash_map<std::string, IndexedObjects>& index,
           const std::string& key, const Object* object) {
  auto it = index.find(key);
  if (it == index.end()) return;
  it->second.erase(object);
  if (it->second.empty()) index.erase(it);
}

}  // namespace

ObjectPtr ObjectStore::Get(std::string_view key) const {
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

ObjectPtr ObjectStore::Put(ObjectPtr object) {
  ObjectPtr previous = Remove(object->key());
  AddToIndexes(object.get());
  bytes_ += object->ApproximateBytes();
  std::string key = object->key();
  objects_.emplace(std::move(key), std::move(object));
  return previous;
}

ObjectPtr ObjectStore::Remove(std::string_view key) {
  auto it = objects_.find(key);
  if (it == objects_.end()) return nullptr;
  ObjectPtr previous = std::move(it->second);
  objects_.erase(it);
  RemoveFromIndexes(previous.get());
  bytes_ -= previous->ApproximateBytes();
  return previous;
}

const IndexedObjects* ObjectStore::ByNamespace(std::string_view namespace_) const {
  return Lookup(by_namespace_, std::string(namespace_));
}

const IndexedObjects* ObjectStore::ByLabel(std::string_view key, std::string_view value) const {
  return Lookup(by_label_, PairKey(key, value));
}

const IndexedObjects* ObjectStore::ByField(std::string_view field, std::string_view value) const {
  return Lookup(by_field_, PairKey(field, value));
}

void ObjectStore::AddToIndexes(const Object* object) {
  by_namespace_[object->namespace_()].insert(object);
  for (const auto& [key, value] : object->labels()) by_label_[PairKey(key, value)].insert(object);
  for (const auto& [field, value] : object->field_values()) {
    by_field_[PairKey(field, value)].insert(object);
  }
}

void ObjectStore::RemoveFromIndexes(const Object* object) {
  Erase(by_namespace_, object->namespace_(), object);
  for (const auto& [key, value] : object->labels()) Erase(by_label_, PairKey(key, value), object);
  for (const auto& [field, value] : object->field_values()) {
    Erase(by_field_, PairKey(field, value), object);
  }
}

}  // namespace informerd::cache
