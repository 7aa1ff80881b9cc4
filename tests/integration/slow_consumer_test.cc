// A watcher that stops reading must cost a position in the history, not a
// queue: it falls behind, is told so with RESOURCE_EXHAUSTED once its
// position is evicted, and watchers that keep reading lose nothing.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

TEST(SlowConsumer, FallsOffTheHistoryWithResourceExhaustedWhileOthersKeepUp) {
  std::string ns = CreateTestNamespace("slow");
  cache::HistoryLimits small{.window = absl::Seconds(1), .min_events = 10, .max_events = 20};
  InProcessServer server({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns}},
                         small);
  server.WaitSynced();

  // A fixed, small flow-control window: without it the client transport
  // would keep accepting (and buffering) what its reader never reads.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 * 1024);
  auto slow_stub = v1::Cache::NewStub(grpc::CreateCustomChannel(
      absl::StrCat("127.0.0.1:", server.port()), grpc::InsecureChannelCredentials(), args));
  auto open = [&](v1::Cache::Stub& stub, grpc::ClientContext* context) {
    v1::WatchRequest request;
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(ns);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    return stub.Watch(context, request);
  };
  grpc::ClientContext slow_context, fast_context;
  auto slow = open(*slow_stub, &slow_context);
  auto fast = open(server.stub(), &fast_context);

  // ~100 KB objects: gRPC's flow-control window fills after a few events,
  // so the server stops writing to the slow watcher while 60 events arrive
  // and the 20-event history moves past it.
  std::string big(100 * 1024, 'x');
  std::vector<std::string> versions;
  for (int i = 0; i < 60; ++i) {
    versions.push_back(CreateConfigMap(ns, absl::StrCat("big-", i), {}, big));
    v1::WatchEvent event;
    ASSERT_TRUE(fast->Read(&event)) << "the fast watcher was cut off at event " << i;
    EXPECT_EQ(event.resource_version(), versions.back());
  }

  v1::WatchEvent event;
  int delivered = 0;
  while (slow->Read(&event)) ++delivered;
  grpc::Status status = slow->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_NE(status.error_message().find("fell behind"), std::string::npos);
  EXPECT_LT(delivered, 60);

  fast_context.TryCancel();
  fast->Finish();
}

}  // namespace
}  // namespace informerd::testing
