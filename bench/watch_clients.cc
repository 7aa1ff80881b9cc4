#include "bench/measurement.h"
#include "bench/watch_clients.h"
#include "bench/watch_stream.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <string_view>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/cache/resource_version.h"

namespace informerd::bench {
namespace {

class InformerdStream : public WatchStream {
 public:
  InformerdStream(v1::Cache::Stub* stub, const v1::WatchRequest& request,
                  std::atomic<size_t>* received)
      : received_(received) {
    Start(stub, request);
  }

  // Only after AwaitDone: the reactor no longer runs.
  const std::vector<Receipt>& receipts() const { return receipts_; }

 private:
  void OnEvent(const v1::WatchEvent& event) override {
    if (event.type() == v1::WatchEvent::BOOKMARK) return;
    std::optional<uint64_t> version = cache::ParseResourceVersion(event.resource_version());
    receipts_.push_back({version.value_or(0), SteadyNanos()});
    received_->fetch_add(1, std::memory_order_relaxed);
  }

  std::atomic<size_t>* const received_;
  std::vector<Receipt> receipts_;
};

class InformerdWatchClients : public WatchClients {
 public:
  InformerdWatchClients(std::string address, std::string namespace_, size_t per_connection)
      : address_(std::move(address)),
        namespace_(std::move(namespace_)),
        per_connection_(per_connection == 0 ? 1 : per_connection) {}

  ~InformerdWatchClients() override { Stop(); }

  absl::Status Start(size_t count) override {
    v1::WatchRequest request;
    request.mutable_resource()->set_version("v1");
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(namespace_);
    for (size_t i = 0; i < count; ++i) {
      if (i % per_connection_ == 0) stubs_.push_back(NewStubOnOwnConnection(address_));
      streams_.push_back(std::make_unique<InformerdStream>(stubs_.back().get(), request, &received_));
    }
    return absl::OkStatus();
  }

  void Stop() override {
    for (auto& stream : streams_) stream->Cancel();
    for (auto& stream : streams_) stream->AwaitDone();
  }

  std::vector<std::vector<Receipt>> receipts() const override {
    std::vector<std::vector<Receipt>> all;
    for (const auto& stream : streams_) all.push_back(stream->receipts());
    return all;
  }

 private:
  const std::string address_;
  const std::string namespace_;
  const size_t per_connection_;
  std::vector<std::unique_ptr<v1::Cache::Stub>> stubs_;
  std::vector<std::unique_ptr<InformerdStream>> streams_;
};

class ApiserverWatchClients : public WatchClients {
 public:
  ApiserverWatchClients(std::string url, std::string ca_file, std::string token,
                        std::string namespace_, int timeout_seconds)
      : url_(std::move(url)),
        ca_file_(std::move(ca_file)),
        token_(std::move(token)),
        namespace_(std::move(namespace_)),
        timeout_seconds_(timeout_seconds) {}

  ~ApiserverWatchClients() override { Stop(); }

  absl::Status Start(size_t count) override {
    receipts_.resize(count);
    for (size_t i = 0; i < count; ++i) {
      threads_.emplace_back([this, i] { Watch(&receipts_[i]); });
    }
    return absl::OkStatus();
  }

  void Stop() override {
    stopping_.store(true);
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

  std::vector<std::vector<Receipt>> receipts() const override { return receipts_; }

 private:
  // Reads the watch body frame by frame (one JSON event per line) and finds
  // the first "resourceVersion", which in an event is the object's own.
  void Watch(std::vector<Receipt>* receipts) {
    httplib::Client client(url_);
    client.set_ca_cert_path(ca_file_.c_str());
    client.set_bearer_token_auth(token_.c_str());
    client.set_read_timeout(timeout_seconds_ + 5, 0);
    // Starting from "now": the apiserver's current version from a cheap LIST.
    std::string from;
    if (auto list = client.Get(absl::StrCat("/api/v1/namespaces/", namespace_,
                                            "/configmaps?limit=1"));
        list && list->status == 200) {
      constexpr std::string_view kMarker = "\"resourceVersion\":\"";
      size_t at = list->body.find(kMarker);
      if (at != std::string::npos) {
        at += kMarker.size();
        from = list->body.substr(at, list->body.find('"', at) - at);
      }
    }
    std::string pending;
    client.Get(
        absl::StrCat("/api/v1/namespaces/", namespace_, "/configmaps?watch=1&resourceVersion=",
                     from, "&timeoutSeconds=", timeout_seconds_),
        [&](const char* data, size_t size) {
          const int64_t now = SteadyNanos();
          pending.append(data, size);
          size_t line_end;
          while ((line_end = pending.find('\n')) != std::string::npos) {
            constexpr std::string_view kMarker = "\"resourceVersion\":\"";
            size_t at = pending.find(kMarker);
            if (at < line_end) {
              at += kMarker.size();
              uint64_t version = 0;
              while (at < line_end && pending[at] >= '0' && pending[at] <= '9') {
                version = version * 10 + (pending[at++] - '0');
              }
              receipts->push_back({version, now});
              received_.fetch_add(1, std::memory_order_relaxed);
            }
            pending.erase(0, line_end + 1);
          }
          return !stopping_.load();
        });
  }

  const std::string url_;
  const std::string ca_file_;
  const std::string token_;
  const std::string namespace_;
  const int timeout_seconds_;
  std::atomic<bool> stopping_{false};
  std::vector<std::vector<Receipt>> receipts_;
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<WatchClients> NewInformerdWatchClients(std::string address,
                                                       std::string namespace_,
                                                       size_t streams_per_connection) {
  return std::make_unique<InformerdWatchClients>(std::move(address), std::move(namespace_),
                                                 streams_per_connection);
}

std::unique_ptr<WatchClients> NewApiserverWatchClients(std::string url, std::string ca_file,
                                                       std::string token,
                                                       std::string namespace_,
                                                       int timeout_seconds) {
  return std::make_unique<ApiserverWatchClients>(std::move(url), std::move(ca_file),
                                                 std::move(token), std::move(namespace_),
                                                 timeout_seconds);
}

}  // namespace informerd::bench
