// The grpc.health.v1 messages, encoded by hand: Debian ships no generated
// code for health.proto, and the two messages are one field each.
//   HealthCheckRequest  { string service = 1; }   (empty service: the server)
//   HealthCheckResponse { ServingStatus status = 1; }

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_HEALTH_WIRE_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_HEALTH_WIRE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace informerd {
namespace informerctl {

extern const char kHealthCheckMethod[];

// Values of HealthCheckResponse.ServingStatus.
enum class ServingStatus {
  kUnknown = 0,
  kServing = 1,
  kNotServing = 2,
  kServiceUnknown = 3,
};

std::string EncodeHealthCheckRequest(absl::string_view service);

// The status field of a serialized HealthCheckResponse; unknown fields are
// skipped and a missing status is kUnknown, as proto3 reads it.
// INVALID_ARGUMENT if the bytes are not a valid message.
absl::StatusOr<int> DecodeServingStatus(absl::string_view response);

// "SERVING", "NOT_SERVING", "UNKNOWN", "SERVICE_UNKNOWN", or the number.
std::string ServingStatusName(int status);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_HEALTH_WIRE_H_
