#include "server/admin/listener_probe.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "tests/certificates/test_certificates.h"

namespace informerd::admin {
namespace {

// A socket that listens and never accepts: what gRPC 1.51's listener is
// after an accept error it does not recover from. The kernel still
// completes connections into the backlog.
class DeadListener {
 public:
  DeadListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    listen(fd_, 64);
    socklen_t size = sizeof address;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
  }
  ~DeadListener() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

std::unique_ptr<grpc::Server> GrpcServer(std::shared_ptr<grpc::ServerCredentials> credentials,
                                         int* port) {
  // A server needs a service to start; every method of this one is
  // UNIMPLEMENTED, and the probe calls none.
  static v1::Cache::Service* const service = new v1::Cache::Service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", credentials, port);
  builder.RegisterService(service);
  return builder.BuildAndStart();
}

TEST(ListenerProbeTest, AListenerThatNeverAcceptsIsNotAnswering) {
  DeadListener dead;
  const absl::Status probed =
      ListenerProbe::ProbeOnce("127.0.0.1", dead.port(), false, absl::Milliseconds(300));
  EXPECT_EQ(probed.code(), absl::StatusCode::kDeadlineExceeded) << probed;
  EXPECT_NE(probed.message().find("connected, but nothing answered"), std::string::npos);
  EXPECT_FALSE(ListenerProbe::ProbeOnce("127.0.0.1", dead.port(), true, absl::Milliseconds(300))
                   .ok());
}

TEST(ListenerProbeTest, APlaintextGrpcServerAnswers) {
  int port = 0;
  std::unique_ptr<grpc::Server> server = GrpcServer(grpc::InsecureServerCredentials(), &port);
  ASSERT_NE(port, 0);
  EXPECT_TRUE(ListenerProbe::ProbeOnce("127.0.0.1", port, false, absl::Seconds(5)).ok());
  server->Shutdown();
}

TEST(ListenerProbeTest, ATlsGrpcServerAnswersEvenWhenItRequiresClientCertificates) {
  testing::MakeCa("probe-ca");
  testing::MakeCert("probe-ca", "probe.key", "probe.crt");
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = testing::ReadFile(testing::CertPath("probe-ca.crt"));
  options.pem_key_cert_pairs.push_back({testing::ReadFile(testing::CertPath("probe.key")),
                                        testing::ReadFile(testing::CertPath("probe.crt"))});
  int port = 0;
  std::unique_ptr<grpc::Server> server = GrpcServer(grpc::SslServerCredentials(options), &port);
  ASSERT_NE(port, 0);
  EXPECT_TRUE(ListenerProbe::ProbeOnce("127.0.0.1", port, true, absl::Seconds(5)).ok());
  server->Shutdown();
}

TEST(ListenerProbeTest, ConnectionRefusedIsNotAnswering) {
  int port;
  {
    DeadListener closed;
    port = closed.port();
  }
  EXPECT_FALSE(ListenerProbe::ProbeOnce("127.0.0.1", port, false, absl::Seconds(1)).ok());
}

// Polls until `condition` holds or 10 s pass.
template <typename Condition>
bool Within10s(Condition condition) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));  // the poll's period
  }
  return true;
}

TEST(ListenerProbeTest, ReportsAStuckListenerAfterConsecutiveFailuresOnly) {
  DeadListener dead;
  ListenerProbeOptions options;
  options.interval = absl::Milliseconds(10);
  options.timeout = absl::Milliseconds(50);
  options.failures = 3;
  ListenerProbe probe("gRPC", "0.0.0.0:" + std::to_string(dead.port()), dead.port(), false,
                      options);
  EXPECT_EQ(probe.Problem(), std::nullopt);
  probe.Start();
  ASSERT_TRUE(Within10s([&] { return probe.Problem().has_value(); }));
  const std::string problem = *probe.Problem();
  EXPECT_NE(problem.find("gRPC listener on 0.0.0.0:"), std::string::npos) << problem;
  EXPECT_NE(problem.find("new connections in a row got no answer"), std::string::npos) << problem;
  probe.Stop();
}

TEST(ListenerProbeTest, ALiveListenerHasNoProblem) {
  int port = 0;
  std::unique_ptr<grpc::Server> server = GrpcServer(grpc::InsecureServerCredentials(), &port);
  ListenerProbeOptions options;
  options.interval = absl::Milliseconds(10);
  options.timeout = absl::Seconds(2);
  options.failures = 1;
  ListenerProbe probe("gRPC", "127.0.0.1:" + std::to_string(port), port, false, options);
  probe.Start();
  // Ten probes' worth of turns: none may fail.
  const absl::Time end = absl::Now() + absl::Milliseconds(200);
  while (absl::Now() < end) {
    ASSERT_EQ(probe.Problem(), std::nullopt);
    absl::SleepFor(absl::Milliseconds(10));  // the poll's period
  }
  probe.Stop();
  server->Shutdown();
}

}  // namespace
}  // namespace informerd::admin
