// What /metrics says about clients' lists: a watch that begins with the
// current state counts as one (a first list or a relist), a resumed watch
// does not, so that a count that grows after the first sync means clients
// relisted.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

class MetricsTest : public ::testing::Test {
 protected:
  MetricsTest()
      : ns_(CreateTestNamespace("metrics")),
        server_({config::ResourceConfig{.resource = "configmaps", .namespace_ = ns_}}) {}

  // informerd_watch_initial_states_total of configmaps; 0 before the first.
  double InitialStates() {
    for (const prometheus::MetricFamily& family : server_.metrics().registry().Collect()) {
      if (family.name != "informerd_watch_initial_states_total") continue;
      for (const prometheus::ClientMetric& metric : family.metric) {
        for (const prometheus::ClientMetric::Label& label : metric.label) {
          if (label.name == "resource" && label.value == "configmaps") {
            return metric.counter.value;
          }
        }
      }
    }
    return 0;
  }

  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> Watch(grpc::ClientContext* context,
                                                            const std::string& version,
                                                            bool send_initial_events) {
    v1::WatchRequest request;
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(ns_);
    request.set_resource_version(version);
    request.set_send_initial_events(send_initial_events);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return server_.stub().Watch(context, request);
  }

  std::string ns_;
  InProcessServer server_;
};

TEST_F(MetricsTest, InitialStatesCountListsAndRelistsButNotResumes) {
  // The server synced before "a" existed: the state must include it, or
  // the resumed watch below would see it instead of "b".
  const std::string a = CreateConfigMap(ns_, "a", {});
  server_.WaitSynced();
  server_.WaitForVersion("configmaps", a);
  EXPECT_EQ(InitialStates(), 0);

  // A WatchList: the state, its end bookmark, the version to resume from.
  grpc::ClientContext list_context;
  auto list = Watch(&list_context, "", true);
  v1::WatchEvent event;
  std::string resume;
  while (resume.empty() && list->Read(&event)) {
    if (event.initial_events_end()) resume = event.resource_version();
  }
  ASSERT_FALSE(resume.empty()) << "no end of the initial events";
  EXPECT_EQ(InitialStates(), 1);

  // Resumed from that version: the next change, no state.
  grpc::ClientContext resume_context;
  auto resumed = Watch(&resume_context, resume, false);
  std::string created = CreateConfigMap(ns_, "b", {});
  ASSERT_TRUE(resumed->Read(&event));
  EXPECT_EQ(event.resource_version(), created);
  EXPECT_EQ(InitialStates(), 1);

  // resource_version "0", as the apiserver: the state as ADDED events.
  grpc::ClientContext legacy_context;
  auto legacy = Watch(&legacy_context, "0", false);
  ASSERT_TRUE(legacy->Read(&event));
  EXPECT_EQ(event.type(), v1::WatchEvent::ADDED);
  EXPECT_EQ(InitialStates(), 2);

  for (grpc::ClientContext* context : {&list_context, &resume_context, &legacy_context}) {
    context->TryCancel();
  }
  list->Finish();
  resumed->Finish();
  legacy->Finish();
}

}  // namespace
}  // namespace informerd::testing
