// The informerd binary's admin port under abuse (issue 26, finding 2): a
// thousand connections trickling their requests and chunked POSTs of
// hundreds of MiB, while a prober asks /healthz as the kubelet does. The
// binary runs as a leaf of a scripted root, so no control plane is needed.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "tests/integration/informerd_process.h"

namespace informerd::testing {
namespace {

// A root serving one ConfigMap and holding its Watches open: enough for a
// leaf to be ready.
class FakeRoot final : public v1::Cache::Service {
 public:
  FakeRoot() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~FakeRoot() override {
    closing_.Notify();
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
  int port() const { return port_; }

  grpc::Status ListResources(grpc::ServerContext*, const v1::ListResourcesRequest*,
                             v1::ListResourcesResponse* response) override {
    v1::ResourceStatus* served = response->add_resources();
    served->mutable_resource()->set_version("v1");
    served->mutable_resource()->set_resource("configmaps");
    served->set_kind("ConfigMap");
    served->set_namespaced(true);
    return grpc::Status::OK;
  }

  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest*,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    v1::WatchEvent added;
    added.set_type(v1::WatchEvent::ADDED);
    added.set_resource_version("5");
    added.mutable_object()->set_name("a");
    added.mutable_object()->set_namespace_("ns");
    added.mutable_object()->set_resource_version("5");
    added.mutable_object()->set_json(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"5"}})");
    writer->Write(added);
    v1::WatchEvent end;
    end.set_type(v1::WatchEvent::BOOKMARK);
    end.set_resource_version("6");
    end.set_initial_events_end(true);
    writer->Write(end);
    // The fake's own wait until the leaf or the test ends the call.
    while (!context->IsCancelled() &&
           !closing_.WaitForNotificationWithTimeout(absl::Milliseconds(50))) {
    }
    return grpc::Status::CANCELLED;
  }

 private:
  absl::Notification closing_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

int64_t RssKib(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    // "VmRSS:     12345 kB"
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

// A non-blocking connection to 127.0.0.1:port, or -1.
int ConnectNonBlocking(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 &&
      errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  return fd;
}

// Keeps `count` connections trickling a request a byte at a time (one byte
// per connection per round, a round every 100 ms), re-opening those the
// server closes, until `stop`.
void Trickle(int port, int count, const std::atomic<bool>& stop) {
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: informerd\r\nX-Slow: ";
  std::vector<int> fds(count, -1);
  std::vector<size_t> sent(count, 0);
  while (!stop.load()) {
    for (int i = 0; i < count; ++i) {
      if (fds[i] < 0) {
        fds[i] = ConnectNonBlocking(port);
        sent[i] = 0;
        continue;
      }
      const char byte = sent[i] < request.size() ? request[sent[i]] : 'x';
      if (send(fds[i], &byte, 1, MSG_NOSIGNAL) == 1) {
        ++sent[i];
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN) {
        close(fds[i]);
        fds[i] = -1;
      }
    }
    absl::SleepFor(absl::Milliseconds(100));  // the trickle's pace
  }
  for (int fd : fds) {
    if (fd >= 0) close(fd);
  }
}

// Sends chunked POSTs of up to 256 MiB as fast as the server takes them,
// again whenever the server closes one, until `stop`; the bytes it took.
int64_t ChunkedPosts(int port, const std::atomic<bool>& stop) {
  const std::string chunk = absl::StrCat("100000\r\n", std::string(1 << 20, 'x'), "\r\n");
  int64_t taken = 0;
  while (!stop.load()) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
      const std::string head = "POST /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
      bool open = send(fd, head.data(), head.size(), MSG_NOSIGNAL) > 0;
      for (int i = 0; open && i < 256 && !stop.load(); ++i) {
        const ssize_t n = send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
        open = n > 0;
        if (open) taken += n;
      }
    }
    close(fd);
  }
  return taken;
}

// How long one /healthz takes on a new connection (as a kubelet probe), or
// an infinite duration when it is not answered 200 within `timeout`.
absl::Duration Probe(int port, absl::Duration timeout) {
  const absl::Time start = absl::Now();
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{static_cast<time_t>(absl::ToInt64Seconds(timeout)), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buffer[512];
    ssize_t got;
    while ((got = recv(fd, buffer, sizeof buffer, 0)) > 0) answer.append(buffer, got);
  }
  close(fd);
  const absl::Duration took = absl::Now() - start;
  return answer.rfind("HTTP/1.1 200", 0) == 0 && took <= timeout ? took : absl::InfiniteDuration();
}

TEST(AdminFloodTest, HealthzAnswersAndMemoryStaysBoundedUnderSlowAndLargeClients) {
  FakeRoot root;
  const int http = FreeLoopbackPort();
  InformerdProcess informerd(
      {absl::StrCat("--upstream=grpc://127.0.0.1:", root.port()), "--resources=configmaps",
       absl::StrCat("--grpc-address=127.0.0.1:", FreeLoopbackPort()),
       absl::StrCat("--http-address=127.0.0.1:", http)},
      "admin-flood.log");
  ASSERT_TRUE(Eventually([&] { return HttpGet(http, "/readyz") == "200 ok\n"; },
                         absl::Seconds(30)))
      << informerd.Log();
  const int64_t rss_before = RssKib(informerd.pid());

  std::atomic<bool> stop{false};
  std::thread trickle([&] { Trickle(http, 1000, stop); });
  std::atomic<int64_t> posted{0};
  std::vector<std::thread> posts;
  for (int i = 0; i < 2; ++i) posts.emplace_back([&] { posted += ChunkedPosts(http, stop); });

  // Probes as the kubelet's (1 s timeout), every 100 ms for 8 s: four times
  // the request timeout, so the trickling connections are cut and re-opened
  // meanwhile.
  absl::Duration slowest = absl::ZeroDuration();
  int probes = 0;
  int unanswered = 0;
  int64_t rss_peak = rss_before;
  const absl::Time end = absl::Now() + absl::Seconds(8);
  while (absl::Now() < end) {
    const absl::Duration took = Probe(http, absl::Seconds(1));
    slowest = std::max(slowest, took);
    ++probes;
    if (took == absl::InfiniteDuration()) ++unanswered;
    rss_peak = std::max(rss_peak, RssKib(informerd.pid()));
    absl::SleepFor(absl::Milliseconds(100));  // the prober's period
  }
  stop = true;
  trickle.join();
  for (std::thread& post : posts) post.join();

  std::cout << probes << " probes, " << unanswered << " not answered within 1 s, slowest " << absl::FormatDuration(slowest) << "; RSS "
            << rss_before << " KiB before, " << rss_peak << " KiB at most; the chunked POSTs "
            << "sent " << posted.load() << " bytes (what the kernel took)" << std::endl;
  EXPECT_LT(slowest, absl::Milliseconds(500));
  // A connection holds 8 KiB of request at most: 1024 of them 8 MiB.
  EXPECT_LT(rss_peak - rss_before, 32 * 1024);
  EXPECT_EQ(HttpGet(http, "/healthz"), "200 ok\n");
  EXPECT_EQ(informerd.Stop(), 0);
}

}  // namespace
}  // namespace informerd::testing
