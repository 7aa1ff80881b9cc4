// RestClient: HTTP(S) requests to one Kubernetes API server.
//
// Verifies the server's certificate (unless the config says insecure),
// presents the client certificate, and sends the bearer token, re-reading a
// token file whenever it changes because bound service account tokens rotate.
// Every request uses its own connection, so calls never wait for each other.
//
// Thread-safe.
#ifndef INFORMERD_SERVER_KUBE_REST_CLIENT_H_
#define INFORMERD_SERVER_KUBE_REST_CLIENT_H_

#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/kube/kubeconfig.h"

namespace httplib {
class ClientImpl;
}  // namespace httplib

namespace informerd::kube {

struct HttpResponse {
  int status = 0;
  absl::Duration retry_after;  // the Retry-After header; zero when absent
  std::string body;
};

// A request sent on someone else's behalf (Forward): its headers are the
// caller's, not this client's.
struct ForwardedRequest {
  std::string method;
  std::string path_and_query;  // already escaped, as received
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};
struct ForwardedResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Lets one thread abort another's Stream promptly (e.g. a watch that may be
// silent for minutes). Cancellation is permanent: every Stream given this
// canceller afterwards returns CANCELLED at once. Thread-safe.
class StreamCanceller {
 public:
  StreamCanceller() = default;
  StreamCanceller(const StreamCanceller&) = delete;
  StreamCanceller& operator=(const StreamCanceller&) = delete;

  // Returns once no Stream using this canceller is still reading.
  void Cancel();
  bool cancelled() const;

 private:
  friend class RestClient;

  // False if already cancelled: the caller must not start the request.
  bool Register(httplib::ClientImpl* client);
  void Unregister(httplib::ClientImpl* client);

  mutable absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<httplib::ClientImpl*> in_flight_ ABSL_GUARDED_BY(mu_);
};

struct RestClientOptions {
  absl::Duration connect_timeout = absl::Seconds(10);
  // For ordinary requests, e.g. one page of a LIST.
  absl::Duration request_timeout = absl::Seconds(60);
  // Silence tolerated on a stream; must exceed a watch's timeoutSeconds,
  // since the server may send nothing until it ends the watch.
  absl::Duration stream_read_timeout = absl::Minutes(11);
  // Largest non-2xx body kept from a Stream (such bodies are Status objects).
  size_t max_error_body_bytes = 1 << 20;
};

class RestClient {
 public:
  // Parses the certificates and key once; fails on unusable PEM or URL.
  static absl::StatusOr<std::unique_ptr<RestClient>> Create(
      const ClusterConfig& config, RestClientOptions options = {});

  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  // A transport failure is an error; any HTTP status is a response.
  absl::StatusOr<HttpResponse> Get(std::string_view path_and_query);
  // As Get, accepting `accept` rather than application/json (e.g. the
  // issuer's JWKS, served as application/jwk-set+json).
  absl::StatusOr<HttpResponse> GetAccepting(std::string_view path_and_query,
                                            std::string_view accept);
  absl::StatusOr<HttpResponse> Post(std::string_view path,
                                    std::string_view body,
                                    std::string_view content_type);
  absl::StatusOr<HttpResponse> Put(std::string_view path,
                                   std::string_view body,
                                   std::string_view content_type);
  absl::StatusOr<HttpResponse> Patch(std::string_view path,
                                     std::string_view body,
                                     std::string_view content_type);
  absl::StatusOr<HttpResponse> Delete(std::string_view path,
                                      std::string_view body = "");

  // Sends `request` with its own headers only: none of this client's
  // (no bearer token, no Accept), so a client made without credentials adds
  // none. The client certificate, if the config has one, is still
  // presented: make the client from a config without it. A body larger than
  // `max_body_bytes` is an error (RESOURCE_EXHAUSTED), as is a transport
  // failure (UNAVAILABLE).
  absl::StatusOr<ForwardedResponse> Forward(const ForwardedRequest& request,
                                            size_t max_body_bytes);

  // GETs `path_and_query` and, if the status is 2xx, passes the body to
  // `on_chunk` piece by piece as it arrives; returning false from `on_chunk`
  // ends the request early (not an error). Other statuses return their body
  // in the response instead. Fails if the connection breaks, or with
  // CANCELLED if `canceller` or CancelStreams() aborted it.
  absl::StatusOr<HttpResponse> Stream(
      std::string_view path_and_query,
      absl::FunctionRef<bool(std::string_view chunk)> on_chunk,
      StreamCanceller* canceller = nullptr);

  // Aborts every in-flight Stream and refuses later ones; for shutdown.
  void CancelStreams();

 private:
  struct Credentials;

  RestClient(const ClusterConfig& config, RestClientOptions options,
             std::unique_ptr<Credentials> credentials);

  // A client for one request with TLS, headers and timeouts set.
  absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> NewClient(
      absl::Duration read_timeout);
  // Sets the default headers, with the bearer token as it is now.
  absl::Status SetHeaders(httplib::ClientImpl* client);
  // A kept-alive client from the pool, or a new one; nullptr-free.
  absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> TakeIdleClient(bool* reused);
  void ReturnIdleClient(std::unique_ptr<httplib::ClientImpl> client);
  absl::StatusOr<std::string> BearerToken();
  absl::StatusOr<HttpResponse> Send(std::string_view method,
                                    std::string_view path,
                                    std::string_view body,
                                    std::string_view content_type,
                                    std::string_view accept = "");

  const ClusterConfig config_;
  const RestClientOptions options_;
  const std::unique_ptr<Credentials> credentials_;
  std::string host_;
  int port_ = 0;
  std::string base_path_;  // a server URL's path, e.g. behind a proxy
  bool tls_ = true;

  StreamCanceller shutdown_;

  // Connections kept alive between requests (Send: reviews, discovery,
  // admin calls), so a burst of reviews does not cost a TLS handshake each.
  // Streams get connections of their own.
  absl::Mutex pool_mu_;
  struct IdleClient {
    std::unique_ptr<httplib::ClientImpl> client;
    absl::Time since;
  };
  std::vector<IdleClient> idle_ ABSL_GUARDED_BY(pool_mu_);

  absl::Mutex token_mu_;
  std::string file_token_ ABSL_GUARDED_BY(token_mu_);
  struct timespec file_token_mtime_ ABSL_GUARDED_BY(token_mu_) = {};
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_REST_CLIENT_H_
