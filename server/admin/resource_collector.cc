#include "server/admin/resource_collector.h"

#include <algorithm>
#include <string>
#include <utility>

namespace informerd::admin {
namespace {

// One family appended to *out. It is found by index on every Add, not kept
// by pointer: appending the next family may move the vector's elements.
class FamilyBuilder {
 public:
  FamilyBuilder(std::vector<prometheus::MetricFamily>* out, std::string name,
                std::string help, prometheus::MetricType type)
      : out_(out), index_(out->size()) {
    prometheus::MetricFamily& family = out->emplace_back();
    family.name = std::move(name);
    family.help = std::move(help);
    family.type = type;
  }

  void Add(const std::string& resource, double value) {
    prometheus::MetricFamily& family = (*out_)[index_];
    prometheus::ClientMetric& metric = family.metric.emplace_back();
    metric.label.push_back({"resource", resource});
    if (family.type == prometheus::MetricType::Counter) {
      metric.counter.value = value;
    } else {
      metric.gauge.value = value;
    }
  }

 private:
  std::vector<prometheus::MetricFamily>* out_;
  size_t index_;
};

}  // namespace

std::vector<prometheus::MetricFamily> CollectResourceMetrics(
    const service::ResourceRegistry& registry) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  FamilyBuilder synced(&families, "informerd_resource_synced", "1 once the first list is cached.", MetricType::Gauge);
  FamilyBuilder objects(&families, "informerd_cached_objects", "Objects in the cache.", MetricType::Gauge);
  FamilyBuilder bytes(&families, "informerd_cached_bytes", "Approximate bytes held by cached objects.", MetricType::Gauge);
  FamilyBuilder history(&families, "informerd_history_events", "Events in the watch history.", MetricType::Gauge);
  FamilyBuilder version(&families, "informerd_resource_version", "The cache's resourceVersion: its last list, event or bookmark from the upstream.", MetricType::Gauge);
  FamilyBuilder oldest(&families, "informerd_history_oldest_resource_version", "The oldest resourceVersion a watch may resume from; an older one is answered OUT_OF_RANGE and the client relists. 0 until the first list.", MetricType::Gauge);
  FamilyBuilder lag(&families, "informerd_resource_version_lag", "How far the cache's resourceVersion is behind the API server's latest, which is approximated by the highest resourceVersion this informerd has from the API server on any of its resources (resourceVersions are etcd revisions, global across resources). A resource without changes of its own lags until its next bookmark (about a minute). Synced resources only.", MetricType::Gauge);
  FamilyBuilder received(&families, "informerd_events_received_total", "Watch events received from the upstream (the API server, or a tier's root informerd).", MetricType::Counter);
  FamilyBuilder rejected(&families, "informerd_events_rejected_total", "Objects rejected as malformed or out of order.", MetricType::Counter);
  FamilyBuilder relist_events(&families, "informerd_relist_events_total", "Events synthesized from relist diffs.", MetricType::Counter);
  FamilyBuilder lists(&families, "informerd_upstream_lists_total", "Full upstream states completed (paged LIST or streaming list).", MetricType::Counter);
  FamilyBuilder streamed(&families, "informerd_upstream_streaming_lists_total", "Of those, streaming lists (WATCH with sendInitialEvents).", MetricType::Counter);
  FamilyBuilder broken(&families, "informerd_upstream_streaming_lists_broken_total", "Streaming lists that broke before their end (a paged LIST follows).", MetricType::Counter);
  FamilyBuilder watches(&families, "informerd_upstream_watches_total", "Upstream WATCH requests made.", MetricType::Counter);
  FamilyBuilder relists(&families, "informerd_upstream_relists_total", "LISTs forced by an expired watch.", MetricType::Counter);
  FamilyBuilder expired(&families, "informerd_upstream_expired_total", "410 Expired answers from the API server (OUT_OF_RANGE from a root informerd).", MetricType::Counter);
  FamilyBuilder transport(&families, "informerd_upstream_transport_errors_total", "Connection failures to the upstream.", MetricType::Counter);
  FamilyBuilder http(&families, "informerd_upstream_http_errors_total", "Error statuses from the upstream.", MetricType::Counter);
  FamilyBuilder throttled(&families, "informerd_upstream_throttled_total", "429 answers from the API server (RESOURCE_EXHAUSTED from a root informerd).", MetricType::Counter);
  FamilyBuilder decode(&families, "informerd_upstream_decode_errors_total", "Malformed responses from the upstream.", MetricType::Counter);
  FamilyBuilder too_large(&families, "informerd_upstream_lists_too_large_total", "Initial lists from a root informerd dropped for passing upstreamListMaxItems or upstreamListMaxBytes before their end bookmark.", MetricType::Counter);
  FamilyBuilder backfills(&families, "informerd_history_backfills_total", "Runs that filled the watch history backwards from the API server for clients resuming from before it (after a restart).", MetricType::Counter);
  FamilyBuilder backfill_failures(&families, "informerd_history_backfill_failures_total", "Of those, runs that failed (timeout, unreachable upstream): their clients got UNAVAILABLE. A 410 from the API server is not a failure (the clients relist).", MetricType::Counter);
  const std::vector<service::ServedResource*> all = registry.all();
  // Every informer's figures first: the lag of each needs the highest
  // version among them.
  std::vector<informer::InformerStats> all_stats;
  all_stats.reserve(all.size());
  uint64_t latest = 0;
  for (const service::ServedResource* served : all) {
    all_stats.push_back(served->informer->stats());
    latest = std::max(latest, all_stats.back().resource_version);
  }
  for (size_t i = 0; i < all.size(); ++i) {
    const service::ServedResource* served = all[i];
    const std::string name = served->DisplayName();
    const informer::InformerStats& stats = all_stats[i];
    synced.Add(name, stats.synced ? 1 : 0);
    objects.Add(name, static_cast<double>(stats.objects));
    bytes.Add(name, static_cast<double>(stats.object_bytes));
    history.Add(name, static_cast<double>(stats.history_events));
    version.Add(name, static_cast<double>(stats.resource_version));
    oldest.Add(name, static_cast<double>(stats.oldest_resource_version));
    if (stats.synced) lag.Add(name, static_cast<double>(latest - stats.resource_version));
    received.Add(name, static_cast<double>(stats.events_received));
    rejected.Add(name, static_cast<double>(stats.events_rejected));
    relist_events.Add(name, static_cast<double>(stats.relist_events));
    const kube::ReflectorStats& upstream = served->reflector->stats();
    lists.Add(name, static_cast<double>(upstream.lists.load()));
    streamed.Add(name, static_cast<double>(upstream.streamed_lists.load()));
    broken.Add(name, static_cast<double>(upstream.streaming_list_broken.load()));
    watches.Add(name, static_cast<double>(upstream.watches.load()));
    relists.Add(name, static_cast<double>(upstream.relists.load()));
    expired.Add(name, static_cast<double>(upstream.expired_410.load()));
    transport.Add(name, static_cast<double>(upstream.transport_errors.load()));
    http.Add(name, static_cast<double>(upstream.http_errors.load()));
    throttled.Add(name, static_cast<double>(upstream.throttled.load()));
    decode.Add(name, static_cast<double>(upstream.decode_errors.load()));
    too_large.Add(name, static_cast<double>(upstream.lists_too_large.load()));
    // Without backfills (turned off, or a leaf) both stay 0, so that the
    // alert on failures has a series to read.
    const service::HistoryBackfill* backfill = served->backfill.get();
    backfills.Add(name, backfill != nullptr ? static_cast<double>(backfill->runs()) : 0);
    backfill_failures.Add(name,
                          backfill != nullptr ? static_cast<double>(backfill->failures()) : 0);
  }
  return families;
}

}  // namespace informerd::admin
