// The gRPC status for an absl::Status and back: the codes are the same
// numbers (both are the canonical codes), the message is kept.
//
// Thread safety: pure functions.
#ifndef INFORMERD_SERVER_SERVICE_GRPC_STATUS_H_
#define INFORMERD_SERVER_SERVICE_GRPC_STATUS_H_

#include <string>
#include <utility>

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace informerd::service {

inline grpc::Status ToGrpc(const absl::Status& status, std::string message) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::move(message));
}

inline grpc::Status ToGrpc(const absl::Status& status) {
  return ToGrpc(status, std::string(status.message()));
}

inline absl::Status ToAbsl(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

// `status` of a call to another server (a tier's root), as "WHAT: CODE:
// message" with the same code.
inline absl::Status FromGrpc(const grpc::Status& status, const std::string& what) {
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  return absl::Status(code, what + ": " + absl::StatusCodeToString(code) + ": " +
                                status.error_message());
}

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_GRPC_STATUS_H_
