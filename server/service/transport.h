// ConfigureTransport: the gRPC server settings that bound what clients can
// hold (limits::TransportLimits) and the largest request, applied alike by
// the server binary and the integration tests' in-process server.
#ifndef INFORMERD_SERVER_SERVICE_TRANSPORT_H_
#define INFORMERD_SERVER_SERVICE_TRANSPORT_H_

#include <grpcpp/server_builder.h>

#include "server/limits/transport_limits.h"

namespace informerd::service {

void ConfigureTransport(const limits::TransportLimits& limits, grpc::ServerBuilder* builder);

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_TRANSPORT_H_
