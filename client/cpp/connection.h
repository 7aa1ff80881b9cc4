// Connection settings shared by every informerd client: where the servers are,
// how to authenticate, and how long unary calls may take.
//
// Connect() builds a channel that spreads calls over every address a DNS name
// resolves to (round_robin), so replicas behind one name share the load.
// PrepareContext() configures each call; it re-reads token_file every time so
// a rotated token (e.g. a projected service account token) is picked up
// without reconnecting.

#ifndef INFORMERD_CLIENT_CPP_CONNECTION_H_
#define INFORMERD_CLIENT_CPP_CONNECTION_H_

#include <memory>
#include <string>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace informerd {
namespace client {

struct ConnectionOptions {
  // "host:port" or "dns:///name:port".
  std::string address;
  bool tls = false;
  // PEM files. ca_file empty: the system roots. cert_file and key_file are a
  // pair: both set for a client certificate, or neither.
  std::string ca_file, cert_file, key_file;
  // Bearer token sent with every call. At most one of token and token_file.
  // A token needs tls unless allow_token_without_tls is set.
  std::string token;
  std::string token_file;
  // Sends the token over a plaintext connection. Only for servers on
  // loopback or behind a trusted proxy: the token would otherwise be
  // readable on the network. (Go: AllowTokenWithoutTLS.)
  bool allow_token_without_tls = false;
  // Deadline of unary calls; streams have none. Zero or infinite: none.
  absl::Duration default_deadline = absl::Seconds(30);
};

// A channel to options.address. Fails (INVALID_ARGUMENT) when the options
// contradict each other (among them a token without tls or
// allow_token_without_tls), or when a TLS file cannot be read; the error
// names the field.
absl::StatusOr<std::shared_ptr<grpc::Channel>> Connect(
    const ConnectionOptions& options);

// Sets the bearer token and, unless streaming, the deadline on *context.
// Fails when token_file cannot be read or is empty, so that a call is never
// silently sent unauthenticated.
// REQUIRES: *context has not been used for a call yet.
absl::Status PrepareContext(const ConnectionOptions& options,
                            grpc::ClientContext* context, bool streaming);

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_CONNECTION_H_
