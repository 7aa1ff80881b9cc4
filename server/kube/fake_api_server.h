// FakeApiServer: a scripted stand-in for kube-apiserver, for tests.
//
// Listens on 127.0.0.1 (a free port) over plain HTTP. Tests register a
// handler per path and can answer with a canned body or a stream that ends
// normally, drops the connection, or stays silently open. Every request is
// recorded so tests can assert what a client asked for.
//
// Thread-safe.
#ifndef INFORMERD_SERVER_KUBE_FAKE_API_SERVER_H_
#define INFORMERD_SERVER_KUBE_FAKE_API_SERVER_H_

#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "httplib.h"
#include "server/kube/kubeconfig.h"

namespace informerd::kube {

struct RecordedRequest {
  std::string method;
  std::string path;
  std::multimap<std::string, std::string> params;
  std::map<std::string, std::string> headers;

  // The value of query parameter `name`, or "" if absent.
  std::string Param(const std::string& name) const;
};

class FakeApiServer {
 public:
  using Handler =
      std::function<void(const httplib::Request&, httplib::Response&)>;

  enum class StreamEnd {
    kClose,  // the body ends normally
    kCut,    // the connection drops without finishing the body
    kHang,   // the stream stays open, silent, until the server shuts down
  };

  FakeApiServer();
  ~FakeApiServer();

  // Answers requests (any method) for exactly `path`; unknown paths get 404.
  void Handle(const std::string& path, Handler handler);

  // A 200 streamed answer made of `chunks`, each written separately.
  void ReplyStream(httplib::Response& response,
                   std::vector<std::string> chunks, StreamEnd end);

  // A config whose server is this fake.
  ClusterConfig config() const;

  std::vector<RecordedRequest> requests() const;
  // Waits until at least `count` requests for `path` arrived.
  bool WaitForRequests(const std::string& path, size_t count,
                       absl::Duration timeout) const;

 private:
  void Dispatch(const httplib::Request& request, httplib::Response& response);

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;

  mutable absl::Mutex mu_;
  std::map<std::string, Handler> handlers_ ABSL_GUARDED_BY(mu_);
  std::vector<RecordedRequest> requests_ ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_FAKE_API_SERVER_H_
