// --log-level=debug makes the binary say what it does: a line per RPC (its
// method, peer and status) and a line per upstream watch event. At the
// default level neither appears.
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Observed {
  std::string log;
  std::string ns;
};

// Starts informerd at `level`, Lists ConfigMaps of a new namespace, creates
// one there and waits until a Watch delivers it, then stops informerd.
Observed ListAndWatchAt(const std::string& level) {
  Observed run;
  run.ns = CreateTestNamespace("debug-log");
  int grpc_port = FreeLoopbackPort();
  int http_port = FreeLoopbackPort();
  InformerdProcess informerd(
      {"--resources=configmaps", absl::StrCat("--grpc-address=127.0.0.1:", grpc_port),
       absl::StrCat("--http-address=127.0.0.1:", http_port), "--log-level=" + level},
      "debug-log-" + level + ".log");
  EXPECT_TRUE(Eventually([&] { return HttpGet(http_port, "/readyz") == "200 ok\n"; },
                         absl::Seconds(30)))
      << informerd.Log();
  auto stub = v1::Cache::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", grpc_port),
                                                     grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    v1::ListRequest request;
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(run.ns);
    v1::ListResponse response;
    EXPECT_TRUE(stub->List(&context, request, &response).ok());
  }
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  v1::WatchRequest watch;
  watch.mutable_resource()->set_resource("configmaps");
  watch.set_namespace_(run.ns);
  auto reader = stub->Watch(&context, watch);
  CreateConfigMap(run.ns, "seen", {});
  v1::WatchEvent event;
  EXPECT_TRUE(reader->Read(&event));
  context.TryCancel();
  reader->Finish();
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
  run.log = informerd.Log();
  return run;
}

TEST(DebugLog, LogsEachRequestAndEachUpstreamEvent) {
  Observed run = ListAndWatchAt("debug");
  EXPECT_THAT(run.log, HasSubstr("/informerd.v1.Cache/List from ipv4:127.0.0.1:"));
  EXPECT_THAT(run.log, HasSubstr(": OK after "));
  EXPECT_THAT(run.log, HasSubstr("/informerd.v1.Cache/Watch from ipv4:127.0.0.1:"));
  EXPECT_THAT(run.log, HasSubstr(absl::StrCat("watch configmaps: ADDED ", run.ns, "/seen at ")));
}

TEST(DebugLog, InfoLevelLogsNeither) {
  Observed run = ListAndWatchAt("info");
  EXPECT_THAT(run.log, Not(HasSubstr("/informerd.v1.Cache/List from")));
  EXPECT_THAT(run.log, Not(HasSubstr(absl::StrCat(run.ns, "/seen at "))));
}

}  // namespace
}  // namespace informerd::testing
