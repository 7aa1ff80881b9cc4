// Server: informerd assembled from its configuration, started and drained.
//
// Start wires, in order: the upstream, the kube-apiserver's client or, with
// config.upstream (a tier's leaf), an upstream informerd; with
// auth.mode=kubernetes, an API-server client with a short timeout for
// reviews, the KubeReviewer and the Authorizer (a leaf checks its own
// callers against the apiserver too); the ResourceRegistry, which discovers
// and serves the configured resources and signals readiness; the Cache
// service with gRPC health; and the admin HTTP server. The
// gRPC health service and /readyz turn SERVING together when the registry
// signals that every resource has synced.
//
// Drain turns both NOT_SERVING, ends every Watch with UNAVAILABLE (clients
// resume elsewhere), stops the servers and then the Reflectors.
//
// Thread safety: Start, Drain and the destructor from one thread.
#ifndef INFORMERD_SERVER_SERVER_H_
#define INFORMERD_SERVER_SERVER_H_

#include <atomic>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/admin/admin_server.h"
#include "server/auth/authorizer.h"
#include "server/auth/kube_reviewer.h"
#include "server/config/config.h"
#include "server/kube/kubeconfig.h"
#include "server/kube/rest_client.h"
#include "server/metrics/metrics.h"
#include "server/service/cache_service.h"
#include "server/service/served_resource.h"
#include "server/tls/server_credentials.h"

namespace informerd {

struct ServerOptions {
  config::Config config;
  // The kube-apiserver; unused (and may be empty) with config.upstream and
  // auth.mode=none.
  kube::ClusterConfig cluster;
  // "host:port" for gRPC and for the admin HTTP endpoints.
  std::string grpc_address;
  std::string http_address;
  // --trust-forwarded-for: see CacheServiceOptions::trust_forwarded_for.
  bool trust_forwarded_for = false;
};

class Server {
 public:
  // Errors name what failed: a flag or file, the API server, a resource.
  static absl::StatusOr<std::unique_ptr<Server>> Start(ServerOptions options);

  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  // Drain().
  ~Server();

  // Idempotent.
  void Drain();

 private:
  explicit Server(ServerOptions options) : options_(std::move(options)) {}
  absl::Status StartAll();
  void MarkReady();

  const ServerOptions options_;
  tls::TlsFiles tls_files_;
  std::unique_ptr<kube::RestClient> client_;
  // ApiServerUpstream over client_, or tier::InformerdUpstream.
  std::unique_ptr<service::Upstream> upstream_;
  std::unique_ptr<kube::RestClient> review_client_;
  std::unique_ptr<auth::KubeReviewer> reviewer_;
  std::unique_ptr<auth::Authorizer> authorizer_;
  metrics::Metrics metrics_;
  service::ResourceRegistry registry_;
  std::unique_ptr<service::CacheService> cache_service_;
  std::unique_ptr<grpc::Server> grpc_server_;
  std::atomic<bool> ready_{false};
  std::unique_ptr<admin::AdminServer> admin_;
  // Orders MarkReady (a Reflector thread) against Drain.
  absl::Mutex mu_;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace informerd

#endif  // INFORMERD_SERVER_SERVER_H_
