#include "server/kubeapi/pass_through.h"

#include <utility>

namespace informerd::kubeapi {

absl::StatusOr<std::unique_ptr<PassThrough>> PassThrough::Create(
    const kube::ClusterConfig& cluster, PassThroughOptions options) {
  kube::ClusterConfig anonymous;
  anonymous.server = cluster.server;
  anonymous.ca_pem = cluster.ca_pem;
  anonymous.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
  kube::RestClientOptions client_options;
  client_options.request_timeout = options.request_timeout;
  absl::StatusOr<std::unique_ptr<kube::RestClient>> client =
      kube::RestClient::Create(anonymous, client_options);
  if (!client.ok()) return client.status();
  return std::unique_ptr<PassThrough>(new PassThrough(*std::move(client), options));
}

PassThrough::PassThrough(std::unique_ptr<kube::RestClient> client, PassThroughOptions options)
    : client_(std::move(client)), options_(options) {
  for (size_t i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { Work(); });
}

PassThrough::~PassThrough() {
  std::deque<Job> dropped;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  for (Job& job : dropped) job.done(absl::UnavailableError("informerd is shutting down"));
  for (std::thread& thread : threads_) thread.join();
}

void PassThrough::Forward(kube::ForwardedRequest request, Done done) {
  {
    absl::MutexLock lock(&mu_);
    if (!stopping_ && queue_.size() < options_.max_queued) {
      queue_.push_back({std::move(request), std::move(done)});
      return;
    }
  }
  done(absl::ResourceExhaustedError(
      "informerd's pass-through to the apiserver has too many requests queued; retry"));
}

void PassThrough::Work() {
  while (true) {
    Job job;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](PassThrough* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->stopping_ || !self->queue_.empty();
          },
          this));
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    absl::StatusOr<kube::ForwardedResponse> response =
        client_->Forward(job.request, options_.max_response_bytes);
    // RESOURCE_EXHAUSTED stays this queue's (retry later); a response too
    // large is the apiserver's answer informerd cannot carry.
    if (absl::IsResourceExhausted(response.status())) {
      response = absl::OutOfRangeError(response.status().message());
    }
    job.done(std::move(response));
  }
}

}  // namespace informerd::kubeapi
