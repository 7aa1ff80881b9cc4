// PassThrough: forwards a Kubernetes API request informerd does not answer
// from its cache (discovery, /version, /openapi, writes, subresources,
// resources it does not serve) to the kube-apiserver unchanged, with the
// caller's own headers: its Authorization is what the apiserver
// authenticates and authorizes. informerd adds no credentials of its own:
// the client is made from the cluster's address and CA alone.
//
// Requests run on a fixed pool of threads (each request blocks one for at
// most the client's request timeout) behind a bounded queue: a request
// that finds the queue full is refused at once (429), so a flood of slow
// pass-throughs costs a bounded number of threads and queued requests.
// Responses are buffered whole, up to a bound (502 past it); watches are
// not passed through (they would hold a thread each).
//
// Thread safety: thread-safe. The destructor drops queued requests (their
// `done` gets a 503) and waits for running ones.
#ifndef INFORMERD_SERVER_KUBEAPI_PASS_THROUGH_H_
#define INFORMERD_SERVER_KUBEAPI_PASS_THROUGH_H_

#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/kube/kubeconfig.h"
#include "server/kube/rest_client.h"

namespace informerd::kubeapi {

struct PassThroughOptions {
  size_t threads = 4;
  size_t max_queued = 256;
  size_t max_response_bytes = 64 << 20;
  absl::Duration request_timeout = absl::Seconds(60);
};

class PassThrough {
 public:
  using Done = std::function<void(absl::StatusOr<kube::ForwardedResponse>)>;

  // A client of `cluster`'s server with its CA only (no client
  // certificate, no token).
  static absl::StatusOr<std::unique_ptr<PassThrough>> Create(const kube::ClusterConfig& cluster,
                                                             PassThroughOptions options);
  ~PassThrough();

  // Runs `request` on a pool thread and calls `done` there with the
  // apiserver's answer (OUT_OF_RANGE: larger than max_response_bytes;
  // UNAVAILABLE: not reached); or calls `done` at once with
  // RESOURCE_EXHAUSTED when the queue is full.
  void Forward(kube::ForwardedRequest request, Done done);

 private:
  PassThrough(std::unique_ptr<kube::RestClient> client, PassThroughOptions options);
  void Work();

  struct Job {
    kube::ForwardedRequest request;
    Done done;
  };

  const std::unique_ptr<kube::RestClient> client_;
  const PassThroughOptions options_;
  absl::Mutex mu_;
  std::deque<Job> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace informerd::kubeapi

#endif  // INFORMERD_SERVER_KUBEAPI_PASS_THROUGH_H_
