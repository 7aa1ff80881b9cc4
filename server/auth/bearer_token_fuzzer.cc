// libFuzzer target: the authorization metadata parser must survive any
// input, and a token it accepts is non-empty, bounded and visible ASCII.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/auth/bearer_token.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view value(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::string> token = informerd::auth::BearerTokenFromMetadata({value});
  if (!token.ok()) {
    if (token.status().code() != absl::StatusCode::kUnauthenticated) abort();
    return 0;
  }
  if (token->empty() || token->size() > informerd::auth::kMaxBearerTokenBytes) abort();
  for (char c : *token) {
    if (c <= 0x20 || c >= 0x7f) abort();
  }
  return 0;
}
