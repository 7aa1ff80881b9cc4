#include "client/cpp/resource_ref.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace informerd {
namespace client {

namespace {

struct ShortName {
  const char* short_name;
  const char* resource;
  const char* group;
};

constexpr ShortName kShortNames[] = {
    {"po", "pods", ""},          {"cm", "configmaps", ""},
    {"ns", "namespaces", ""},    {"svc", "services", ""},
    {"no", "nodes", ""},         {"deploy", "deployments", "apps"},
    {"ds", "daemonsets", "apps"}, {"sts", "statefulsets", "apps"},
    {"rs", "replicasets", "apps"},
};

bool IsLowerAlnum(char c) { return absl::ascii_islower(c) || absl::ascii_isdigit(c); }

// A DNS label: lower case alphanumerics and '-', alphanumeric at both ends.
bool IsDnsLabel(absl::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool IsDnsSubdomain(absl::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(s, '.')) {
    if (!IsDnsLabel(label)) return false;
  }
  return true;
}

// "v1", "v1beta2", "v2alpha1": the Kubernetes API version pattern.
bool LooksLikeVersion(absl::string_view s) {
  if (!absl::ConsumePrefix(&s, "v")) return false;
  size_t digits = 0;
  while (digits < s.size() && absl::ascii_isdigit(s[digits])) ++digits;
  if (digits == 0 || s[0] == '0') return false;
  s.remove_prefix(digits);
  if (s.empty()) return true;
  if (!absl::ConsumePrefix(&s, "alpha") && !absl::ConsumePrefix(&s, "beta")) {
    return false;
  }
  if (s.empty() || s[0] == '0') return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

absl::Status Invalid(absl::string_view input, absl::string_view reason) {
  return absl::InvalidArgumentError(
      absl::StrCat("resource \"", input, "\": ", reason));
}

absl::StatusOr<ResourceRef> Validated(absl::string_view input,
                                      ResourceRef ref) {
  const informerd::v1::ResourceName& name = ref.name;
  if (!IsDnsLabel(name.resource())) {
    return Invalid(input, absl::StrCat("\"", name.resource(),
                                       "\" is not a valid resource name"));
  }
  if (!name.group().empty() && !IsDnsSubdomain(name.group())) {
    return Invalid(input,
                   absl::StrCat("\"", name.group(), "\" is not a valid group"));
  }
  if (!name.version().empty() && !LooksLikeVersion(name.version())) {
    return Invalid(input, absl::StrCat("\"", name.version(),
                                       "\" is not a valid version"));
  }
  return ref;
}

absl::StatusOr<ResourceRef> ParsePath(absl::string_view input,
                                      absl::string_view lowered) {
  std::vector<std::string> parts = absl::StrSplit(lowered, '/');
  if (parts.size() != 3) {
    return Invalid(input, "want group/version/resource or /version/resource");
  }
  if (parts[1].empty()) return Invalid(input, "version is empty");
  ResourceRef ref;
  ref.group_explicit = true;
  ref.name.set_group(parts[0]);
  ref.name.set_version(parts[1]);
  ref.name.set_resource(parts[2]);
  return Validated(input, std::move(ref));
}

absl::StatusOr<ResourceRef> ParseDotted(absl::string_view input,
                                        absl::string_view lowered) {
  std::vector<std::string> parts = absl::StrSplit(lowered, '.');
  for (const std::string& part : parts) {
    if (part.empty()) return Invalid(input, "empty part between dots");
  }
  ResourceRef ref;
  ref.name.set_resource(parts[0]);
  if (parts.size() == 1) {
    for (const ShortName& entry : kShortNames) {
      if (lowered == entry.short_name) {
        ref.name.set_resource(entry.resource);
        ref.name.set_group(entry.group);
        ref.group_explicit = true;
      }
    }
    return Validated(input, std::move(ref));
  }
  ref.group_explicit = true;
  size_t group_start = 1;
  if (parts.size() >= 3 && LooksLikeVersion(parts[1])) {
    ref.name.set_version(parts[1]);
    group_start = 2;
  }
  ref.name.set_group(absl::StrJoin(parts.begin() + group_start, parts.end(), "."));
  return Validated(input, std::move(ref));
}

}  // namespace

absl::StatusOr<ResourceRef> ParseResourceRef(absl::string_view input) {
  if (input.empty()) return Invalid(input, "empty");
  std::string lowered = absl::AsciiStrToLower(input);
  if (absl::StrContains(lowered, '/')) return ParsePath(input, lowered);
  return ParseDotted(input, lowered);
}

}  // namespace client
}  // namespace informerd
