// 1,000 concurrent idle HTTPS watches on the Kubernetes API port of the
// informerd binary: no thread each, bounded memory each, every one live,
// and the per-caller watch limit the gRPC port has refusing the next one.
// Prints the measured threads and RSS (docs/DECISIONS.md quotes them).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

constexpr int kWatches = 1000;

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  EXPECT_NE(value, nullptr) << name << " is not set; run through hack/test.sh";
  return value == nullptr ? "" : value;
}

// A field of /proc/PID/status ("Threads", "VmRSS"), as a number.
long ProcStatus(pid_t pid, const std::string& field) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  ADD_FAILURE() << field << " not in /proc/" << pid << "/status";
  return -1;
}

// One HTTPS connection from this (single) thread.
class Connection {
 public:
  Connection(SSL_CTX* context, int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) return;
    ssl_ = SSL_new(context);
    SSL_set_fd(ssl_, fd_);
    SSL_set_tlsext_host_name(ssl_, "127.0.0.1");
    if (SSL_connect(ssl_) != 1) {
      SSL_free(ssl_);
      ssl_ = nullptr;
    }
  }
  ~Connection() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return ssl_ != nullptr; }

  bool Send(const std::string& request) {
    return SSL_write(ssl_, request.data(), static_cast<int>(request.size())) ==
           static_cast<int>(request.size());
  }
  // Reads until `marker` has arrived (or the connection ends); what came.
  std::string ReadUntil(const std::string& marker) {
    char buffer[4096];
    while (received_.find(marker) == std::string::npos) {
      int n = SSL_read(ssl_, buffer, sizeof(buffer));
      if (n <= 0) break;
      received_.append(buffer, static_cast<size_t>(n));
    }
    return received_;
  }

 private:
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string received_;
};

TEST(KubeApiWatches, AThousandIdleWatchesHoldNoThreadEachAndBoundedMemory) {
  const std::string cp = Env("INFORMERD_CP_DIR");
  const int kube_api = FreeLoopbackPort();
  const int http = FreeLoopbackPort();
  const std::string config = absl::StrCat(std::getenv("TEST_TMPDIR"), "/config.yaml");
  // The default rate (400 requests at once per caller) would refuse this
  // one caller's burst of watch starts; the watch limit stays the default.
  std::ofstream(config) << "limits:\n  requestBurstPerIdentity: 5000\n";
  InformerdProcess informerd(
      {absl::StrCat("--kubeconfig=", Env("KUBECONFIG")), "--resources=configmaps",
       "--grpc-address=127.0.0.1:0", absl::StrCat("--http-address=127.0.0.1:", http),
       absl::StrCat("--kube-api-address=127.0.0.1:", kube_api), "--auth-mode=kubernetes",
       absl::StrCat("--tls-cert-file=", cp, "/pki/serving.crt"),
       absl::StrCat("--tls-key-file=", cp, "/pki/serving.key"), absl::StrCat("--config=", config)},
      "informerd.log");
  ASSERT_TRUE(Eventually([&] { return HttpGet(http, "/readyz") == "200 ok\n"; },
                         absl::Seconds(60)))
      << informerd.Log();

  std::string ns = CreateTestNamespace("kubeapi-watches");
  std::string version = CreateConfigMap(ns, "start", {});
  const std::string token = ReadFileFromEnv("INFORMERD_ADMIN_TOKEN_FILE");
  const std::string request = absl::StrCat(
      "GET /api/v1/namespaces/", ns, "/configmaps?watch=1&resourceVersion=", version,
      " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ", token,
      "\r\nAccept: application/json\r\n\r\n");

  SSL_CTX* context = SSL_CTX_new(TLS_client_method());
  ASSERT_EQ(SSL_CTX_load_verify_locations(context, Env("INFORMERD_CA_FILE").c_str(), nullptr), 1);
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);

  // Warm: the first watch (the review caches, the Informer's waiters).
  std::vector<std::unique_ptr<Connection>> watches;
  auto open = [&] {
    auto connection = std::make_unique<Connection>(context, kube_api);
    EXPECT_TRUE(connection->ok()) << ERR_error_string(ERR_get_error(), nullptr);
    if (!connection->ok()) return connection;
    EXPECT_TRUE(connection->Send(request));
    return connection;
  };
  watches.push_back(open());
  ASSERT_NE(watches[0]->ReadUntil("\r\n\r\n").find("HTTP/1.1 200"), std::string::npos);
  const long threads_one = ProcStatus(informerd.pid(), "Threads");
  const long rss_one = ProcStatus(informerd.pid(), "VmRSS");

  for (int i = 1; i < kWatches; ++i) {
    watches.push_back(open());
    ASSERT_TRUE(watches.back()->ok()) << "watch " << i;
  }
  for (int i = 1; i < kWatches; ++i) {
    std::string head = watches[static_cast<size_t>(i)]->ReadUntil("\r\n\r\n");
    ASSERT_NE(head.find("HTTP/1.1 200"), std::string::npos) << "watch " << i << ": " << head;
  }
  const long threads_all = ProcStatus(informerd.pid(), "Threads");
  const long rss_all = ProcStatus(informerd.pid(), "VmRSS");

  // The caller's 1001st watch: refused by the same per-caller limit as on
  // the gRPC port (maxWatchesPerIdentity 1000).
  std::unique_ptr<Connection> one_more = open();
  std::string refused = one_more->ReadUntil("\r\n\r\n");
  EXPECT_NE(refused.find("HTTP/1.1 429"), std::string::npos)
      << "the 1001st watch: \"" << refused << "\"\n" << informerd.Log().substr(0, 4000);
  one_more.reset();

  // Every watch is live: one write reaches all of them.
  CreateConfigMap(ns, "reaches-all", {});
  for (int i = 0; i < kWatches; ++i) {
    std::string got = watches[static_cast<size_t>(i)]->ReadUntil("reaches-all");
    ASSERT_NE(got.find("reaches-all"), std::string::npos) << "watch " << i;
  }
  const long rss_after_event = ProcStatus(informerd.pid(), "VmRSS");

  std::cout << "informerd with 1 HTTPS watch: " << threads_one << " threads, RSS " << rss_one
            << " KiB; with " << kWatches << ": " << threads_all << " threads, RSS " << rss_all
            << " KiB (" << (rss_all - rss_one) / (kWatches - 1)
            << " KiB per watch); after one event to all: RSS " << rss_after_event << " KiB\n";
  // No thread per watch: at most a few more (gRPC's executor may grow).
  EXPECT_LE(threads_all - threads_one, 8) << threads_one << " -> " << threads_all;
  // Bounded memory per watch: TLS session, connection buffer, the gRPC
  // in-process stream and the WatchStream; measured ~KB each.
  EXPECT_LT((rss_all - rss_one) / (kWatches - 1), 128);
  watches.clear();
  SSL_CTX_free(context);
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

}  // namespace
}  // namespace informerd::testing
