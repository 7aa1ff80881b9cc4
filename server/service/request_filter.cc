#include "server/service/request_filter.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace informerd::service {
namespace {

// A namespace name is a DNS-1123 label.
bool IsDnsLabel(const std::string& text) {
  if (text.empty() || text.size() > 63) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !(c == '-' && i != 0 && i + 1 != text.size())) return false;
  }
  return true;
}

}  // namespace

std::string Quoted(const std::string& text) {
  constexpr size_t kShown = 64;
  if (text.size() <= kShown) return absl::StrCat("\"", text, "\"");
  return absl::StrCat("\"", text.substr(0, kShown), "...\" (", text.size(), " bytes)");
}

absl::Status CheckNamespaceName(const std::string& name) {
  if (IsDnsLabel(name)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "namespace: ", Quoted(name),
      " is not a valid namespace name (lower case letters, digits and '-', at most 63)"));
}

absl::StatusOr<cache::Filter> MakeFilter(const ServedResource& resource,
                                         const FilterRequest& request) {
  cache::Filter filter;
  if (!request.namespace_.empty()) {
    if (!resource.info.namespaced) {
      return absl::InvalidArgumentError(absl::StrCat(
          "namespace: ", resource.DisplayName(), " is cluster-scoped; leave namespace empty"));
    }
    if (absl::Status status = CheckNamespaceName(request.namespace_); !status.ok()) {
      return status;
    }
    filter.namespace_ = request.namespace_;
  }
  absl::StatusOr<selector::LabelSelector> labels =
      selector::LabelSelector::Parse(request.label_selector, "label_selector");
  if (!labels.ok()) return labels.status();
  filter.labels = *std::move(labels);
  absl::StatusOr<selector::FieldSelector> fields =
      selector::FieldSelector::Parse(request.field_selector, "field_selector");
  if (!fields.ok()) return fields.status();
  for (const selector::FieldRequirement& requirement : fields->requirements()) {
    if (!resource.IsSelectableField(requirement.field)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field_selector: field ", Quoted(requirement.field), " is not supported for ",
          resource.DisplayName(),
          "; use metadata.name, metadata.namespace or a configured field index"));
    }
  }
  filter.fields = *std::move(fields);
  if (request.index_name.empty()) {
    if (!request.index_value.empty()) {
      return absl::InvalidArgumentError("index_value: set without index_name");
    }
  } else if (request.index_name != "namespace" &&
             !resource.IsSelectableField(request.index_name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index_name: no index ", Quoted(request.index_name), " for ", resource.DisplayName()));
  } else {
    filter.index_field = request.index_name;
    filter.index_value = request.index_value;
  }
  return filter;
}

}  // namespace informerd::service
