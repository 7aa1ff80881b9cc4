#include "selector/field_selector.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace informerd::selector {
namespace {

using Operator = FieldRequirement::Operator;

// One comma-separated piece of the selector text.
struct Term {
  std::string_view text;
  size_t position;  // Byte offset of `text` in the selector text.
};

// Splits on commas that are not escaped by a backslash. The escapes stay in
// the terms; values are unescaped later.
std::vector<Term> SplitTerms(std::string_view text) {
  std::vector<Term> terms;
  size_t start = 0;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (text[i] == '\\') {
      escaped = true;
    } else if (text[i] == ',') {
      terms.push_back({text.substr(start, i - start), start});
      start = i + 1;
    }
  }
  terms.push_back({text.substr(start), start});
  return terms;
}

std::string Quote(std::string_view text) {
  return absl::StrCat(
      "\"", absl::CHexEscape(absl::string_view(text.data(), text.size())),
      "\"");
}

std::string EscapeValue(std::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return escaped;
}

bool RequirementLess(const FieldRequirement& a, const FieldRequirement& b) {
  if (a.field != b.field) return a.field < b.field;
  if (a.op != b.op) return a.op < b.op;
  return a.value < b.value;
}

class Parser {
 public:
  explicit Parser(std::string_view field_name) : field_name_(field_name) {}

  absl::StatusOr<std::vector<FieldRequirement>> ParseSelector(
      std::string_view text) const {
    std::vector<FieldRequirement> requirements;
    for (const Term& term : SplitTerms(text)) {
      if (term.text.empty()) continue;
      if (requirements.size() == FieldSelector::kMaxRequirements) {
        return Error(term.position,
                     absl::StrCat("more than ", FieldSelector::kMaxRequirements,
                                  " requirements"));
      }
      absl::StatusOr<FieldRequirement> requirement = ParseTerm(term);
      if (!requirement.ok()) return requirement.status();
      requirements.push_back(*std::move(requirement));
    }
    return requirements;
  }

 private:
  absl::Status Error(size_t position, const std::string& reason) const {
    return absl::InvalidArgumentError(
        absl::StrCat(field_name_, ": ", reason, " at position ", position));
  }

  // The field runs to the first "!=", "==" or "=", escapes or not, as in
  // apimachinery.
  absl::StatusOr<FieldRequirement> ParseTerm(const Term& term) const {
    const std::string_view text = term.text;
    for (size_t i = 0; i < text.size(); ++i) {
      const std::string_view rest = text.substr(i);
      Operator op;
      size_t op_length;
      if (rest.substr(0, 2) == "!=") {
        op = Operator::kNotEquals;
        op_length = 2;
      } else if (rest.substr(0, 2) == "==") {
        op = Operator::kEquals;
        op_length = 2;
      } else if (rest[0] == '=') {
        op = Operator::kEquals;
        op_length = 1;
      } else {
        continue;
      }
      if (i == 0) return Error(term.position, "missing field name");
      FieldRequirement requirement{std::string(text.substr(0, i)), op, ""};
      const size_t value_position = term.position + i + op_length;
      absl::Status unescaped = UnescapeValue(
          text.substr(i + op_length), value_position, &requirement.value);
      if (!unescaped.ok()) return unescaped;
      return requirement;
    }
    return Error(term.position, absl::StrCat("term ", Quote(text),
                                             " has no operator (=, == or !=)"));
  }

  // Only "\\", "\," and "\=" are escapes; a bare ',' cannot occur (it
  // separates terms) and a bare '=' is an error.
  absl::Status UnescapeValue(std::string_view escaped, size_t position,
                             std::string* value) const {
    for (size_t i = 0; i < escaped.size(); ++i) {
      const char c = escaped[i];
      if (c == '=') {
        return Error(position + i, "unescaped '=' in value (write '\\=')");
      }
      if (c != '\\') {
        value->push_back(c);
        continue;
      }
      if (i + 1 == escaped.size()) {
        return Error(position + i,
                     "value ends in an unfinished escape '\\' (write '\\\\')");
      }
      const char escapee = escaped[++i];
      if (escapee != '\\' && escapee != ',' && escapee != '=') {
        return Error(position + i - 1,
                     absl::StrCat("invalid escape sequence ",
                                  Quote(escaped.substr(i - 1, 2)),
                                  " in value (only \\\\, \\, and \\= are "
                                  "escapes)"));
      }
      value->push_back(escapee);
    }
    return absl::OkStatus();
  }

  const std::string field_name_;
};

}  // namespace

absl::StatusOr<FieldSelector> FieldSelector::Parse(
    std::string_view text, std::string_view field_name) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field_name), ": too long (", text.size(),
                     " bytes; at most ", kMaxTextLength, ")"));
  }
  absl::StatusOr<std::vector<FieldRequirement>> requirements =
      Parser(field_name).ParseSelector(text);
  if (!requirements.ok()) return requirements.status();
  std::sort(requirements->begin(), requirements->end(), RequirementLess);
  return FieldSelector(*std::move(requirements));
}

bool FieldSelector::Matches(
    absl::FunctionRef<std::optional<std::string_view>(std::string_view field)>
        lookup) const {
  for (const FieldRequirement& requirement : requirements_) {
    const std::string_view actual =
        lookup(requirement.field).value_or(std::string_view());
    const bool equal = actual == requirement.value;
    if (equal != (requirement.op == Operator::kEquals)) return false;
  }
  return true;
}

std::string FieldSelector::String() const {
  return absl::StrJoin(
      requirements_, ",", [](std::string* out, const FieldRequirement& r) {
        absl::StrAppend(out, r.field, r.op == Operator::kEquals ? "=" : "!=",
                        EscapeValue(r.value));
      });
}

std::vector<std::pair<std::string, std::string>> FieldSelector::EqualityTerms()
    const {
  std::vector<std::pair<std::string, std::string>> terms;
  for (const FieldRequirement& requirement : requirements_) {
    if (requirement.op == Operator::kEquals) {
      terms.emplace_back(requirement.field, requirement.value);
    }
  }
  return terms;
}

}  // namespace informerd::selector
