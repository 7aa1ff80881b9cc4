#include "server/admin/admin_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include <httplib.h>
#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "tests/certificates/test_certificates.h"

namespace informerd::admin {
namespace {

using testing::CertPath;
using testing::MakeCa;
using testing::MakeCert;

class AdminServerTest : public ::testing::Test {
 protected:
  service::ResourceRegistry registry_;
  metrics::Metrics metrics_;
  std::atomic<bool> ready_{false};
};

TEST_F(AdminServerTest, ProbesAndMetricsOverPlainHttp) {
  AdminServer server(&registry_, &metrics_, &ready_);
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  httplib::Client client("127.0.0.1", server.port());
  EXPECT_EQ(client.Get("/healthz")->status, 200);
  auto readyz = client.Get("/readyz");
  EXPECT_EQ(readyz->status, 503);
  EXPECT_EQ(readyz->body, "starting\n");
  ready_ = true;
  EXPECT_EQ(client.Get("/readyz")->status, 200);
  auto metrics = client.Get("/metrics");
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("informerd_dispatch_latency_seconds"), std::string::npos);
}

// A GET renders what the metrics say now; a HEAD within a second of a
// rendering answers from it (its Content-Length is that rendering's), so
// pipelined HEADs cost no renderings.
TEST_F(AdminServerTest, GetRendersEveryTimeHeadReusesARecentRendering) {
  AdminServer server(&registry_, &metrics_, &ready_);
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  httplib::Client client("127.0.0.1", server.port());
  auto first = client.Get("/metrics");
  ASSERT_EQ(first->status, 200);
  metrics_.RequestRejected("List", "a_reason_of_this_test");
  auto head = client.Head("/metrics");
  ASSERT_EQ(head->status, 200);
  EXPECT_EQ(head->get_header_value("Content-Length"), std::to_string(first->body.size()));
  auto second = client.Get("/metrics");
  EXPECT_NE(second->body.find("a_reason_of_this_test"), std::string::npos);
  EXPECT_GT(second->body.size(), first->body.size());
}

// Connections that send their request a byte at a time, and never finish
// it, do not keep a probe waiting: they hold no thread (issue 26 asked for
// 1,000; cpp-httplib's pool of 128 threads failed at 140).
TEST_F(AdminServerTest, TricklingClientsDoNotDelayHealthz) {
  AdminServer server(&registry_, &metrics_, &ready_);
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  std::vector<int> tricklers;
  for (int i = 0; i < 1000; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(server.port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    ASSERT_EQ(send(fd, "GET /hea", 8, MSG_NOSIGNAL), 8);
    tricklers.push_back(fd);
  }
  std::atomic<bool> done{false};
  // A byte each half second to each (until the server cuts them at its
  // request timeout).
  std::thread trickle([&] {
    while (!done) {
      for (int fd : tricklers) send(fd, "l", 1, MSG_NOSIGNAL);
      absl::SleepFor(absl::Milliseconds(500));  // the attack's pace, not a wait for a condition
    }
  });
  httplib::Client client("127.0.0.1", server.port());
  client.set_connection_timeout(5);
  client.set_read_timeout(5);
  for (int i = 0; i < 5; ++i) {
    absl::Time start = absl::Now();
    auto response = client.Get("/healthz");
    ASSERT_TRUE(response) << httplib::to_string(response.error());
    EXPECT_EQ(response->status, 200);
    EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  }
  done = true;
  trickle.join();
  for (int fd : tricklers) close(fd);
}

TEST_F(AdminServerTest, BadAddressesAreNamed) {
  AdminServer server(&registry_, &metrics_, &ready_);
  absl::Status status = server.Start("no-port");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("--http-address"), absl::string_view::npos);
}

TEST_F(AdminServerTest, HttpsPicksUpRotatedCertificates) {
  MakeCa("admin-ca-1");
  MakeCa("admin-ca-2");
  MakeCert("admin-ca-1", "admin.key", "admin.crt");
  tls::TlsFiles files{CertPath("admin.crt"), CertPath("admin.key"), "", absl::ZeroDuration()};
  AdminServer server(&registry_, &metrics_, &ready_);
  ASSERT_TRUE(server.Start("127.0.0.1:0", &files).ok());

  auto get = [&](const std::string& ca) {
    httplib::SSLClient client("localhost", server.port());
    client.set_ca_cert_path(CertPath(ca + ".crt").c_str());
    client.enable_server_certificate_verification(true);
    client.set_connection_timeout(5);
    auto response = client.Get("/healthz");
    return response ? response->status : -1;
  };
  EXPECT_EQ(get("admin-ca-1"), 200);
  EXPECT_EQ(get("admin-ca-2"), -1);  // Not trusted.
  httplib::Client plain("127.0.0.1", server.port());
  plain.set_connection_timeout(5);
  auto plain_response = plain.Get("/healthz");
  EXPECT_TRUE(!plain_response || plain_response->status != 200);

  // Rotation: a certificate from the second CA replaces the first.
  MakeCert("admin-ca-2", "admin.key", "admin-next.crt");
  std::filesystem::rename(CertPath("admin-next.crt"), CertPath("admin.crt"));
  EXPECT_EQ(get("admin-ca-2"), 200);
  EXPECT_EQ(get("admin-ca-1"), -1);
}

TEST_F(AdminServerTest, HttpsRefusesAMismatchedKeyPair) {
  MakeCa("admin-ca-3");
  MakeCert("admin-ca-3", "first.key", "first.crt");
  MakeCert("admin-ca-3", "second.key", "second.crt");
  tls::TlsFiles files{CertPath("first.crt"), CertPath("second.key"), "", absl::Minutes(1)};
  AdminServer server(&registry_, &metrics_, &ready_);
  absl::Status status = server.Start("127.0.0.1:0", &files);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("does not match"), absl::string_view::npos) << status;
}

}  // namespace
}  // namespace informerd::admin
