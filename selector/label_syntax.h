// Kubernetes' rules for what a label key and a label value may look like
// (k8s.io/apimachinery validation.IsQualifiedName and IsValidLabelValue).
//
// A key is an optional prefix and '/' followed by a name. The prefix is a
// DNS-1123 subdomain (lowercase, at most 253 bytes); the name is 1 to 63
// bytes of [-A-Za-z0-9_.] that begin and end with [A-Za-z0-9]. A value is
// empty or follows the same rule as a name.
#ifndef INFORMERD_SELECTOR_LABEL_SYNTAX_H_
#define INFORMERD_SELECTOR_LABEL_SYNTAX_H_

#include <string_view>

#include "absl/status/status.h"

namespace informerd::selector {

// OK, or INVALID_ARGUMENT whose message is the reason alone (e.g. "name part
// must be 63 characters or less"); callers add the field and the position.
absl::Status ValidateLabelKey(std::string_view key);
absl::Status ValidateLabelValue(std::string_view value);

}  // namespace informerd::selector

#endif  // INFORMERD_SELECTOR_LABEL_SYNTAX_H_
