// KubeApiServer: the Kubernetes API on its own HTTP port (libmicrohttpd),
// so that kubectl and unmodified clients read through informerd by
// changing only their server URL.
//
// GETs of served resources (list, get, watch; JSON) are answered by
// informerd's Cache service itself, called over gRPC's in-process channel
// with the caller's Authorization header and client address as the call's
// metadata: the same admission (TokenReview, SubjectAccessReview,
// per-caller limits), the same reads and the same watch streams as a gRPC
// client gets, without a second implementation of any of them. Everything
// else passes through to the apiserver (PassThrough) unless pass-through is
// off (then 404 NotFound).
//
// No thread is held per request or per watch: libmicrohttpd runs every
// connection on one internal epoll thread; a request waiting for its answer
// is suspended (MHD_suspend_connection) and resumed by the gRPC callback
// that completes it; a watch is a chunked response fed by a gRPC read
// reactor, suspended while it has nothing to write. A watch whose client
// reads slowly stops asking its stream for events past a small buffer, so
// it holds a position in the event history, not a queue.
//
// HTTPS with informerd's serving certificate (--tls-cert-file), since
// client-go sends no bearer token over plain HTTP; plain HTTP only on
// loopback (behind a proxy that terminates TLS).
//
// Thread safety: Start and Stop from one thread; the rest runs on
// libmicrohttpd's and gRPC's threads.
#ifndef INFORMERD_SERVER_KUBEAPI_KUBE_API_SERVER_H_
#define INFORMERD_SERVER_KUBEAPI_KUBE_API_SERVER_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/kubeapi/pass_through.h"
#include "server/service/served_resource.h"

struct MHD_Daemon;

namespace informerd::kubeapi {

struct KubeApiOptions {
  // "host:port" (an IP address). Whether it may be other than loopback
  // is config::Validate's to decide.
  std::string address;
  // PEM of the serving certificate (chain) and its key: HTTPS (GnuTLS).
  // Empty: plain HTTP, on loopback only. Read once, at Start.
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // libmicrohttpd's bounds. Behind the chart's proxy every connection
  // comes from loopback, so the per-address limit is the total by default.
  unsigned max_connections = 4096;
  unsigned max_connections_per_address = 4096;
  // An idle connection (not a suspended one) is closed after this long.
  absl::Duration idle_timeout = absl::Seconds(60);
  // Per connection, allocated whole: the request head and the send
  // buffer (a bearer token of a few KiB fits many times).
  size_t connection_memory = 32 << 10;
  // A request body (a pass-through write) larger is refused (413), as the
  // apiserver refuses bodies over 3 MiB.
  size_t max_request_body = 3 << 20;
  // A watch without timeoutSeconds (or with a longer one) ends after this.
  absl::Duration max_watch = absl::Minutes(30);
  // A list or get waits at most this long for informerd's answer.
  absl::Duration read_deadline = absl::Seconds(60);
  // A watch stops reading its stream while this much is unsent.
  size_t watch_buffer_bytes = 256 << 10;
  // Client addresses come from a loopback peer's X-Forwarded-For
  // (its last entry), as --trust-forwarded-for says for gRPC.
  bool trust_forwarded_for = false;
};

class KubeApiServer {
 public:
  // `channel` reaches the Cache service in-process; `pass_through` is null
  // when pass-through is off. REQUIRES: the registry, the channel's server
  // and `pass_through` outlive the server, or its Stop.
  static absl::StatusOr<std::unique_ptr<KubeApiServer>> Start(
      KubeApiOptions options, std::shared_ptr<grpc::Channel> channel,
      const service::ResourceRegistry* registry, PassThrough* pass_through);
  // Stop().
  ~KubeApiServer();

  int port() const { return port_; }
  // Ends every watch and waits (bounded) for the requests in flight, then
  // closes the port. Idempotent. REQUIRES: the Cache service still serves.
  void Stop();

  class Exchange;

 private:
  KubeApiServer(KubeApiOptions options, std::shared_ptr<grpc::Channel> channel,
                const service::ResourceRegistry* registry, PassThrough* pass_through);

  friend class Exchange;
  struct Callbacks;

  const KubeApiOptions options_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<v1::Cache::Stub> stub_;
  const service::ResourceRegistry* const registry_;
  PassThrough* const pass_through_;
  MHD_Daemon* daemon_ = nullptr;
  int port_ = 0;

  // Exchanges whose connection may be suspended: Stop resumes them all.
  absl::Mutex mu_;
  std::vector<std::weak_ptr<Exchange>> open_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace informerd::kubeapi

#endif  // INFORMERD_SERVER_KUBEAPI_KUBE_API_SERVER_H_
