// Server: informerd assembled from its configuration, started and drained;
// the one assembly, run by main and by every in-process integration test.
//
// Start first applies the configuration policy (config::Validate: refusals
// and warnings), then only wires, in order: the upstream (the
// kube-apiserver's client or, with config.upstream (a tier's leaf), an
// upstream informerd, or an injected one); with auth.mode=kubernetes, the
// reviewer (a KubeReviewer over an API-server client with a short timeout,
// or an injected one) and the Authorizer; the ResourceRegistry, which
// discovers and serves the configured resources and signals readiness; the
// Cache service with gRPC health; a probe of the gRPC listener; the admin
// HTTP server, holding at most its share of the descriptor limit
// (limits/descriptors.h); and, with kube_api_address, the Kubernetes API
// port over the Cache service. The gRPC
// health service and /readyz turn SERVING together when the registry
// signals that every resource has synced.
//
// Drain turns both NOT_SERVING, ends every Watch with UNAVAILABLE (clients
// resume elsewhere), stops the servers and then the Reflectors.
//
// Thread safety: Start, Drain and the destructor from one thread; the
// accessors from any thread between Start and the destructor.
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
#include "server/admin/listener_probe.h"
#include "server/auth/authorizer.h"
#include "server/auth/issuer_keys.h"
#include "server/auth/jwt_verifier.h"
#include "server/auth/counting_reviewer.h"
#include "server/auth/reviewer.h"
#include "server/config/config.h"
#include "server/kube/kubeconfig.h"
#include "server/kube/rest_client.h"
#include "server/kubeapi/kube_api_server.h"
#include "server/kubeapi/pass_through.h"
#include "server/metrics/metrics.h"
#include "server/service/cache_service.h"
#include "server/service/served_resource.h"
#include "server/tls/server_credentials.h"

namespace informerd {

struct ServerOptions {
  config::Config config;
  // The kube-apiserver; unused (and may be empty) with config.upstream and
  // auth.mode=none, or when `client` (and `reviewer`) or `upstream` are
  // injected.
  kube::ClusterConfig cluster;
  // "host:port" for gRPC and for the admin HTTP endpoints; port 0 picks a
  // free one (Server::grpc_port(), Server::http_port()).
  std::string grpc_address;
  std::string http_address;
  // --trust-forwarded-for: see CacheServiceOptions::trust_forwarded_for.
  bool trust_forwarded_for = false;
  // --kube-api-address: "host:port" (loopback) of the Kubernetes API port
  // (kubeapi::KubeApiServer); empty: off. Its pass-through reaches the
  // apiserver at `cluster`'s server with `cluster`'s CA only.
  std::string kube_api_address;
  bool kube_api_pass_through = true;

  // Injected parts, for tests and fault injection: each, when set, is used
  // instead of the one Start would build, and must outlive the Server.
  //
  // Where the resources come from, instead of the apiserver or
  // config.upstream's informerd.
  service::Upstream* upstream = nullptr;
  // The apiserver client the resources are read through (e.g. one through a
  // fault proxy), instead of one made from `cluster`. Unused with `upstream`.
  kube::RestClient* client = nullptr;
  // With auth.mode=kubernetes: who answers TokenReviews and
  // SubjectAccessReviews, instead of a KubeReviewer over `cluster`.
  auth::Reviewer* reviewer = nullptr;
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

  // The bound ports.
  int grpc_port() const { return grpc_port_; }
  int http_port() const { return admin_->port(); }
  // 0 when the Kubernetes API port is off.
  int kube_api_port() const { return kube_api_ == nullptr ? 0 : kube_api_->port(); }
  metrics::Metrics& metrics() { return metrics_; }
  // The served resources.
  service::ResourceRegistry& resources() { return registry_; }
  size_t open_watches() const { return cache_service_->open_watches(); }

 private:
  explicit Server(ServerOptions options) : options_(std::move(options)) {}
  absl::Status StartAll();
  absl::Status MakeUpstream();
  absl::Status MakeAuthorizer();
  absl::Status StartGrpc();
  absl::Status StartKubeApi();
  void MarkReady();

  const ServerOptions options_;
  tls::TlsFiles tls_files_;
  // Built unless injected; the pointers below are what is used.
  std::unique_ptr<kube::RestClient> own_client_;
  std::unique_ptr<service::Upstream> own_upstream_;
  std::unique_ptr<kube::RestClient> review_client_;
  std::unique_ptr<auth::Reviewer> own_reviewer_;
  // With our own reviewer: tokens checked locally against the apiserver's
  // service account issuer first (declared before the Authorizer, which
  // uses them).
  std::unique_ptr<auth::JwtVerifier> jwt_verifier_;
  std::unique_ptr<auth::IssuerKeys> issuer_keys_;
  // Around whichever reviewer is used: informerd_apiserver_reviews_total.
  std::unique_ptr<auth::CountingReviewer> counting_reviewer_;
  service::Upstream* upstream_ = nullptr;
  auth::Reviewer* reviewer_ = nullptr;
  std::unique_ptr<auth::Authorizer> authorizer_;
  metrics::Metrics metrics_;
  service::ResourceRegistry registry_;
  std::unique_ptr<service::CacheService> cache_service_;
  std::unique_ptr<grpc::Server> grpc_server_;
  int grpc_port_ = 0;
  std::atomic<bool> ready_{false};
  // Whether the gRPC listener still answers new connections, for /readyz.
  std::unique_ptr<admin::ListenerProbe> grpc_probe_;
  std::unique_ptr<admin::AdminServer> admin_;
  std::unique_ptr<kubeapi::PassThrough> pass_through_;
  std::unique_ptr<kubeapi::KubeApiServer> kube_api_;
  // Orders MarkReady (a Reflector thread) against Drain.
  absl::Mutex mu_;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace informerd

#endif  // INFORMERD_SERVER_SERVER_H_
