// AdminServer: the HTTP endpoints operators and kubelets probe.
//   /healthz  200 while the process serves at all
//   /readyz   200 once informerd serves (every configured resource synced
//             and the gRPC health service says SERVING, set together so
//             both probes agree), else 503 naming the resources still syncing
//   /metrics  Prometheus text format
//
// Served by HttpServer (http_server.h), whose limits keep the probes
// answered whatever other clients of the port do.
//
// Thread safety: Start/Stop from one thread; handlers run on the
// HttpServer's thread.
#ifndef INFORMERD_SERVER_ADMIN_ADMIN_SERVER_H_
#define INFORMERD_SERVER_ADMIN_ADMIN_SERVER_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "server/admin/http_server.h"
#include "server/metrics/metrics.h"
#include "server/service/served_resource.h"
#include "server/tls/reloading_certificate.h"

namespace informerd::admin {

class AdminServer {
 public:
  // `registry`, `metrics` and `serving` must outlive the server. `serving`
  // is set by whoever marks the gRPC health service SERVING.
  AdminServer(const service::ResourceRegistry* registry, metrics::Metrics* metrics,
              const std::atomic<bool>* serving);
  ~AdminServer();

  // Binds `address` ("host:port") and serves in a background thread; with
  // `tls` (certificate and key set) as HTTPS, re-reading rotated files.
  absl::Status Start(const std::string& address, const tls::TlsFiles* tls = nullptr);

  // The bound port (useful with port 0).
  int port() const;
  void Stop();

 private:
  const service::ResourceRegistry* const registry_;
  metrics::Metrics* const metrics_;
  const std::atomic<bool>* const serving_;
  std::unique_ptr<tls::ReloadingCertificate> certificate_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace informerd::admin

#endif  // INFORMERD_SERVER_ADMIN_ADMIN_SERVER_H_
