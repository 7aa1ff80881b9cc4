// libFuzzer target: DecodeContinueToken must survive any input, only accept
// bounded tokens, and whatever it accepts must survive a round trip through
// EncodeContinueToken.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/service/continue_token.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using informerd::service::ContinuePoint;
  const std::string_view token(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ContinuePoint> point = informerd::service::DecodeContinueToken(token);
  if (!point.ok()) {
    if (point.status().code() != absl::StatusCode::kInvalidArgument) abort();
    return 0;
  }
  if (size > informerd::service::kMaxContinueTokenBytes || point->resource_version == 0 ||
      point->last_key.empty()) {
    abort();
  }
  absl::StatusOr<ContinuePoint> again =
      informerd::service::DecodeContinueToken(informerd::service::EncodeContinueToken(*point));
  if (!again.ok() || again->resource_version != point->resource_version ||
      again->last_key != point->last_key) {
    abort();
  }
  return 0;
}
