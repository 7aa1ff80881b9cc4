#include "server/admin/admin_server.h"

#include <dirent.h>

#include <prometheus/text_serializer.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "server/admin/field_mask_collector.h"
#include "server/admin/resource_collector.h"
#include "server/limits/descriptors.h"

namespace informerd::admin {
namespace {

// Descriptors this process holds, or -1.
double OpenDescriptors() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  double open = 0;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++open;
  }
  closedir(dir);
  return open - 1;  // the directory's own
}

prometheus::MetricFamily Gauge(std::string name, std::string help) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = prometheus::MetricType::Gauge;
  return family;
}

void AddGauge(prometheus::MetricFamily* family, double value,
              std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric& metric = family->metric.emplace_back();
  metric.label = std::move(labels);
  metric.gauge.value = value;
}

}  // namespace

AdminServer::AdminServer(const service::ResourceRegistry* registry, metrics::Metrics* metrics,
                         const std::atomic<bool>* serving, AdminOptions options)
    : registry_(registry),
      metrics_(metrics),
      serving_(serving),
      options_(options),
      upstream_progress_(registry, options.upstream_progress_timeout) {}

AdminServer::~AdminServer() { Stop(); }

std::vector<std::string> AdminServer::Faults() {
  std::vector<std::string> faults;
  if (options_.grpc_probe != nullptr) {
    if (std::optional<std::string> problem = options_.grpc_probe->Problem()) {
      faults.push_back(*std::move(problem));
    }
  }
  for (const UpstreamProgress::Silence& silence : upstream_progress_.Stalled(absl::Now())) {
    faults.push_back(absl::StrCat(
        silence.resource, ": nothing from the upstream for ",
        absl::FormatDuration(absl::Trunc(silence.silent_for, absl::Seconds(1)))));
  }
  return faults;
}

HttpResponse AdminServer::Ready() {
  if (serving_->load()) {
    std::vector<std::string> faults = Faults();
    if (faults.empty()) return HttpResponse{200, "text/plain", "ok\n"};
    return HttpResponse{503, "text/plain",
                        absl::StrCat("not serving: ", absl::StrJoin(faults, "; "), "\n")};
  }
  std::vector<std::string> syncing;
  for (const service::ServedResource* served : registry_->all()) {
    if (!served->informer->synced()) syncing.push_back(served->DisplayName());
  }
  std::vector<std::string> pending = registry_->pending();
  std::string body;
  if (!syncing.empty()) absl::StrAppend(&body, "syncing: ", absl::StrJoin(syncing, ", "), "\n");
  if (!pending.empty()) {
    absl::StrAppend(&body, "not served by the API server yet: ", absl::StrJoin(pending, ", "),
                    "\n");
  }
  return HttpResponse{503, "text/plain", body.empty() ? std::string("starting\n") : body};
}

HttpResponse AdminServer::MetricsHead() {
  if (absl::Now() - metrics_rendered_at_ < options_.metrics_head_interval) {
    return metrics_rendered_;
  }
  return Metrics();
}

HttpResponse AdminServer::Metrics() {
  const absl::Time now = absl::Now();
  std::vector<prometheus::MetricFamily> families = metrics_->registry().Collect();
  std::vector<prometheus::MetricFamily> resources = CollectResourceMetrics(*registry_);
  families.insert(families.end(), resources.begin(), resources.end());
  std::vector<prometheus::MetricFamily> masks =
      CollectFieldMaskMetrics(cache::FieldMaskRegistry::Default());
  families.insert(families.end(), masks.begin(), masks.end());

  prometheus::MetricFamily open = Gauge("process_open_fds", "Open file descriptors.");
  AddGauge(&open, OpenDescriptors());
  prometheus::MetricFamily max = Gauge(
      "process_max_fds", "The soft limit on open file descriptors (raised to the hard one at start).");
  AddGauge(&max, static_cast<double>(limits::CurrentDescriptorLimit().soft));
  prometheus::MetricFamily stuck = Gauge(
      "informerd_listener_stuck",
      "1 while a listener of this process gets no answer to new connections (ListenerProbe); "
      "/readyz fails meanwhile.");
  if (options_.grpc_probe != nullptr) {
    AddGauge(&stuck, options_.grpc_probe->Problem().has_value() ? 1 : 0,
             {{"listener", "grpc"}});
  }
  prometheus::MetricFamily silent = Gauge(
      "informerd_upstream_stalled",
      "1 for a synced resource that has had no event, bookmark or list from its upstream for "
      "longer than upstreamProgressSeconds; /readyz fails meanwhile.");
  absl::flat_hash_set<std::string> stalled;
  for (UpstreamProgress::Silence& silence : upstream_progress_.Stalled(now)) {
    stalled.insert(std::move(silence.resource));
  }
  for (const service::ServedResource* served : registry_->all()) {
    const std::string name = served->DisplayName();
    AddGauge(&silent, stalled.contains(name) ? 1 : 0, {{"resource", name}});
  }
  for (prometheus::MetricFamily* family : {&open, &max, &stuck, &silent}) {
    families.push_back(std::move(*family));
  }
  metrics_rendered_ = HttpResponse{200, "text/plain; version=0.0.4",
                                   prometheus::TextSerializer().Serialize(families)};
  metrics_rendered_at_ = now;
  return metrics_rendered_;
}

absl::Status AdminServer::Start(const std::string& address, const tls::TlsFiles* tls) {
  server_ = std::make_unique<HttpServer>(options_.limits);
  server_->Handle("/healthz", [] { return HttpResponse{200, "text/plain", "ok\n"}; });
  server_->Handle("/readyz", [this] { return Ready(); });
  server_->Handle("/metrics", [this] { return Metrics(); }, [this] { return MetricsHead(); });
  if (tls != nullptr && !tls->cert_file.empty()) {
    certificate_ = std::make_unique<tls::ReloadingCertificate>(*tls);
  }
  return server_->Start(address, certificate_.get());
}

int AdminServer::port() const { return server_ == nullptr ? 0 : server_->port(); }

void AdminServer::Stop() {
  if (server_ != nullptr) server_->Stop();
}

}  // namespace informerd::admin
