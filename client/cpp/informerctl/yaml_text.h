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

// YAML indents every level, so a document's size grows with the square of
// its depth (20,000 nested lists made 400 MB in 23 s); Kubernetes objects
// nest a few dozen levels. Deeper ones are refused: -o json prints any
// object verbatim.
inline constexpr int kMaxYamlDepth = 1000;

// The YAML document for json, ending in a newline. INVALID_ARGUMENT, with
// RapidJSON's message and offset, when json does not parse, and when it
// nests deeper than kMaxYamlDepth. Parsing does not recurse.
absl::StatusOr<std::string> JsonToYaml(absl::string_view json);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_YAML_TEXT_H_
