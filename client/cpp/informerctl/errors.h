// informerctl's exit codes and the one format of its error messages.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_ERRORS_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_ERRORS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace informerd {
namespace informerctl {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;  // the server, the RPC or local setup failed
constexpr int kExitUsage = 2;  // the command line is invalid

absl::Status FromGrpcStatus(const grpc::Status& status);

// Prints "informerctl: <CODE>: <message>" to stderr; returns kExitError.
int ReportError(const absl::Status& status);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_ERRORS_H_
