// The conformance vectors of tests/conformance/ as C++ values, for the C++
// runtimes' tests (the server's selectors and relist diff, the C++ client's
// relist diff). The Go, Java and Python clients read the same files.
//
// The files are found in the test's runfiles: a test that calls these
// functions lists the file in its `data`.
#ifndef INFORMERD_TESTS_CONFORMANCE_VECTORS_H_
#define INFORMERD_TESTS_CONFORMANCE_VECTORS_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace informerd::conformance {

struct SelectorObject {
  std::string name;
  // Sorted by key, unique keys (the order selector::Labels wants).
  std::vector<std::pair<std::string, std::string>> labels;
};

// One selector text and the apiserver's verdict: rejected (!valid), or
// selecting exactly `matches` (object names, sorted).
struct SelectorCase {
  std::string selector;
  bool valid = false;
  std::vector<std::string> matches;
};

struct SelectorVectors {
  std::string namespace_;
  std::vector<SelectorObject> objects;  // Sorted by name, like `matches`.
  std::vector<SelectorCase> label_selectors;
  // Field selectors see metadata.name and metadata.namespace (`namespace_`).
  std::vector<SelectorCase> field_selectors;
};

struct RelistObject {
  std::string namespace_;
  std::string name;
  std::string resource_version;
  std::string uid;
};

struct RelistEvent {
  std::string type;  // "ADD", "UPDATE" or "DELETE".
  std::string namespace_;
  std::string name;
  std::optional<std::string> old_resource_version;
  std::optional<std::string> new_resource_version;
};

struct RelistCase {
  std::string name;
  std::vector<RelistObject> before;
  std::vector<RelistObject> after;
  std::vector<RelistEvent> events;
};

// tests/conformance/selectors.json and relist.json.
absl::StatusOr<SelectorVectors> LoadSelectorVectors();
absl::StatusOr<std::vector<RelistCase>> LoadRelistVectors();

// "namespace/name" -> ["TYPE old->new", ...] in the events' order: the
// vectors fix the order within one key only.
std::map<std::string, std::vector<std::string>> PerKey(
    const std::vector<RelistEvent>& events);

}  // namespace informerd::conformance

#endif  // INFORMERD_TESTS_CONFORMANCE_VECTORS_H_
