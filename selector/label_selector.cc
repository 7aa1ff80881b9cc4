#include "selector/label_selector.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "selector/label_syntax.h"

namespace informerd::selector {
namespace {

using Operator = LabelRequirement::Operator;

enum class TokenKind {
  kEnd,
  kWord,  // A key or a value; "in" and "notin" are kIn and kNotIn.
  kIn,
  kNotIn,
  kOpenParen,
  kCloseParen,
  kComma,
  kBang,
  kEquals,
  kDoubleEquals,
  kNotEquals,
  kGreater,
  kLess,
};

struct Token {
  TokenKind kind;
  std::string_view text;
  size_t position;  // Byte offset in the selector text.
};

bool IsWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool IsSymbol(char c) {
  switch (c) {
    case '=':
    case '!':
    case '(':
    case ')':
    case ',':
    case '>':
    case '<':
      return true;
    default:
      return false;
  }
}

TokenKind SingleSymbolKind(char c) {
  switch (c) {
    case '=':
      return TokenKind::kEquals;
    case '!':
      return TokenKind::kBang;
    case '(':
      return TokenKind::kOpenParen;
    case ')':
      return TokenKind::kCloseParen;
    case ',':
      return TokenKind::kComma;
    case '>':
      return TokenKind::kGreater;
    default:
      return TokenKind::kLess;
  }
}

// Splits `text` into tokens, the last being kEnd. As in apimachinery, a word
// is any run of bytes that are neither whitespace nor symbols (validation
// comes later), and "!=" and "==" are the only two-symbol tokens.
std::vector<Token> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (true) {
    while (i < text.size() && IsWhitespace(text[i])) ++i;
    if (i == text.size()) {
      tokens.push_back({TokenKind::kEnd, text.substr(i), i});
      return tokens;
    }
    const size_t start = i;
    const char c = text[i];
    if (IsSymbol(c)) {
      const bool followed_by_equals = i + 1 < text.size() && text[i + 1] == '=';
      if ((c == '!' || c == '=') && followed_by_equals) {
        tokens.push_back(
            {c == '!' ? TokenKind::kNotEquals : TokenKind::kDoubleEquals,
             text.substr(start, 2), start});
        i += 2;
      } else {
        tokens.push_back({SingleSymbolKind(c), text.substr(start, 1), start});
        ++i;
      }
      continue;
    }
    while (i < text.size() && !IsWhitespace(text[i]) && !IsSymbol(text[i])) {
      ++i;
    }
    const std::string_view word = text.substr(start, i - start);
    TokenKind kind = TokenKind::kWord;
    if (word == "in") kind = TokenKind::kIn;
    if (word == "notin") kind = TokenKind::kNotIn;
    tokens.push_back({kind, word, start});
  }
}

// Where a key or value is expected, "in" and "notin" are ordinary words, so
// "in in (in)" is a valid selector.
bool IsWord(const Token& token) {
  return token.kind == TokenKind::kWord || token.kind == TokenKind::kIn ||
         token.kind == TokenKind::kNotIn;
}

std::string Quote(std::string_view text) {
  return absl::StrCat(
      "\"", absl::CHexEscape(absl::string_view(text.data(), text.size())),
      "\"");
}

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no overflow.
std::optional<int64_t> ParseDecimalInt64(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) +
      (negative ? 1 : 0);
  uint64_t magnitude = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    const uint64_t digit = text[i] - '0';
    if (magnitude > (limit - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  if (!negative) return static_cast<int64_t>(magnitude);
  if (magnitude == 0) return 0;
  return -static_cast<int64_t>(magnitude - 1) - 1;
}

bool RequirementLess(const LabelRequirement& a, const LabelRequirement& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.op != b.op) return a.op < b.op;
  return a.values < b.values;
}

// A recursive-descent parser over the token list, following the grammar of
// apimachinery's labels.Parse:
//   selector    ::= "" | requirement ("," requirement)*
//   requirement ::= "!" KEY | KEY | KEY op VALUE | KEY set-op "(" values ")"
//   op          ::= "=" | "==" | "!=" | ">" | "<"    (VALUE may be empty)
//   set-op      ::= "in" | "notin"
//   values      ::= [VALUE] ("," [VALUE])*           (empty slots mean "")
class Parser {
 public:
  Parser(std::string_view field_name, std::vector<Token> tokens)
      : field_name_(field_name), tokens_(std::move(tokens)) {}

  absl::StatusOr<std::vector<LabelRequirement>> ParseSelector() {
    std::vector<LabelRequirement> requirements;
    if (Peek().kind == TokenKind::kEnd) return requirements;
    while (true) {
      if (requirements.size() == LabelSelector::kMaxRequirements) {
        return Error(Peek().position,
                     absl::StrCat("more than ", LabelSelector::kMaxRequirements,
                                  " requirements"));
      }
      absl::StatusOr<LabelRequirement> requirement = ParseRequirement();
      if (!requirement.ok()) return requirement.status();
      requirements.push_back(*std::move(requirement));
      const Token& separator = Next();
      if (separator.kind == TokenKind::kEnd) return requirements;
      if (separator.kind != TokenKind::kComma) {
        return Unexpected(separator, "',' or end of input");
      }
    }
  }

 private:
  const Token& Peek() const { return tokens_[next_]; }

  // Never moves past the final kEnd token.
  const Token& Next() {
    const Token& token = tokens_[next_];
    if (token.kind != TokenKind::kEnd) ++next_;
    return token;
  }

  absl::Status Error(size_t position, const std::string& reason) const {
    return absl::InvalidArgumentError(
        absl::StrCat(field_name_, ": ", reason, " at position ", position));
  }

  absl::Status Unexpected(const Token& token,
                          const std::string& expected) const {
    const std::string found = token.kind == TokenKind::kEnd
                                  ? std::string("end of input")
                                  : absl::StrCat("token ", Quote(token.text));
    return absl::InvalidArgumentError(
        absl::StrCat(field_name_, ": unexpected ", found, " at position ",
                     token.position, "; expected ", expected));
  }

  absl::StatusOr<LabelRequirement> ParseRequirement() {
    const Token* key = &Next();
    const bool negated = key->kind == TokenKind::kBang;
    if (negated) key = &Next();
    if (!IsWord(*key)) {
      return Unexpected(
          *key, negated ? "a label key after '!'" : "a label key or '!'");
    }
    if (absl::Status valid = ValidateLabelKey(key->text); !valid.ok()) {
      return Error(key->position,
                   absl::StrCat("invalid label key ", Quote(key->text), " (",
                                valid.message(), ")"));
    }
    LabelRequirement requirement{std::string(key->text), Operator::kExists, {}};
    if (negated) {
      requirement.op = Operator::kDoesNotExist;
      return requirement;
    }
    const TokenKind after_key = Peek().kind;
    if (after_key == TokenKind::kEnd || after_key == TokenKind::kComma) {
      return requirement;
    }

    const Token& op = Next();
    absl::Status values;
    switch (op.kind) {
      case TokenKind::kEquals:
      case TokenKind::kDoubleEquals:
        requirement.op = Operator::kEquals;
        values = ParseSingleValue(&requirement);
        break;
      case TokenKind::kNotEquals:
        requirement.op = Operator::kNotEquals;
        values = ParseSingleValue(&requirement);
        break;
      case TokenKind::kGreater:
        requirement.op = Operator::kGreaterThan;
        values = ParseSingleValue(&requirement);
        break;
      case TokenKind::kLess:
        requirement.op = Operator::kLessThan;
        values = ParseSingleValue(&requirement);
        break;
      case TokenKind::kIn:
        requirement.op = Operator::kIn;
        values = ParseValueSet(&requirement);
        break;
      case TokenKind::kNotIn:
        requirement.op = Operator::kNotIn;
        values = ParseValueSet(&requirement);
        break;
      default:
        return Unexpected(op,
                          "an operator (=, ==, !=, in, notin, >, <), ',' or "
                          "end of input");
    }
    if (!values.ok()) return values;
    std::sort(requirement.values.begin(), requirement.values.end());
    requirement.values.erase(
        std::unique(requirement.values.begin(), requirement.values.end()),
        requirement.values.end());
    return requirement;
  }

  // After "=", "==", "!=", ">" or "<": one value, empty if none follows.
  absl::Status ParseSingleValue(LabelRequirement* requirement) {
    const Token& next = Peek();
    if (next.kind == TokenKind::kEnd || next.kind == TokenKind::kComma) {
      return AddValue(next.position, "", requirement);
    }
    const Token& value = Next();
    if (!IsWord(value)) return Unexpected(value, "a value");
    return AddValue(value.position, value.text, requirement);
  }

  // After "in" or "notin": "(" then comma-separated slots, each a value or
  // nothing (meaning the empty value), then ")".
  absl::Status ParseValueSet(LabelRequirement* requirement) {
    const Token& open = Next();
    if (open.kind != TokenKind::kOpenParen) return Unexpected(open, "'('");
    while (true) {
      const Token& slot = Peek();
      absl::Status added =
          IsWord(slot) ? AddValue(Next().position, slot.text, requirement)
                       : AddValue(slot.position, "", requirement);
      if (!added.ok()) return added;
      const Token& separator = Next();
      if (separator.kind == TokenKind::kCloseParen) return absl::OkStatus();
      if (separator.kind != TokenKind::kComma) {
        return Unexpected(separator, "',' or ')'");
      }
    }
  }

  absl::Status AddValue(size_t position, std::string_view value,
                        LabelRequirement* requirement) const {
    if (absl::Status valid = ValidateLabelValue(value); !valid.ok()) {
      return Error(
          position,
          absl::StrCat("invalid value ", Quote(value), " for label key ",
                       Quote(requirement->key), " (", valid.message(), ")"));
    }
    const bool ordered = requirement->op == Operator::kGreaterThan ||
                         requirement->op == Operator::kLessThan;
    if (ordered && !ParseDecimalInt64(value).has_value()) {
      return Error(position,
                   absl::StrCat("value ", Quote(value), " for label key ",
                                Quote(requirement->key),
                                " must be an integer for '>' and '<'"));
    }
    requirement->values.emplace_back(value);
    return absl::OkStatus();
  }

  const std::string field_name_;
  const std::vector<Token> tokens_;
  size_t next_ = 0;
};

bool RequirementMatches(const LabelRequirement& requirement,
                        const Labels& labels) {
  const std::string* value = FindLabel(labels, requirement.key);
  auto has_value = [&] {
    return std::binary_search(requirement.values.begin(),
                              requirement.values.end(), *value);
  };
  switch (requirement.op) {
    case Operator::kEquals:
    case Operator::kIn:
      return value != nullptr && has_value();
    case Operator::kNotEquals:
    case Operator::kNotIn:
      return value == nullptr || !has_value();
    case Operator::kExists:
      return value != nullptr;
    case Operator::kDoesNotExist:
      return value == nullptr;
    case Operator::kGreaterThan:
    case Operator::kLessThan: {
      if (value == nullptr || requirement.values.size() != 1) return false;
      const std::optional<int64_t> actual = ParseDecimalInt64(*value);
      const std::optional<int64_t> bound =
          ParseDecimalInt64(requirement.values[0]);
      if (!actual.has_value() || !bound.has_value()) return false;
      return requirement.op == Operator::kGreaterThan ? *actual > *bound
                                                      : *actual < *bound;
    }
  }
  return false;
}

std::string RequirementString(const LabelRequirement& requirement) {
  const std::string& key = requirement.key;
  const std::string values = absl::StrJoin(requirement.values, ",");
  switch (requirement.op) {
    case Operator::kEquals:
      return absl::StrCat(key, "=", values);
    case Operator::kNotEquals:
      return absl::StrCat(key, "!=", values);
    case Operator::kIn:
      return absl::StrCat(key, " in (", values, ")");
    case Operator::kNotIn:
      return absl::StrCat(key, " notin (", values, ")");
    case Operator::kExists:
      return key;
    case Operator::kDoesNotExist:
      return absl::StrCat("!", key);
    case Operator::kGreaterThan:
      return absl::StrCat(key, ">", values);
    case Operator::kLessThan:
      return absl::StrCat(key, "<", values);
  }
  return key;
}

}  // namespace

absl::StatusOr<LabelSelector> LabelSelector::Parse(
    std::string_view text, std::string_view field_name) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field_name), ": too long (", text.size(),
                     " bytes; at most ", kMaxTextLength, ")"));
  }
  Parser parser(field_name, Tokenize(text));
  absl::StatusOr<std::vector<LabelRequirement>> requirements =
      parser.ParseSelector();
  if (!requirements.ok()) return requirements.status();
  std::sort(requirements->begin(), requirements->end(), RequirementLess);
  return LabelSelector(*std::move(requirements));
}

bool LabelSelector::Matches(const Labels& labels) const {
  for (const LabelRequirement& requirement : requirements_) {
    if (!RequirementMatches(requirement, labels)) return false;
  }
  return true;
}

std::string LabelSelector::String() const {
  return absl::StrJoin(requirements_, ",",
                       [](std::string* out, const LabelRequirement& r) {
                         out->append(RequirementString(r));
                       });
}

std::vector<std::pair<std::string, std::string>> LabelSelector::EqualityTerms()
    const {
  std::vector<std::pair<std::string, std::string>> terms;
  for (const LabelRequirement& requirement : requirements_) {
    const bool pins_value =
        requirement.op == Operator::kEquals || requirement.op == Operator::kIn;
    if (pins_value && requirement.values.size() == 1) {
      terms.emplace_back(requirement.key, requirement.values[0]);
    }
  }
  return terms;
}

}  // namespace informerd::selector
