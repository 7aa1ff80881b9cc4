#include "server/admin/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd::admin {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A connected socket from `from` (a loopback address), or -1.
int Connect(int port, const char* from = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, from, &local.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    close(fd);
    return -1;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  // No test waits on a server that stopped answering for ever.
  timeval timeout{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  return fd;
}

void Send(int fd, const std::string& bytes) {
  ASSERT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
}

// Everything the server sends until it closes the connection.
std::string ReadToEnd(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t got;
  while ((got = recv(fd, buffer, sizeof buffer, 0)) > 0) out.append(buffer, got);
  return out;
}

// One response, read up to the end of its body (by Content-Length).
std::string ReadResponse(int fd) {
  std::string out;
  char buffer[4096];
  while (true) {
    const size_t head_end = out.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      const size_t at = out.find("Content-Length: ");
      const size_t length = std::stoul(out.substr(at + 16));
      if (out.size() >= head_end + 4 + length) return out;
    }
    const ssize_t got = recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) return out;
    out.append(buffer, got);
  }
}

// One request on a new connection; the whole answer.
std::string Ask(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  Send(fd, request);
  std::string answer = ReadToEnd(fd);
  close(fd);
  return answer;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void Start(HttpLimits limits = {}) {
    server_ = std::make_unique<HttpServer>(limits);
    server_->Handle("/healthz", [] { return HttpResponse{200, "text/plain", "ok\n"}; });
    ASSERT_TRUE(server_->Start("127.0.0.1:0", nullptr).ok());
  }
  int port() const { return server_->port(); }

  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, AnswersGetAndHeadAndKeepsTheConnection) {
  Start();
  const int fd = Connect(port());
  Send(fd, "GET /healthz?verbose HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(ReadResponse(fd),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n");
  // Two pipelined: the second is answered after the first.
  Send(fd, "HEAD /healthz HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(ReadToEnd(fd),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n"
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
            "Connection: close\r\n\r\nok\n");
  close(fd);
  EXPECT_THAT(Ask(port(), "GET /nothing HTTP/1.0\r\n\r\n"), StartsWith("HTTP/1.1 404 "));
  EXPECT_THAT(Ask(port(), "DELETE /healthz HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 405 "));
}

TEST_F(HttpServerTest, RefusesAnyBodyBeforeReadingIt) {
  Start();
  // A chunked POST, whatever follows, is answered at its head and cut.
  const int fd = Connect(port());
  Send(fd, "POST /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10000000\r\n");
  const std::string answer = ReadToEnd(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 413 Payload Too Large\r\n"));
  EXPECT_THAT(answer, HasSubstr("body: no endpoint takes one"));
  close(fd);
  EXPECT_THAT(Ask(port(), "GET /healthz HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
              StartsWith("HTTP/1.1 413 "));
  EXPECT_THAT(Ask(port(), "GET /healthz HTTP/1.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
              StartsWith("HTTP/1.1 200 "));
}

TEST_F(HttpServerTest, BoundsTheRequestHead) {
  Start();
  EXPECT_THAT(Ask(port(), absl::StrCat("GET /", std::string(9000, 'a'), " HTTP/1.1\r\n\r\n")),
              StartsWith("HTTP/1.1 431 "));
  std::string many = "GET /healthz HTTP/1.1\r\n";
  for (int i = 0; i < 65; ++i) absl::StrAppend(&many, "X-", i, ": y\r\n");
  EXPECT_THAT(Ask(port(), many + "\r\n"), HasSubstr("headers: more than 64"));
  EXPECT_THAT(Ask(port(), "GET /healthz\r\n\r\n"), StartsWith("HTTP/1.1 400 "));
  EXPECT_THAT(Ask(port(), "GET /healthz HTTP/1.1\r\nno colon\r\n\r\n"), StartsWith("HTTP/1.1 400 "));
}

TEST_F(HttpServerTest, ARequestThatDoesNotArriveInTimeIsCut) {
  HttpLimits limits;
  limits.request_timeout = absl::Milliseconds(300);
  Start(limits);
  const int fd = Connect(port());
  const absl::Time start = absl::Now();
  Send(fd, "GET /heal");
  // The server closes it: the read ends.
  EXPECT_EQ(ReadToEnd(fd), "");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(250));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  close(fd);
}

TEST_F(HttpServerTest, ANewConnectionEvictsTheSlowestWhenFull) {
  HttpLimits limits;
  limits.max_connections = 8;
  Start(limits);
  std::vector<int> slow;
  for (int i = 0; i < 50; ++i) {
    slow.push_back(Connect(port()));
    Send(slow.back(), "GET /");
  }
  // Still answered, though 50 connections hold partial requests.
  EXPECT_THAT(Ask(port(), "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"),
              StartsWith("HTTP/1.1 200 "));
  // The oldest were closed to make room.
  EXPECT_EQ(ReadToEnd(slow.front()), "");
  for (int fd : slow) close(fd);
}

TEST_F(HttpServerTest, OneAddressCannotEvictTheOthers) {
  HttpLimits limits;
  limits.max_connections = 100;
  limits.max_connections_per_peer = 4;
  Start(limits);
  // Older than any of the flood's, so the first to go were the limit one
  // for all addresses.
  std::vector<int> others;
  for (int i = 0; i < 3; ++i) {
    others.push_back(Connect(port(), "127.0.0.2"));
    ASSERT_GE(others.back(), 0);
    Send(others.back(), "GET /");
  }
  std::vector<int> flood;
  for (int i = 0; i < 40; ++i) {
    flood.push_back(Connect(port()));
    Send(flood.back(), "GET /");
  }
  // The flood's address keeps its newest four; its first are closed.
  EXPECT_THAT(Ask(port(), "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"),
              StartsWith("HTTP/1.1 200 "));
  EXPECT_EQ(ReadToEnd(flood.front()), "");
  // The other address's connections are still open and answered.
  for (int fd : others) {
    Send(fd, "healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_THAT(ReadToEnd(fd), StartsWith("HTTP/1.1 200 "));
    close(fd);
  }
  for (int fd : flood) close(fd);
}

TEST_F(HttpServerTest, PipelinedRequestsWaitForTheOtherConnections) {
  server_ = std::make_unique<HttpServer>();
  absl::Notification probe_sent;
  std::atomic<int> pipelined_answered{0};
  std::atomic<int> answered_before_probe{-1};
  server_->Handle("/metrics", [&] {
    // The first holds the loop until the probe's request is in its socket:
    // from then on both connections have a request waiting.
    if (pipelined_answered.fetch_add(1) == 0) probe_sent.WaitForNotification();
    return HttpResponse{200, "text/plain", "m\n"};
  });
  server_->Handle("/healthz", [&] {
    answered_before_probe = pipelined_answered.load();
    return HttpResponse{200, "text/plain", "ok\n"};
  });
  ASSERT_TRUE(server_->Start("127.0.0.1:0", nullptr).ok());
  const int pipeliner = Connect(port());
  std::string requests;
  for (int i = 0; i < 200; ++i) requests += "HEAD /metrics HTTP/1.1\r\n\r\n";
  Send(pipeliner, requests);
  while (pipelined_answered.load() == 0) absl::SleepFor(absl::Milliseconds(1));  // poll
  const int probe = Connect(port());
  Send(probe, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
  probe_sent.Notify();
  EXPECT_THAT(ReadToEnd(probe), StartsWith("HTTP/1.1 200 "));
  // One request of the pipeliner's per turn: the probe waits for a few of
  // them, not for all 200.
  EXPECT_GE(answered_before_probe.load(), 1);
  EXPECT_LT(answered_before_probe.load(), 10);
  close(probe);
  close(pipeliner);
}

TEST_F(HttpServerTest, ABadAddressIsNamed) {
  HttpServer server;
  absl::Status status = server.Start("localhost", nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("--http-address"));
}

}  // namespace
}  // namespace informerd::admin
