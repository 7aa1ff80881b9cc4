// The command line of the uniform example informer, shared by the example
// programs of every client library (see hack/example.sh):
//
//   example --server ADDR --resource RESOURCE [-n NS] [-l SELECTOR]
//           [--token-file F] [--ca-file F]
//
// Flags take their value as the next argument or after '='. ADDR is one
// gRPC target ("host:port", "dns:///name:port", ...) or several "ip:port"
// separated by commas (replicas; all IPv4 or all IPv6), which become one
// "ipv4:" or "ipv6:" target that the channel balances round robin.

#ifndef INFORMERD_CLIENT_CPP_EXAMPLE_EXAMPLE_ARGS_H_
#define INFORMERD_CLIENT_CPP_EXAMPLE_EXAMPLE_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/cpp/resource_ref.h"

namespace informerd {
namespace example {

struct ExampleArgs {
  // A gRPC target for client::ConnectionOptions::address.
  std::string server;
  client::ResourceRef resource;
  // Empty: all namespaces.
  std::string watch_namespace;
  std::string label_selector;
  std::string token_file;
  // PEM CA certificates to verify the server's TLS certificate with; empty:
  // plaintext.
  std::string ca_file;
};

extern const char kExampleUsage[];

// args excludes the program name. INVALID_ARGUMENT naming the flag or
// argument at fault; --server and --resource are required.
absl::StatusOr<ExampleArgs> ParseExampleArgs(
    const std::vector<std::string>& args);

}  // namespace example
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_EXAMPLE_EXAMPLE_ARGS_H_
