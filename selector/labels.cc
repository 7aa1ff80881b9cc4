#include "selector/labels.h"

#include <algorithm>

namespace informerd::selector {

const std::string* FindLabel(const Labels& labels, std::string_view key) {
  auto it = std::lower_bound(
      labels.begin(), labels.end(), key,
      [](const std::pair<std::string, std::string>& label,
         std::string_view wanted) { return label.first < wanted; });
  if (it == labels.end() || it->first != key) return nullptr;
  return &it->second;
}

}  // namespace informerd::selector
