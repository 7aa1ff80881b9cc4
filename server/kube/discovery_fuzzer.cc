// libFuzzer target: Discover must read any discovery documents the API
// server answers without crashing, fail only with the documented codes (the
// server's error mapped by ToStatus, or NOT_FOUND / FAILED_PRECONDITION /
// DATA_LOSS / UNAVAILABLE), ask for at most the two documents it needs, and
// accept only a resource it can list and watch, with a collection path of
// the asked group and resource. The first body is also read as a /version
// document: INVALID_ARGUMENT or a version, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "server/kube/discovery.h"

namespace {

using informerd::kube::HttpResponse;

bool Has(const std::vector<std::string>& verbs, std::string_view verb) {
  for (const std::string& v : verbs) {
    if (v == verb) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte: bit 0, the core group or "apps"; bit 1, a version asked
  // or the preferred one; bits 2-3 and 4-5, how each of the two GETs is
  // answered. The rest: the two bodies, separated by a NUL.
  const uint8_t flags = data[0];
  const std::string group = (flags & 1) ? "apps" : "";
  const std::string version = (flags & 2) ? "v1" : "";
  const std::string resource = "deployments";
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t nul = rest.find('\0');
  const std::string_view bodies[2] = {
      rest.substr(0, nul), nul == std::string_view::npos ? "" : rest.substr(nul + 1)};

  static constexpr int kHttpStatuses[] = {200, 200, 404, 0 /* transport error */};
  bool only_ok_or_not_found = true;  // every answer a 200 or a 404
  int calls = 0;
  auto get = [&](const std::string& path) -> absl::StatusOr<HttpResponse> {
    if (calls >= 2) abort();
    const std::string_view expected =
        calls == 0 ? (group.empty() ? "/api" : "/apis")
                   : (group.empty() ? "/api/" : "/apis/apps/");
    if (calls == 0 ? path != expected : path.compare(0, expected.size(), expected) != 0) {
      abort();
    }
    const int http_status = kHttpStatuses[(flags >> (2 + 2 * calls)) & 3];
    const std::string_view body = bodies[calls];
    ++calls;
    if (http_status == 0) {
      only_ok_or_not_found = false;
      return absl::UnavailableError("connection refused");
    }
    return HttpResponse{http_status, absl::ZeroDuration(), std::string(body)};
  };
  absl::StatusOr<informerd::kube::ServerVersion> server_version =
      informerd::kube::ServerVersionFrom(HttpResponse{200, absl::ZeroDuration(), std::string(bodies[0])});
  if (server_version.ok() ? server_version->major < 0 || server_version->minor < 0
                          : server_version.status().code() != absl::StatusCode::kInvalidArgument) {
    abort();
  }
  absl::StatusOr<informerd::kube::ResourceInfo> info =
      informerd::kube::DiscoverFrom(get, group, version, resource);
  if (!info.ok()) {
    switch (info.status().code()) {
      case absl::StatusCode::kNotFound:
      case absl::StatusCode::kFailedPrecondition:
      case absl::StatusCode::kDataLoss:
        return 0;
      case absl::StatusCode::kUnavailable:
        if (only_ok_or_not_found) abort();
        return 0;
      default:
        abort();
    }
  }
  if (calls != 2 || info->group != group || info->resource != resource ||
      info->version.empty() || (!version.empty() && info->version != version) ||
      !Has(info->verbs, "list") || !Has(info->verbs, "watch")) {
    abort();
  }
  // The version goes into URLs unescaped: a DNS-1035 label only.
  if (info->version.size() > 63 || info->version.front() < 'a' || info->version.front() > 'z') {
    abort();
  }
  for (char c : info->version) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) abort();
  }
  const std::string path = informerd::kube::CollectionPath(*info, "ns/../x y");
  const std::string prefix = group.empty() ? "/api/" : "/apis/apps/";
  const std::string suffix = "/" + resource;
  if (path.compare(0, prefix.size(), prefix) != 0 || path.size() < suffix.size() ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0 ||
      path.find("ns/..") != std::string::npos) {
    abort();
  }
  return 0;
}
