// The fan-out benchmark's watchers: N concurrent watch streams on one
// resource, either gRPC Watch streams on informerd or HTTP watches straight
// to the kube-apiserver. Each records, per event, its resourceVersion and
// when it arrived (steady clock), and does nothing else with it: the
// apiserver watchers do not decode JSON beyond finding the version, the
// informerd watchers parse the WatchEvent message.
//
// Thread safety: Start and Stop from one thread; receipts() after Stop;
// received() from any thread.
#ifndef INFORMERD_BENCH_WATCH_CLIENTS_H_
#define INFORMERD_BENCH_WATCH_CLIENTS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace informerd::bench {

struct Receipt {
  uint64_t resource_version = 0;
  int64_t arrival_ns = 0;
};

class WatchClients {
 public:
  virtual ~WatchClients() = default;
  // Opens `count` watches from the current state (no initial events).
  virtual absl::Status Start(size_t count) = 0;
  // Ends every watch and waits for them to finish.
  virtual void Stop() = 0;
  // Events received, per watch.
  virtual std::vector<std::vector<Receipt>> receipts() const = 0;
  // Events received so far, all watches; may be called while they run.
  size_t received() const { return received_.load(std::memory_order_relaxed); }

 protected:
  // Counted by the implementations as events arrive.
  std::atomic<size_t> received_{0};
};

// `address`: informerd's gRPC HOST:PORT. Streams are spread over channels
// of `streams_per_connection` streams, each its own TCP connection.
std::unique_ptr<WatchClients> NewInformerdWatchClients(std::string address,
                                                       std::string namespace_,
                                                       size_t streams_per_connection);

// One thread and one HTTPS connection per watch; `timeout_seconds` bounds
// each watch on the server, which is how an idle watch ends after Stop.
std::unique_ptr<WatchClients> NewApiserverWatchClients(std::string url, std::string ca_file,
                                                       std::string token,
                                                       std::string namespace_,
                                                       int timeout_seconds);

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_WATCH_CLIENTS_H_
