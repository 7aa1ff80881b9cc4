#include "server/metrics/metrics.h"

namespace informerd::metrics {
namespace {

prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  // 1-2.5-5 steps, fine enough for a p99 to say which hop a latency is
  // spent in (bench/fanout_benchmark reads the dispatch latency's).
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5};
}

}  // namespace

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      rpcs_(prometheus::BuildCounter()
                .Name("informerd_rpcs_total")
                .Help("Finished RPCs by method and gRPC status code.")
                .Register(*registry_)),
      rpc_seconds_(prometheus::BuildHistogram()
                       .Name("informerd_rpc_duration_seconds")
                       .Help("Unary RPC latency by method.")
                       .Register(*registry_)),
      watchers_open_(prometheus::BuildGauge()
                         .Name("informerd_watchers_open")
                         .Help("Watch streams currently open.")
                         .Register(*registry_)),
      watcher_terminations_(prometheus::BuildCounter()
                                .Name("informerd_watcher_terminations_total")
                                .Help("Watch streams ended, by reason.")
                                .Register(*registry_)),
      initial_states_(prometheus::BuildCounter()
                          .Name("informerd_watch_initial_states_total")
                          .Help("Watches that began with the current state (send_initial_events, "
                                "or resource_version 0): clients' first lists and relists. "
                                "Paged lists are counted in informerd_rpcs_total.")
                          .Register(*registry_)),
      events_dispatched_(prometheus::BuildCounter()
                             .Name("informerd_events_dispatched_total")
                             .Help("Events written to watchers.")
                             .Register(*registry_)),
      dispatch_latency_(prometheus::BuildHistogram()
                            .Name("informerd_dispatch_latency_seconds")
                            .Help("From an event's arrival from the API server to its write to a watcher.")
                            .Register(*registry_)
                            .Add({}, LatencyBuckets())),
      requests_rejected_(prometheus::BuildCounter()
                             .Name("informerd_requests_rejected_total")
                             .Help("Calls refused before they ran, by method and reason "
                                   "(authentication, authorization, concurrency limits).")
                             .Register(*registry_)),
      reviews_(prometheus::BuildCounter()
                   .Name("informerd_apiserver_reviews_total")
                   .Help("TokenReviews and SubjectAccessReviews informerd asked the API server "
                         "for, by kind and outcome (answers from informerd's caches not counted).")
                   .Register(*registry_)) {}

void Metrics::ObserveRpc(const std::string& method, const std::string& code, double seconds) {
  rpcs_.Add({{"method", method}, {"code", code}}).Increment();
  rpc_seconds_.Add({{"method", method}}, LatencyBuckets()).Observe(seconds);
}

prometheus::Gauge& Metrics::WatchersOpen(const std::string& resource) {
  return watchers_open_.Add({{"resource", resource}});
}

void Metrics::WatcherTerminated(const std::string& resource, const std::string& reason) {
  watcher_terminations_.Add({{"resource", resource}, {"reason", reason}}).Increment();
}

void Metrics::InitialStateServed(const std::string& resource) {
  initial_states_.Add({{"resource", resource}}).Increment();
}

prometheus::Counter& Metrics::EventsDispatched(const std::string& resource) {
  return events_dispatched_.Add({{"resource", resource}});
}

void Metrics::ObserveDispatchLatency(double seconds) { dispatch_latency_.Observe(seconds); }

void Metrics::RequestRejected(const std::string& method, const std::string& reason) {
  requests_rejected_.Add({{"method", method}, {"reason", reason}}).Increment();
}

void Metrics::ReviewSent(std::string_view kind, std::string_view outcome) {
  reviews_.Add({{"kind", std::string(kind)}, {"outcome", std::string(outcome)}}).Increment();
}

}  // namespace informerd::metrics
