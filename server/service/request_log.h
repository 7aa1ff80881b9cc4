// Request logging at debug level (--log-level=debug): one line per RPC when
// it ends, with its method, the peer, the status and how long it took, so an
// operator can follow a client's calls without a packet capture.
//
// A gRPC server interceptor, so every RPC of the server is covered without
// each handler logging. Below debug level the factory makes no interceptor
// and RPCs pay nothing.
#ifndef INFORMERD_SERVER_SERVICE_REQUEST_LOG_H_
#define INFORMERD_SERVER_SERVICE_REQUEST_LOG_H_

#include <memory>

#include <grpcpp/support/server_interceptor.h>

namespace informerd::service {

// For ServerBuilder::experimental().SetInterceptorCreators.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> NewRequestLogFactory();

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_REQUEST_LOG_H_
