#include "server/kubeapi/api_path.h"

#include <vector>

#include "absl/strings/str_split.h"

namespace informerd::kubeapi {

std::optional<ApiPath> ParseApiPath(std::string_view path) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(absl::string_view(path.data(), path.size()), '/');
  // A leading '/' gives an empty first part; a trailing '/' an empty last.
  if (parts.size() < 2 || !parts[0].empty()) return std::nullopt;
  if (parts.back().empty()) parts.pop_back();
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].empty()) return std::nullopt;
  }
  ApiPath api;
  size_t at = 1;
  if (parts[at] == "api") {
    if (parts.size() < at + 2) return std::nullopt;
    api.version = std::string(parts[at + 1]);
    at += 2;
  } else if (parts[at] == "apis") {
    if (parts.size() < at + 3) return std::nullopt;
    api.group = std::string(parts[at + 1]);
    api.version = std::string(parts[at + 2]);
    at += 3;
  } else {
    return std::nullopt;
  }
  std::vector<absl::string_view> rest(parts.begin() + static_cast<long>(at), parts.end());
  if (rest.empty() || rest[0] == "watch" || rest[0] == "proxy") return std::nullopt;
  if (rest[0] == "namespaces" && rest.size() > 2 && rest[2] != "status" &&
      rest[2] != "finalize") {
    api.ns = std::string(rest[1]);
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() > 3) return std::nullopt;
  api.resource = std::string(rest[0]);
  if (rest.size() > 1) api.name = std::string(rest[1]);
  if (rest.size() > 2) api.subresource = std::string(rest[2]);
  return api;
}

}  // namespace informerd::kubeapi
