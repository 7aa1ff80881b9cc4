#include "server/admin/admin_server.h"

#include <prometheus/text_serializer.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/admin/field_mask_collector.h"
#include "server/admin/resource_collector.h"

namespace informerd::admin {

AdminServer::AdminServer(const service::ResourceRegistry* registry, metrics::Metrics* metrics,
                         const std::atomic<bool>* serving)
    : registry_(registry),
      metrics_(metrics),
      serving_(serving) {}

AdminServer::~AdminServer() { Stop(); }

absl::Status AdminServer::Start(const std::string& address, const tls::TlsFiles* tls) {
  server_ = std::make_unique<HttpServer>();
  server_->Handle("/healthz", [] { return HttpResponse{200, "text/plain", "ok\n"}; });
  server_->Handle("/readyz", [this] {
    if (serving_->load()) return HttpResponse{200, "text/plain", "ok\n"};
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
  });
  server_->Handle("/metrics", [this] {
    std::vector<prometheus::MetricFamily> families = metrics_->registry().Collect();
    std::vector<prometheus::MetricFamily> resources = CollectResourceMetrics(*registry_);
    families.insert(families.end(), resources.begin(), resources.end());
    std::vector<prometheus::MetricFamily> masks =
        CollectFieldMaskMetrics(cache::FieldMaskRegistry::Default());
    families.insert(families.end(), masks.begin(), masks.end());
    return HttpResponse{200, "text/plain; version=0.0.4",
                        prometheus::TextSerializer().Serialize(families)};
  });
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
