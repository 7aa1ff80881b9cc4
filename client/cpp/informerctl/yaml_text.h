// JSON text as YAML, the way `kubectl get -o yaml` shows objects: block
// style, two-space indents, mapping keys sorted, strings quoted whenever a
// YAML reader could take them for anything but a string (numbers, booleans,
// null, timestamps), so the YAML reads back as the same JSON value.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_YAML_TEXT_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_YAML_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace informerd {
namespace informerctl {

// The YAML document for json, ending in a newline. INVALID_ARGUMENT, with
// RapidJSON's message and offset, when json does not parse. Nesting is
// bounded by the parser's own stack (iterative parsing) and emission
// recurses once per level: objects from informerd are API server objects,
// whose nesting the API server bounds.
absl::StatusOr<std::string> JsonToYaml(absl::string_view json);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_YAML_TEXT_H_
