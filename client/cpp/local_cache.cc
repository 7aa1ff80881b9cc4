#include "client/cpp/local_cache.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace informerd {
namespace client {

namespace {

// One requirement of an equality-based label selector.
struct LabelRequirement {
  enum class Operator { kEquals, kNotEquals, kExists, kNotExists };
  Operator op;
  std::string key;
  std::string value;
};

bool IsLabelKeyChar(char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' ||
         c == '/';
}

bool IsLabelValueChar(char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.';
}

absl::Status SelectorError(absl::string_view reason, size_t position) {
  return absl::InvalidArgumentError(
      absl::StrCat("label_selector: ", reason, " at ", position));
}

absl::StatusOr<LabelRequirement> ParseRequirement(absl::string_view term,
                                                  size_t position) {
  LabelRequirement requirement;
  absl::string_view key = term;
  absl::string_view value;
  bool has_value = true;
  if (size_t at = term.find("!="); at != absl::string_view::npos) {
    requirement.op = LabelRequirement::Operator::kNotEquals;
    key = term.substr(0, at);
    value = term.substr(at + 2);
  } else if (size_t at = term.find('='); at != absl::string_view::npos) {
    requirement.op = LabelRequirement::Operator::kEquals;
    key = term.substr(0, at);
    value = term.substr(at + 1);
    if (!value.empty() && value[0] == '=') value.remove_prefix(1);
  } else if (!term.empty() && term[0] == '!') {
    requirement.op = LabelRequirement::Operator::kNotExists;
    key = term.substr(1);
    has_value = false;
  } else {
    requirement.op = LabelRequirement::Operator::kExists;
    has_value = false;
  }
  key = absl::StripAsciiWhitespace(key);
  value = absl::StripAsciiWhitespace(value);
  if (key.empty()) return SelectorError("missing label key", position);
  for (char c : key) {
    if (c == '(' || absl::ascii_isspace(c)) {
      return SelectorError(
          "set-based requirements (in, notin) are not supported client-side",
          position);
    }
    if (!IsLabelKeyChar(c)) {
      return SelectorError(absl::StrCat("invalid character '", std::string(1, c),
                                        "' in label key"),
                           position);
    }
  }
  if (has_value) {
    for (char c : value) {
      if (!IsLabelValueChar(c)) {
        return SelectorError(absl::StrCat("invalid character '",
                                          std::string(1, c),
                                          "' in label value"),
                             position);
      }
    }
  }
  requirement.key = std::string(key);
  requirement.value = std::string(value);
  return requirement;
}

absl::StatusOr<std::vector<LabelRequirement>> ParseLabelSelector(
    absl::string_view selector) {
  std::vector<LabelRequirement> requirements;
  if (absl::StripAsciiWhitespace(selector).empty()) return requirements;
  size_t position = 0;
  for (absl::string_view term : absl::StrSplit(selector, ',')) {
    absl::StatusOr<LabelRequirement> requirement =
        ParseRequirement(term, position);
    if (!requirement.ok()) return requirement.status();
    requirements.push_back(*std::move(requirement));
    position += term.size() + 1;
  }
  return requirements;
}

bool Matches(const std::vector<LabelRequirement>& requirements,
             const informerd::v1::Object& object) {
  for (const LabelRequirement& requirement : requirements) {
    auto label = object.labels().find(requirement.key);
    bool present = label != object.labels().end();
    switch (requirement.op) {
      case LabelRequirement::Operator::kEquals:
        if (!present || label->second != requirement.value) return false;
        break;
      case LabelRequirement::Operator::kNotEquals:
        // As in Kubernetes: a missing label is "not equal".
        if (present && label->second == requirement.value) return false;
        break;
      case LabelRequirement::Operator::kExists:
        if (!present) return false;
        break;
      case LabelRequirement::Operator::kNotExists:
        if (present) return false;
        break;
    }
  }
  return true;
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
  absl::StatusOr<std::vector<LabelRequirement>> requirements =
      ParseLabelSelector(label_selector);
  if (!requirements.ok()) return requirements.status();
  std::vector<CachedObjectPtr> matching;
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& entry : objects_) {
    if (Matches(*requirements, entry.second->object)) {
      matching.push_back(entry.second);
    }
  }
  return matching;
}

absl::StatusOr<std::vector<CachedObjectPtr>> LocalCache::ListByIndex(
    absl::string_view index_name, absl::string_view value) const {
  std::vector<CachedObjectPtr> filed;
  absl::ReaderMutexLock lock(&mu_);
  auto index = indexes_.find(index_name);
  if (index == indexes_.end()) {
    return absl::NotFoundError(
        absl::StrCat("index_name: no index \"", index_name, "\""));
  }
  auto keys = index->second.keys_by_value.find(value);
  if (keys == index->second.keys_by_value.end()) return filed;
  for (const std::string& key : keys->second) {
    auto object = objects_.find(key);
    if (object != objects_.end()) filed.push_back(object->second);
  }
  return filed;
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
  std::string key = ObjectKey(object.namespace_(), object.name());
  auto cached = std::make_shared<const CachedObject>(
      CachedObject{std::move(object)});
  absl::MutexLock lock(&mu_);
  CachedObjectPtr& slot = objects_[key];
  CachedObjectPtr previous = std::move(slot);
  if (previous != nullptr) UnfileLocked(key, previous->object);
  slot = cached;
  for (auto& entry : indexes_) FileLocked(key, cached->object, &entry.second);
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
