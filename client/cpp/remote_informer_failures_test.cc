// A RemoteInformer pointed at a wrong address reports it in LastError()
// within 5s, naming the address, the resource and the reason: nothing
// listening, and a port that answers HTTP/1.1 instead of
// gRPC. (An unserved resource, which needs a real informerd, is in
// tests/integration/informer_factory_test.cc.)

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/cpp/connection.h"
#include "client/cpp/remote_informer.h"
#include "gtest/gtest.h"

namespace informerd {
namespace client {
namespace {

constexpr absl::Duration kReportWithin = absl::Seconds(5);

// A loopback TCP socket listening on an ephemeral port; closed with the
// object.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd_, 16), 0);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { Close(); }
  void Close() {
    if (fd_ >= 0) {
      shutdown(fd_, SHUT_RDWR);
      close(fd_);
      fd_ = -1;
    }
  }
  int fd() const { return fd_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Answers every connection with a plain HTTP error, as a web server or a
// metrics port would, each on its own thread, until destroyed.
class NotGrpcServer {
 public:
  NotGrpcServer()
      : thread_([this] {
          while (true) {
            int conn = accept(listener_.fd(), nullptr, nullptr);
            if (conn < 0) return;
            absl::MutexLock lock(&mu_);
            conns_.push_back(conn);
            answers_.emplace_back([conn] {
              static constexpr char kAnswer[] =
                  "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
              (void)!write(conn, kAnswer, sizeof(kAnswer) - 1);
              char buffer[4096];
              while (read(conn, buffer, sizeof(buffer)) > 0) {
              }
            });
          }
        }) {}
  ~NotGrpcServer() {
    listener_.Close();
    thread_.join();
    absl::MutexLock lock(&mu_);
    for (int conn : conns_) shutdown(conn, SHUT_RDWR);
    for (std::thread& answer : answers_) answer.join();
    for (int conn : conns_) close(conn);
  }
  std::string address() const { return listener_.address(); }

 private:
  Listener listener_;
  absl::Mutex mu_;
  std::vector<int> conns_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> answers_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// Starts an informer of configmaps at address and returns its LastError()
// once it names address and reason, or the last one seen after 5s.
absl::Status ReportedError(const std::string& address,
                           const std::string& reason) {
  ConnectionOptions connection;
  connection.address = address;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Connect(connection);
  EXPECT_TRUE(channel.ok()) << channel.status();
  RemoteInformerOptions options;
  options.resource.set_resource("configmaps");
  RemoteInformer informer(*channel, connection, options);
  informer.Start();
  const absl::Time deadline = absl::Now() + kReportWithin;
  absl::Status error;
  while (absl::Now() < deadline) {
    error = informer.LastError();
    if (absl::StrContains(error.message(), address) &&
        absl::StrContains(error.message(), "configmaps") &&
        absl::StrContains(error.message(), reason)) {
      break;
    }
    absl::SleepFor(absl::Milliseconds(20));  // Polling the informer's thread.
  }
  informer.Stop();
  return error;
}

TEST(RemoteInformerFailuresTest, ClosedPortIsReported) {
  std::string address;
  {
    Listener closed;
    address = closed.address();
  }
  absl::Status error = ReportedError(address, "Connection refused");
  EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable) << error;
  EXPECT_TRUE(absl::StrContains(error.message(), address) &&
              absl::StrContains(error.message(), "configmaps") &&
              absl::StrContains(error.message(), "Connection refused"))
      << error;
}

TEST(RemoteInformerFailuresTest, PortThatIsNotGrpcIsReported) {
  NotGrpcServer server;
  absl::Status error = ReportedError(server.address(), "http1");
  EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable) << error;
  EXPECT_TRUE(absl::StrContains(error.message(), server.address()) &&
              absl::StrContains(error.message(), "configmaps") &&
              absl::StrContains(error.message(), "http1"))
      << error;
}

}  // namespace
}  // namespace client
}  // namespace informerd
