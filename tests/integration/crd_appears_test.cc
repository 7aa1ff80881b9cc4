// The informerd binary configured with a custom resource whose CRD is not
// installed yet: it waits (not ready, requests UNAVAILABLE), and serves the
// resource like a built-in type once the CRD appears.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <httplib.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

std::string Readyz(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  auto response = client.Get("/readyz");
  return response ? absl::StrCat(response->status, " ", response->body) : "no answer";
}

// Polls `condition` every 100 ms until it holds or `timeout` passes.
template <typename Condition>
bool Eventually(Condition condition, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return true;
}

TEST(CrdAppears, PendingResourceIsServedOnceItsCrdIsInstalled) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  std::string binary = absl::StrCat(srcdir, "/informerd/server/informerd");
  std::string group = absl::StrCat("late", absl::ToUnixMicros(absl::Now()) % 100000000,
                                   ".test.informerd.io");
  int grpc_port = FreePort();
  int http_port = FreePort();
  std::string log = absl::StrCat(std::getenv("TEST_TMPDIR"), "/informerd.log");
  pid_t pid = fork();
  if (pid == 0) {
    std::freopen(log.c_str(), "w", stderr);
    std::string resources = absl::StrCat("--resources=configmaps,gadgets.", group);
    std::string grpc = absl::StrCat("--grpc-address=127.0.0.1:", grpc_port);
    std::string http = absl::StrCat("--http-address=127.0.0.1:", http_port);
    execl(binary.c_str(), binary.c_str(), resources.c_str(), grpc.c_str(), http.c_str(), nullptr);
    _exit(127);
  }
  ASSERT_GT(pid, 0);

  ASSERT_TRUE(Eventually([&] { return Readyz(http_port).find("503") == 0 &&
                                      Readyz(http_port).find("gadgets." + group) != std::string::npos; },
                         absl::Seconds(30)))
      << Readyz(http_port);
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", grpc_port),
                                     grpc::InsecureChannelCredentials());
  auto stub = v1::Cache::NewStub(channel);
  v1::ListRequest request;
  request.mutable_resource()->set_group(group);
  request.mutable_resource()->set_resource("gadgets");
  {
    v1::ListResponse response;
    grpc::ClientContext context;
    grpc::Status status = stub->List(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  }

  std::string ns = CreateTestNamespace("crd-late");
  ApiSend("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", absl::StrCat(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.)", group, R"("},
    "spec": {"group": ")", group, R"(", "scope": "Namespaced",
      "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})"));
  EXPECT_TRUE(Eventually([&] { return Readyz(http_port) == "200 ok\n"; }, absl::Seconds(60)))
      << Readyz(http_port);
  ASSERT_TRUE(Eventually([&] {
    return AdminClient().Get(absl::StrCat("/apis/", group, "/v1"))->status == 200;
  }, absl::Seconds(30)));
  rapidjson::Document created = ApiSend(
      "POST", absl::StrCat("/apis/", group, "/v1/namespaces/", ns, "/gadgets"),
      absl::StrCat(R"({"apiVersion":")", group, R"(/v1","kind":"Gadget","metadata":{"name":"g1"}})"));
  request.set_namespace_(ns);
  request.set_resource_version(created["metadata"]["resourceVersion"].GetString());
  v1::ListResponse response;
  grpc::ClientContext context;
  grpc::Status status = stub->List(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.items_size(), 1);
  EXPECT_EQ(response.items(0).name(), "g1");

  kill(pid, SIGTERM);
  int wait_status = 0;
  waitpid(pid, &wait_status, 0);
  EXPECT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) << "see " << log;
}

}  // namespace
}  // namespace informerd::testing
