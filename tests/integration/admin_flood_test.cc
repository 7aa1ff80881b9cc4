// The informerd binary's admin port under abuse: a thousand connections
// trickling their requests and chunked POSTs of hundreds of MiB (issue 26,
// finding 2); a thousand connections refreshing their idle time and thirty
// pipelining HEAD /metrics under a 1024-descriptor limit (issue 38, items 1
// and 2); while a prober asks /healthz as the kubelet does and new gRPC
// clients List. The binary runs as a leaf of a scripted root, so no
// control plane is needed.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
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

// The attackers' connections come from 127.0.0.2, the probes' from
// 127.0.0.1: a pod floods from its own address, a kubelet probes from the
// node's.
void FromAttacker(int fd) {
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
  bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local);
}

// A non-blocking connection to 127.0.0.1:port from the attacker, or -1.
int ConnectNonBlocking(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  FromAttacker(fd);
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
    FromAttacker(fd);
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
  const int64_t rss_before = ProcStatusKiB(informerd.pid(), "VmRSS");

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
    rss_peak = std::max(rss_peak, ProcStatusKiB(informerd.pid(), "VmRSS"));
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

// Keeps `count` keep-alive connections each sending a whole GET /healthz
// every second (so no idle timeout ever ends them) and reading what comes
// back, re-opening those the server closes, until `stop`.
void RefreshIdle(int port, int count, const std::atomic<bool>& stop) {
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: informerd\r\n\r\n";
  std::vector<int> fds(count, -1);
  char drain[4096];
  while (!stop.load()) {
    for (int& fd : fds) {
      if (fd >= 0) {
        ssize_t got;
        while ((got = recv(fd, drain, sizeof drain, 0)) > 0) {
        }
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
          close(fd);
          fd = -1;
        }
      }
      if (fd < 0) fd = ConnectNonBlocking(port);
      if (fd >= 0) send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    }
    absl::SleepFor(absl::Seconds(1));  // the refresh's pace
  }
  for (int fd : fds) {
    if (fd >= 0) close(fd);
  }
}

// One connection pipelining 400 HEAD /metrics at a time and reading the
// answers as they come, again on a new connection when the server closes
// it, until `stop`; the answers it got.
int64_t PipelineHeads(int port, const std::atomic<bool>& stop) {
  std::string burst;
  for (int i = 0; i < 400; ++i) burst += "HEAD /metrics HTTP/1.1\r\nHost: informerd\r\n\r\n";
  int64_t answers = 0;
  char buffer[16384];
  while (!stop.load()) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    FromAttacker(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{0, 200000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    bool open = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    while (open && !stop.load()) {
      open = send(fd, burst.data(), burst.size(), MSG_NOSIGNAL) > 0;
      ssize_t got;
      while (open && (got = recv(fd, buffer, sizeof buffer, 0)) > 0) {
        for (ssize_t i = 0; i + 5 <= got; ++i) answers += buffer[i] == 'H' && buffer[i + 1] == 'T';
      }
      open = open && (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    }
    close(fd);
  }
  return answers;
}

// A List of configmaps on a new channel (its own connection), as a new
// client makes it.
grpc::Status ListOnANewChannel(int grpc_port) {
  grpc::ChannelArguments arguments;
  // No subchannel shared with an earlier channel: a new TCP connection.
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  arguments.SetString("informerd.test.channel", absl::StrCat(absl::ToUnixNanos(absl::Now())));
  std::unique_ptr<v1::Cache::Stub> stub = v1::Cache::NewStub(grpc::CreateCustomChannel(
      absl::StrCat("127.0.0.1:", grpc_port), grpc::InsecureChannelCredentials(), arguments));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::ListRequest request;
  request.mutable_resource()->set_version("v1");
  request.mutable_resource()->set_resource("configmaps");
  v1::ListResponse response;
  grpc::Status status = stub->List(&context, request, &response);
  if (status.ok() && response.items_size() != 1) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        absl::StrCat(response.items_size(), " objects, not 1"));
  }
  return status;
}

TEST(AdminFloodTest, NeitherDescriptorsNorPipeliningStopGrpcOrTheProbes) {
  // The flood's own thousand connections need room in this process.
  rlimit own{};
  getrlimit(RLIMIT_NOFILE, &own);
  own.rlim_cur = own.rlim_max;
  setrlimit(RLIMIT_NOFILE, &own);
  ASSERT_GE(own.rlim_cur, 2048u) << "the test needs 2048 descriptors of its own";

  FakeRoot root;
  const int http = FreeLoopbackPort();
  const int grpc_port = FreeLoopbackPort();
  // A common container default; soft and hard alike, so informerd cannot
  // raise its way out and its budget must hold.
  InformerdProcess informerd(
      {absl::StrCat("--upstream=grpc://127.0.0.1:", root.port()), "--resources=configmaps",
       absl::StrCat("--grpc-address=127.0.0.1:", grpc_port),
       absl::StrCat("--http-address=127.0.0.1:", http)},
      "descriptor-flood.log", /*descriptor_limit=*/1024);
  ASSERT_TRUE(Eventually([&] { return HttpGet(http, "/readyz") == "200 ok\n"; },
                         absl::Seconds(30)))
      << informerd.Log();
  ASSERT_TRUE(ListOnANewChannel(grpc_port).ok());

  std::atomic<bool> stop{false};
  std::thread refresh([&] { RefreshIdle(http, 1000, stop); });
  std::atomic<int64_t> heads{0};
  std::vector<std::thread> pipeliners;
  for (int i = 0; i < 30; ++i) pipeliners.emplace_back([&] { heads += PipelineHeads(http, stop); });

  // Probes as the chart's (2 s timeout) every 100 ms, and a new gRPC client
  // every second, for 10 s.
  absl::Duration slowest = absl::ZeroDuration();
  int probes = 0;
  int lists = 0;
  std::vector<std::string> failed_lists;
  const absl::Time end = absl::Now() + absl::Seconds(10);
  absl::Time next_list = absl::Now();
  while (absl::Now() < end) {
    slowest = std::max(slowest, Probe(http, absl::Seconds(2)));
    ++probes;
    if (absl::Now() >= next_list) {
      const grpc::Status listed = ListOnANewChannel(grpc_port);
      ++lists;
      if (!listed.ok()) failed_lists.push_back(listed.error_message());
      next_list = absl::Now() + absl::Seconds(1);
    }
    absl::SleepFor(absl::Milliseconds(100));  // the prober's period
  }
  stop = true;
  refresh.join();
  for (std::thread& pipeliner : pipeliners) pipeliner.join();

  std::cout << probes << " probes, slowest " << absl::FormatDuration(slowest) << "; "
            << lists << " new gRPC clients, " << failed_lists.size() << " failed; "
            << heads.load() << " pipelined HEAD /metrics answered" << std::endl;
  EXPECT_LT(slowest, absl::Milliseconds(500));
  EXPECT_TRUE(failed_lists.empty()) << failed_lists.front();
  // And after it: gRPC still accepts, and the probes agree.
  EXPECT_TRUE(ListOnANewChannel(grpc_port).ok());
  EXPECT_EQ(HttpGet(http, "/readyz"), "200 ok\n");
  EXPECT_EQ(informerd.Stop(), 0);
}

TEST(AdminFloodTest, ReadyzNamesAResourceItsUpstreamStoppedTalkingAbout) {
  // The fake root sends its list and then nothing, not even bookmarks.
  FakeRoot root;
  const int http = FreeLoopbackPort();
  const std::string config = absl::StrCat(std::getenv("TEST_TMPDIR"), "/progress.yaml");
  std::ofstream(config) << "upstreamProgressSeconds: 2\n";
  InformerdProcess informerd(
      {absl::StrCat("--upstream=grpc://127.0.0.1:", root.port()), "--resources=configmaps",
       absl::StrCat("--config=", config),
       absl::StrCat("--grpc-address=127.0.0.1:", FreeLoopbackPort()),
       absl::StrCat("--http-address=127.0.0.1:", http)},
      "upstream-progress.log");
  ASSERT_TRUE(Eventually([&] { return HttpGet(http, "/readyz") == "200 ok\n"; },
                         absl::Seconds(30)))
      << informerd.Log();
  std::string readyz;
  ASSERT_TRUE(Eventually(
      [&] {
        readyz = HttpGet(http, "/readyz");
        return readyz != "200 ok\n";
      },
      absl::Seconds(30)));
  EXPECT_EQ(readyz.rfind("503 not serving: configmaps: nothing from the upstream for ", 0), 0u)
      << readyz;
  const std::string metrics = HttpGet(http, "/metrics");
  EXPECT_NE(metrics.find("informerd_upstream_stalled{resource=\"configmaps\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.find("informerd_listener_stuck{listener=\"grpc\"} 0"), std::string::npos);
  EXPECT_EQ(informerd.Stop(), 0);
}

}  // namespace
}  // namespace informerd::testing
