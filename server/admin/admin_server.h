// AdminServer: the HTTP endpoints operators and kubelets probe.
//   /healthz  200 while the process serves at all
//   /readyz   200 once informerd serves (every configured resource synced
//             and the gRPC health service says SERVING, set together so
//             both probes agree) and nothing has since stopped it serving:
//             the gRPC listener answers new connections (ListenerProbe) and
//             every resource hears from its upstream (UpstreamProgress);
//             else 503 naming what is syncing, stuck or silent
//   /metrics  Prometheus text format, rendered for every GET; a HEAD gets
//             the last rendering if it is younger than
//             `metrics_head_interval`, so pipelined HEADs, which cost their
//             client nothing to read, cost a rendering (and the locks it
//             takes) at most that often. A GET flood is paced by its own
//             client's reading of the bodies.
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
#include "absl/time/time.h"
#include "server/admin/http_server.h"
#include "server/admin/listener_probe.h"
#include "server/admin/upstream_progress.h"
#include "server/metrics/metrics.h"
#include "server/service/served_resource.h"
#include "server/tls/reloading_certificate.h"

namespace informerd::admin {

struct AdminOptions {
  HttpLimits limits;
  // Null: the gRPC listener is not probed. Must outlive the server.
  const ListenerProbe* grpc_probe = nullptr;
  // UpstreamProgress's timeout; zero: off.
  absl::Duration upstream_progress_timeout = absl::Minutes(5);
  absl::Duration metrics_head_interval = absl::Seconds(1);
};

class AdminServer {
 public:
  // `registry`, `metrics` and `serving` must outlive the server. `serving`
  // is set by whoever marks the gRPC health service SERVING.
  AdminServer(const service::ResourceRegistry* registry, metrics::Metrics* metrics,
              const std::atomic<bool>* serving, AdminOptions options = {});
  ~AdminServer();

  // Binds `address` ("host:port") and serves in a background thread; with
  // `tls` (certificate and key set) as HTTPS, re-reading rotated files.
  absl::Status Start(const std::string& address, const tls::TlsFiles* tls = nullptr);

  // The bound port (useful with port 0).
  int port() const;
  void Stop();

 private:
  HttpResponse Ready();
  HttpResponse Metrics();
  // HEAD /metrics: Metrics(), or its last result when recent.
  HttpResponse MetricsHead();
  // What stops a serving informerd from being ready: the stuck listener,
  // the silent resources.
  std::vector<std::string> Faults();

  const service::ResourceRegistry* const registry_;
  metrics::Metrics* const metrics_;
  const std::atomic<bool>* const serving_;
  const AdminOptions options_;
  UpstreamProgress upstream_progress_;
  // The last /metrics rendering, on the HttpServer's thread only.
  HttpResponse metrics_rendered_;
  absl::Time metrics_rendered_at_ = absl::InfinitePast();
  std::unique_ptr<tls::ReloadingCertificate> certificate_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace informerd::admin

#endif  // INFORMERD_SERVER_ADMIN_ADMIN_SERVER_H_
