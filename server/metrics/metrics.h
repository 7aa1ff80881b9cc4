// Metrics: informerd's Prometheus registry and the instruments the serving
// path updates. Informer and reflector counters are read at scrape time by
// a collector (resource_collector.h), not mirrored here.
//
// Thread safety: instruments are thread-safe (prometheus-cpp).
#ifndef INFORMERD_SERVER_METRICS_METRICS_H_
#define INFORMERD_SERVER_METRICS_METRICS_H_

#include <memory>
#include <string>
#include <string_view>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

namespace informerd::metrics {

class Metrics {
 public:
  Metrics();

  prometheus::Registry& registry() { return *registry_; }

  // One finished RPC.
  void ObserveRpc(const std::string& method, const std::string& code, double seconds);
  // Watch streams currently open for `resource`.
  prometheus::Gauge& WatchersOpen(const std::string& resource);
  // A watch stream ended; reason: "client", "fell_behind", "shutdown", ...
  void WatcherTerminated(const std::string& resource, const std::string& reason);
  // A watch of `resource` began with the current state (send_initial_events,
  // or resource_version "0"): a client's first list or a relist.
  void InitialStateServed(const std::string& resource);
  // Events written to watchers of `resource`.
  prometheus::Counter& EventsDispatched(const std::string& resource);
  // Time from an event's arrival to its write to a watcher.
  void ObserveDispatchLatency(double seconds);
  // A call refused before it ran; reason: "unauthenticated",
  // "permission_denied", "auth_unavailable", "identity_limit",
  // "global_limit".
  void RequestRejected(const std::string& method, const std::string& reason);
  // A review informerd asked the API server for (auth::CountingReviewer's
  // kinds and outcomes).
  void ReviewSent(std::string_view kind, std::string_view outcome);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& rpcs_;
  prometheus::Family<prometheus::Histogram>& rpc_seconds_;
  prometheus::Family<prometheus::Gauge>& watchers_open_;
  prometheus::Family<prometheus::Counter>& watcher_terminations_;
  prometheus::Family<prometheus::Counter>& initial_states_;
  prometheus::Family<prometheus::Counter>& events_dispatched_;
  prometheus::Histogram& dispatch_latency_;
  prometheus::Family<prometheus::Counter>& requests_rejected_;
  prometheus::Family<prometheus::Counter>& reviews_;
};

}  // namespace informerd::metrics

#endif  // INFORMERD_SERVER_METRICS_METRICS_H_
