// HttpServer: the admin port's HTTP/1.1 server (/healthz, /readyz,
// /metrics), built to keep answering probes whatever its other clients do.
//
// A thread per connection (cpp-httplib's model) lets slow clients hold every
// thread: 140 connections trickling a byte a second made /healthz fail its
// probes, and a chunked POST was buffered whole. Here one thread serves
// every connection from poll(), so a connection costs a descriptor and its
// buffer, never a thread, and the limits below bound what any client holds:
//
//   - no endpoint takes a body: a request with one (Content-Length other
//     than 0, or any Transfer-Encoding) is answered 413 and the connection
//     closed, before any of the body is read;
//   - a request's head (request line and headers) is at most
//     `max_head_bytes`, with at most `max_headers` header lines (431);
//   - a request must arrive whole within `request_timeout` of its first
//     byte, and an idle keep-alive connection is closed after
//     `idle_timeout`; a response not written within `request_timeout` is
//     abandoned;
//   - at most `max_connections` are open, and at most
//     `max_connections_per_peer` from one address: a new one evicts the
//     connection (of that address, when it is over its share) that has been
//     longest in its phase (a slow request, or an idle keep-alive one), so a
//     prober that sends its request at once is served even under a flood,
//     and one address cannot hold the port's descriptors;
//   - one request per connection per loop turn: a connection that pipelines
//     hundreds of requests has the next one answered only after every other
//     ready connection had its turn, so its pipelining costs its own latency,
//     never a prober's.
// So a client holds at most max_head_bytes for at most request_timeout per
// connection, and max_connections * max_head_bytes in all (8 MiB by
// default); a prober waits at most one handler run per open connection.
// Handlers run on the serving thread and must be quick.
//
// With TLS (a ReloadingCertificate), handshakes run on the same loop under
// the same deadline.
//
// Thread safety: Start and Stop from one thread; handlers run on the
// server's thread.
#ifndef INFORMERD_SERVER_ADMIN_HTTP_SERVER_H_
#define INFORMERD_SERVER_ADMIN_HTTP_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/tls/reloading_certificate.h"

namespace informerd::admin {

struct HttpLimits {
  // The owner sizes this to its descriptor budget (limits/descriptors.h).
  size_t max_connections = 1024;
  size_t max_connections_per_peer = 32;
  size_t max_head_bytes = 8 << 10;
  size_t max_headers = 64;
  absl::Duration request_timeout = absl::Seconds(2);
  absl::Duration idle_timeout = absl::Seconds(5);
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
};

class HttpServer {
 public:
  // Answers a GET (or HEAD) of one path.
  using Handler = std::function<HttpResponse()>;

  explicit HttpServer(HttpLimits limits = {});
  // Stop().
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // REQUIRES: before Start. `head`, when given, answers HEAD requests of
  // the path instead of `handler` (whose body is then not sent): a HEAD
  // costs the client nothing to read, so a handler with a costly body can
  // answer it from a recent rendering.
  void Handle(const std::string& path, Handler handler, Handler head = nullptr);

  // Binds `address` ("host:port"; port 0 picks one; an IPv6 host with or
  // without brackets) and serves from a thread of its own; with
  // `certificate`, as HTTPS. Errors name --http-address.
  absl::Status Start(const std::string& address, tls::ReloadingCertificate* certificate);

  // The bound port.
  int port() const { return port_; }

  // Closes every connection and joins the thread.
  void Stop();

 private:
  class Loop;

  const HttpLimits limits_;
  struct Handlers {
    Handler get;
    Handler head;
  };
  std::map<std::string, Handlers> handlers_;
  int port_ = 0;
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
};

}  // namespace informerd::admin

#endif  // INFORMERD_SERVER_ADMIN_HTTP_SERVER_H_
