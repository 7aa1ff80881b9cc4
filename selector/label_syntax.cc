#include "selector/label_syntax.h"

#include <cstddef>

namespace informerd::selector {
namespace {

constexpr size_t kMaxNameLength = 63;
constexpr size_t kMaxPrefixLength = 253;

bool IsAlphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

bool IsLowerAlphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// [A-Za-z0-9] at both ends, [-A-Za-z0-9_.] in between; non-empty.
bool IsQualifiedNamePattern(std::string_view name) {
  if (name.empty()) return false;
  if (!IsAlphanumeric(name.front()) || !IsAlphanumeric(name.back())) {
    return false;
  }
  for (char c : name) {
    if (!IsAlphanumeric(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// A DNS-1123 label: [a-z0-9] at both ends, [-a-z0-9] in between.
bool IsDnsLabelPattern(std::string_view label) {
  if (label.empty()) return false;
  if (!IsLowerAlphanumeric(label.front()) ||
      !IsLowerAlphanumeric(label.back())) {
    return false;
  }
  for (char c : label) {
    if (!IsLowerAlphanumeric(c) && c != '-') return false;
  }
  return true;
}

absl::Status ValidatePrefix(std::string_view prefix) {
  if (prefix.empty()) {
    return absl::InvalidArgumentError("prefix part must be non-empty");
  }
  if (prefix.size() > kMaxPrefixLength) {
    return absl::InvalidArgumentError(
        "prefix part must be no more than 253 characters");
  }
  while (true) {
    const size_t dot = prefix.find('.');
    if (!IsDnsLabelPattern(prefix.substr(0, dot))) {
      return absl::InvalidArgumentError(
          "prefix part must be a lowercase DNS-1123 subdomain (e.g. "
          "'example.com')");
    }
    if (dot == std::string_view::npos) return absl::OkStatus();
    prefix.remove_prefix(dot + 1);
  }
}

absl::Status ValidateName(std::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError("name part must be non-empty");
  }
  if (name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        "name part must be no more than 63 characters");
  }
  if (!IsQualifiedNamePattern(name)) {
    return absl::InvalidArgumentError(
        "name part must consist of alphanumeric characters, '-', '_' or '.', "
        "and must start and end with an alphanumeric character");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateLabelKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return ValidateName(key);
  const std::string_view name = key.substr(slash + 1);
  if (name.find('/') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        "a label key is a name with an optional DNS subdomain prefix and '/' "
        "(e.g. 'example.com/MyName'), with at most one '/'");
  }
  if (absl::Status prefix = ValidatePrefix(key.substr(0, slash));
      !prefix.ok()) {
    return prefix;
  }
  return ValidateName(name);
}

absl::Status ValidateLabelValue(std::string_view value) {
  if (value.size() > kMaxNameLength) {
    return absl::InvalidArgumentError("must be no more than 63 characters");
  }
  if (!value.empty() && !IsQualifiedNamePattern(value)) {
    return absl::InvalidArgumentError(
        "a label value must be empty or consist of alphanumeric characters, "
        "'-', '_' or '.', and must start and end with an alphanumeric "
        "character");
  }
  return absl::OkStatus();
}

}  // namespace informerd::selector
