// LabelSelector: a parsed Kubernetes label selector, e.g.
// "app=web,tier!=db,env in (prod,staging),release notin (canary),owner,!temp".
//
// Parse accepts exactly the syntax of k8s.io/apimachinery labels.Parse
// (including its '>' and '<' integer comparisons) and Matches answers as the
// kube-apiserver does; in particular "!=" and "notin" also match objects
// that lack the key, while "=", "in", ">" and "<" require it.
//
// A LabelSelector is immutable after Parse; const methods are safe to call
// from many threads at once.
#ifndef INFORMERD_SELECTOR_LABEL_SELECTOR_H_
#define INFORMERD_SELECTOR_LABEL_SELECTOR_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "selector/labels.h"

namespace informerd::selector {

struct LabelRequirement {
  enum class Operator {
    kEquals,        // "=" or "==": exactly one value.
    kNotEquals,     // "!=": exactly one value.
    kIn,            // "in (...)": one or more values.
    kNotIn,         // "notin (...)": one or more values.
    kExists,        // bare "key": no values.
    kDoesNotExist,  // "!key": no values.
    kGreaterThan,   // ">": one value, a decimal integer.
    kLessThan,      // "<": one value, a decimal integer.
  };

  std::string key;
  Operator op;
  // Sorted, without duplicates. The empty string is a valid value.
  std::vector<std::string> values;

  bool operator==(const LabelRequirement& other) const {
    return key == other.key && op == other.op && values == other.values;
  }
};

class LabelSelector {
 public:
  // Longest accepted selector text, and most requirements in one selector:
  // bounds the work a single request can cause.
  static constexpr size_t kMaxTextLength = 4096;
  static constexpr size_t kMaxRequirements = 100;

  // Parses `text`. An empty (or all-whitespace) text selects everything.
  // Malformed text gives INVALID_ARGUMENT whose message starts with
  // "<field_name>: " and names the byte position (0-based) of the problem.
  static absl::StatusOr<LabelSelector> Parse(
      std::string_view text, std::string_view field_name = "label_selector");

  // The selector that selects everything.
  LabelSelector() = default;

  // True if every requirement holds for `labels`.
  // REQUIRES: `labels` is sorted by key with unique keys (see labels.h).
  bool Matches(const Labels& labels) const;

  // True if the selector selects everything.
  bool Empty() const { return requirements_.empty(); }

  // Sorted by key, then operator, then values.
  const std::vector<LabelRequirement>& requirements() const {
    return requirements_;
  }

  // The canonical text: requirements in order, joined by ','. "==" is
  // written as "=", values in sorted order. Parse(String()) yields an equal
  // selector, unless the canonical spacing (" in (") made String() longer
  // than kMaxTextLength.
  std::string String() const;

  // (key, value) for every requirement that pins a key to a single value
  // ("=", "==", or "in" with one value): an object can only match if it has
  // each of these labels, so a caller can narrow its search with any one.
  std::vector<std::pair<std::string, std::string>> EqualityTerms() const;

 private:
  explicit LabelSelector(std::vector<LabelRequirement> requirements)
      : requirements_(std::move(requirements)) {}

  std::vector<LabelRequirement> requirements_;
};

}  // namespace informerd::selector

#endif  // INFORMERD_SELECTOR_LABEL_SELECTOR_H_
