// libFuzzer target: ContinueTokens::Decode must survive any input and only
// refuse with INVALID_ARGUMENT or OUT_OF_RANGE; and a point made of the
// input (any bytes in its key) must survive a round trip through Encode.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/service/continue_token.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using informerd::service::ContinuePoint;
  using informerd::service::ContinueScope;
  using informerd::service::ContinueTokens;
  static const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
  static const ContinueTokens tokens(std::string(32, 'k'), absl::Minutes(5),
                                     [] { return kNow; });
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const ContinueScope scope{"configmaps", std::string(input.substr(0, 8)), "", "", "", ""};
  absl::StatusOr<ContinuePoint> point = tokens.Decode(scope, input);
  if (!point.ok()) {
    absl::StatusCode code = point.status().code();
    if (code != absl::StatusCode::kInvalidArgument && code != absl::StatusCode::kOutOfRange) {
      abort();
    }
  } else if (size > informerd::service::kMaxContinueTokenBytes) {
    abort();
  }
  if (size < 8) return 0;
  uint64_t version = 0;
  for (size_t i = 0; i < 8; ++i) version = version << 8 | data[i];
  if (version == 0) return 0;
  const ContinuePoint made{version, std::string(input.substr(8)), kNow};
  if (made.last_key.empty()) return 0;
  absl::StatusOr<ContinuePoint> again = tokens.Decode(scope, tokens.Encode(scope, made));
  if (!again.ok() || again->resource_version != version || again->last_key != made.last_key) {
    abort();
  }
  return 0;
}
