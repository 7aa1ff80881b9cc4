#include "client/cpp/informerctl/errors.h"

#include <iostream>

namespace informerd {
namespace informerctl {

absl::Status FromGrpcStatus(const grpc::Status& status) {
  // gRPC and absl share the canonical code numbering.
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

int ReportError(const absl::Status& status) {
  std::cerr << "informerctl: " << absl::StatusCodeToString(status.code())
            << ": " << status.message() << std::endl;
  return kExitError;
}

}  // namespace informerctl
}  // namespace informerd
