// The informerd binary configured with a custom resource whose CRD is not
// installed yet: it waits (not ready, requests UNAVAILABLE), and serves the
// resource like a built-in type once the CRD appears.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

std::string Readyz(int port) { return HttpGet(port, "/readyz"); }

TEST(CrdAppears, PendingResourceIsServedOnceItsCrdIsInstalled) {
  std::string group = absl::StrCat("late", absl::ToUnixMicros(absl::Now()) % 100000000,
                                   ".test.informerd.io");
  int grpc_port = FreeLoopbackPort();
  int http_port = FreeLoopbackPort();
  InformerdProcess informerd({absl::StrCat("--resources=configmaps,gadgets.", group),
                              absl::StrCat("--grpc-address=127.0.0.1:", grpc_port),
                              absl::StrCat("--http-address=127.0.0.1:", http_port)},
                             "informerd.log");

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

  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

}  // namespace
}  // namespace informerd::testing
