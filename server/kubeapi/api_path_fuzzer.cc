// libFuzzer target: ParseApiPath takes any request path a client sends.
// Whatever it is, parsing ends without a crash, and a resource request it
// finds has a version and a resource, and parts without '/' that appear in
// the path in its order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/kubeapi/api_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view path(reinterpret_cast<const char*>(data), size);
  std::optional<informerd::kubeapi::ApiPath> parsed = informerd::kubeapi::ParseApiPath(path);
  if (!parsed.has_value()) return 0;
  if (parsed->version.empty() || parsed->resource.empty()) std::abort();
  size_t at = 0;
  for (const std::string* part : {&parsed->group, &parsed->version, &parsed->ns,
                                  &parsed->resource, &parsed->name, &parsed->subresource}) {
    if (part->find('/') != std::string::npos) std::abort();
    if (part->empty()) continue;
    size_t found = path.find(*part, at);
    // The namespaces resource reads its name where a namespace would be.
    if (found == std::string_view::npos && part != &parsed->ns) std::abort();
    if (found != std::string_view::npos) at = found;
  }
  return 0;
}
