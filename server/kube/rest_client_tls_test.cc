// The trust the RestClient gives an API server's certificate: exactly the
// CAs of the kubeconfig (or service account) when it names any, as
// client-go does; the system bundle only when it names none.
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "httplib.h"
#include "server/kube/rest_client.h"
#include "tests/certificates/test_certificates.h"

namespace informerd::kube {
namespace {

using testing::CertPath;
using testing::MakeCa;
using testing::MakeCert;
using testing::ReadFile;

// An HTTPS server on localhost answering every GET with 200.
class TlsServer {
 public:
  TlsServer(const std::string& cert, const std::string& key)
      : server_(CertPath(cert).c_str(), CertPath(key).c_str()) {
    server_.Get(".*", [](const httplib::Request&, httplib::Response& response) {
      response.set_content("{}", "application/json");
    });
    // Bound and listening: connections queue until the thread accepts them.
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~TlsServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "https://localhost:" + std::to_string(port_); }

 private:
  httplib::SSLServer server_;
  int port_ = 0;
  std::thread thread_;
};

int GetStatus(const ClusterConfig& config) {
  absl::StatusOr<std::unique_ptr<RestClient>> client = RestClient::Create(config);
  if (!client.ok()) return -2;
  absl::StatusOr<HttpResponse> response = (*client)->Get("/version");
  return response.ok() ? response->status : -1;
}

TEST(RestClientTlsTest, TrustsOnlyTheConfiguredCaNotTheSystemBundle) {
  MakeCa("cluster-ca");
  MakeCa("public-ca");
  MakeCert("public-ca", "server.key", "server.crt");
  // OpenSSL's system bundle, for this process: the CA that signed the server.
  ASSERT_EQ(setenv("SSL_CERT_FILE", CertPath("public-ca.crt").c_str(), 1), 0);
  TlsServer server("server.crt", "server.key");

  ClusterConfig config;
  config.server = server.url();
  config.ca_pem = ReadFile(CertPath("cluster-ca.crt"));
  EXPECT_EQ(GetStatus(config), -1) << "a CA outside the kubeconfig was trusted";

  config.ca_pem = ReadFile(CertPath("public-ca.crt"));
  EXPECT_EQ(GetStatus(config), 200);

  // Naming no CA means the system bundle, as client-go does.
  config.ca_pem.clear();
  EXPECT_EQ(GetStatus(config), 200);
}

}  // namespace
}  // namespace informerd::kube
