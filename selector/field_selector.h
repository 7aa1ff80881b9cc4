// FieldSelector: a parsed Kubernetes field selector, e.g.
// "metadata.namespace=default,spec.nodeName!=node-1".
//
// Parse accepts the syntax of k8s.io/apimachinery fields.ParseSelector:
// comma-separated terms "field=value", "field==value" or "field!=value".
// In values, ',', '=' and '\' must be escaped with '\'; field names are taken
// verbatim up to the first operator. Which fields exist is the caller's
// business: this class checks only syntax.
//
// A FieldSelector is immutable after Parse; const methods are safe to call
// from many threads at once.
#ifndef INFORMERD_SELECTOR_FIELD_SELECTOR_H_
#define INFORMERD_SELECTOR_FIELD_SELECTOR_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace informerd::selector {

struct FieldRequirement {
  enum class Operator {
    kEquals,     // "=" or "==".
    kNotEquals,  // "!=".
  };

  std::string field;
  Operator op;
  std::string value;  // Unescaped.

  bool operator==(const FieldRequirement& other) const {
    return field == other.field && op == other.op && value == other.value;
  }
};

class FieldSelector {
 public:
  // Longest accepted selector text, and most requirements in one selector:
  // bounds the work a single request can cause.
  static constexpr size_t kMaxTextLength = 4096;
  static constexpr size_t kMaxRequirements = 100;

  // Parses `text`. An empty text, or one of only commas, selects everything.
  // Malformed text gives INVALID_ARGUMENT whose message starts with
  // "<field_name>: " and names the byte position (0-based) of the problem.
  static absl::StatusOr<FieldSelector> Parse(
      std::string_view text, std::string_view field_name = "field_selector");

  // The selector that selects everything.
  FieldSelector() = default;

  // True if every requirement holds. `lookup` returns an object's value for a
  // field, or nullopt if the object lacks it; a missing field compares as
  // the empty string, as the kube-apiserver does for the fields it knows.
  bool Matches(
      absl::FunctionRef<std::optional<std::string_view>(std::string_view field)>
          lookup) const;

  // True if the selector selects everything.
  bool Empty() const { return requirements_.empty(); }

  // Sorted by field, then operator, then value.
  const std::vector<FieldRequirement>& requirements() const {
    return requirements_;
  }

  // The canonical text: requirements in order as "field=value" or
  // "field!=value" with values escaped, joined by ','. Parse(String())
  // yields an equal selector.
  std::string String() const;

  // (field, value) for every "=" or "==" requirement: an object can only
  // match if each of these fields has that value.
  std::vector<std::pair<std::string, std::string>> EqualityTerms() const;

 private:
  explicit FieldSelector(std::vector<FieldRequirement> requirements)
      : requirements_(std::move(requirements)) {}

  std::vector<FieldRequirement> requirements_;
};

}  // namespace informerd::selector

#endif  // INFORMERD_SELECTOR_FIELD_SELECTOR_H_
