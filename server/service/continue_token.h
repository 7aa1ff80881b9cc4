// Continue tokens for paged List: the snapshot version and the last key
// served. Pages of one List all read the snapshot at that version (the
// Informer rebuilds it from the event history), as the apiserver's pages all
// read one etcd revision.
#ifndef INFORMERD_SERVER_SERVICE_CONTINUE_TOKEN_H_
#define INFORMERD_SERVER_SERVICE_CONTINUE_TOKEN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace informerd::service {

struct ContinuePoint {
  uint64_t resource_version = 0;
  std::string last_key;
};

// Longer tokens are rejected before decoding.
inline constexpr size_t kMaxContinueTokenBytes = 2048;

std::string EncodeContinueToken(const ContinuePoint& point);

// INVALID_ARGUMENT naming "continue_token" for anything EncodeContinueToken
// did not produce.
absl::StatusOr<ContinuePoint> DecodeContinueToken(std::string_view token);

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_CONTINUE_TOKEN_H_
