// Labels: an object's metadata.labels as the selectors read them.
//
// A plain sorted vector rather than a map: objects carry few labels, the
// cache holds many objects, and a vector is compact and cheap to compare.
#ifndef INFORMERD_SELECTOR_LABELS_H_
#define INFORMERD_SELECTOR_LABELS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace informerd::selector {

// (key, value) pairs sorted by key; keys are unique.
using Labels = std::vector<std::pair<std::string, std::string>>;

// Returns the value stored under `key`, or nullptr if `labels` has no such
// key. The pointer is valid until `labels` is modified.
// REQUIRES: `labels` is sorted by key and its keys are unique.
const std::string* FindLabel(const Labels& labels, std::string_view key);

}  // namespace informerd::selector

#endif  // INFORMERD_SELECTOR_LABELS_H_
