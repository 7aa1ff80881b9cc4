#include "server/admin/admin_server.h"

#include <httplib.h>
#include <prometheus/text_serializer.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/admin/resource_collector.h"

namespace informerd::admin {

AdminServer::AdminServer(const service::ResourceRegistry* registry, metrics::Metrics* metrics,
                         const std::atomic<bool>* serving)
    : registry_(registry),
      metrics_(metrics),
      serving_(serving) {}

AdminServer::~AdminServer() { Stop(); }

namespace {
// Threads serving the admin port; each idle one costs only its stack.
constexpr size_t kAdminThreads = 128;
}  // namespace

absl::Status AdminServer::Start(const std::string& address, const tls::TlsFiles* tls) {
  size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http-address: \"", address, "\" is not HOST:PORT"));
  }
  std::string host = address.substr(0, colon);
  if (tls != nullptr && !tls->cert_file.empty()) {
    certificate_ = std::make_unique<tls::ReloadingCertificate>(*tls);
    absl::Status configured;
    server_ = std::make_unique<httplib::SSLServer>([&](SSL_CTX& context) {
      configured = certificate_->Configure(&context);
      return configured.ok();
    });
    if (!configured.ok()) return configured;
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  // Probes and scrapes are tiny and quick: a client that is not is cut
  // after 2 s of silence, keeps a connection 5 s at most between requests,
  // and a slow one holds one of many threads, so up to kAdminThreads - 1
  // connections trickling their requests byte by byte leave /healthz alone.
  server_->set_read_timeout(2, 0);
  server_->set_write_timeout(2, 0);
  server_->set_keep_alive_timeout(5);
  server_->set_keep_alive_max_count(100);
  server_->set_payload_max_length(64 << 10);
  server_->new_task_queue = [] { return new httplib::ThreadPool(kAdminThreads); };
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& response) {
    if (serving_->load()) {
      response.set_content("ok\n", "text/plain");
      return;
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
    response.status = 503;
    response.set_content(body.empty() ? std::string("starting\n") : body, "text/plain");
  });
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    std::vector<prometheus::MetricFamily> families = metrics_->registry().Collect();
    std::vector<prometheus::MetricFamily> resources = CollectResourceMetrics(*registry_);
    families.insert(families.end(), resources.begin(), resources.end());
    response.set_content(prometheus::TextSerializer().Serialize(families),
                         "text/plain; version=0.0.4");
  });
  port_ = port == 0 ? server_->bind_to_any_port(host.c_str()) : port;
  if (port_ <= 0 || (port != 0 && !server_->bind_to_port(host.c_str(), port))) {
    return absl::UnavailableError(absl::StrCat("--http-address: cannot listen on ", address));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return absl::OkStatus();
}

void AdminServer::Stop() {
  if (server_ == nullptr) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace informerd::admin
