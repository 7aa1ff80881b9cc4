#include "server/admin/resource_collector.h"

#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "rapidjson/document.h"
#include "server/cache/test_objects.h"
#include "server/informer/informer.h"
#include "server/kube/reflector.h"
#include "server/kube/rest_client.h"

namespace informerd::admin {
namespace {

// Served resources whose informers the test feeds by hand; their
// reflectors are never started (the collector only reads their counters).
class ResourceCollectorTest : public ::testing::Test {
 protected:
  ResourceCollectorTest() {
    kube::ClusterConfig config;
    config.server = "http://127.0.0.1:1";
    absl::StatusOr<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(config);
    EXPECT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  // Adds `resource` with a history that keeps a single event, so that the
  // oldest version a watch may resume from moves with each event.
  // With `backfill`, the resource backfills its history from the client's
  // address, where nothing listens.
  informer::Informer* Add(const std::string& resource, bool backfill = false) {
    auto served = std::make_unique<service::ServedResource>();
    served->info = {"", "v1", resource, "Kind", true, {"list", "watch"}};
    informer::InformerOptions options;
    options.history.min_events = 1;
    options.history.max_events = 1;
    served->informer = std::make_unique<informer::Informer>(options);
    served->reflector = std::make_unique<kube::Reflector>(
        client_.get(), served->info, kube::ReflectorOptions{}, served->informer.get());
    informer::Informer* informer = served->informer.get();
    if (backfill) {
      service::HistoryBackfillOptions backfill_options;
      backfill_options.run_timeout = absl::Milliseconds(300);
      served->backfill = std::make_unique<service::HistoryBackfill>(
          client_.get(), served->info, kube::ReflectorOptions{}, options, informer,
          backfill_options);
    }
    registry_.Add(std::move(served));
    return informer;
  }

  static void Event(informer::Informer* informer, const std::string& name, uint64_t version) {
    rapidjson::Document doc;
    doc.Parse(cache::TestObjectJson({.name = name, .resource_version = version}).c_str());
    informer->OnWatchEvent(kube::WatchEventType::kModified, doc);
  }

  // The value of family `name` for `resource`; nullopt when absent.
  std::optional<double> Value(const std::string& name, const std::string& resource) {
    for (const prometheus::MetricFamily& family : CollectResourceMetrics(registry_)) {
      if (family.name != name) continue;
      for (const prometheus::ClientMetric& metric : family.metric) {
        if (metric.label.size() == 1 && metric.label[0].value == resource) {
          return family.type == prometheus::MetricType::Counter ? metric.counter.value
                                                                : metric.gauge.value;
        }
      }
    }
    return std::nullopt;
  }

  std::unique_ptr<kube::RestClient> client_;
  service::ResourceRegistry registry_;
};

TEST_F(ResourceCollectorTest, ResourceVersionsHistoryAndLag) {
  informer::Informer* configmaps = Add("configmaps");
  informer::Informer* secrets = Add("secrets");
  // Not synced: versions 0, no lag reported.
  EXPECT_EQ(Value("informerd_resource_version", "configmaps"), 0);
  EXPECT_EQ(Value("informerd_history_oldest_resource_version", "configmaps"), 0);
  EXPECT_EQ(Value("informerd_resource_version_lag", "configmaps"), std::nullopt);

  configmaps->OnListStart();
  configmaps->OnListEnd("100");
  secrets->OnListStart();
  secrets->OnListEnd("130");
  EXPECT_EQ(Value("informerd_resource_version", "configmaps"), 100);
  EXPECT_EQ(Value("informerd_history_oldest_resource_version", "configmaps"), 100);
  // secrets has seen 130: configmaps is 30 revisions behind it.
  EXPECT_EQ(Value("informerd_resource_version_lag", "configmaps"), 30);
  EXPECT_EQ(Value("informerd_resource_version_lag", "secrets"), 0);

  Event(configmaps, "a", 140);
  Event(configmaps, "a", 150);
  EXPECT_EQ(Value("informerd_resource_version", "configmaps"), 150);
  // The history keeps the event at 150 only: resuming from 140 is the oldest.
  EXPECT_EQ(Value("informerd_history_oldest_resource_version", "configmaps"), 140);
  EXPECT_EQ(Value("informerd_resource_version_lag", "configmaps"), 0);
  EXPECT_EQ(Value("informerd_resource_version_lag", "secrets"), 20);

  secrets->OnBookmark("160");
  EXPECT_EQ(Value("informerd_resource_version", "secrets"), 160);
  EXPECT_EQ(Value("informerd_history_oldest_resource_version", "secrets"), 130);
  EXPECT_EQ(Value("informerd_resource_version_lag", "configmaps"), 10);
  EXPECT_EQ(Value("informerd_resource_version_lag", "secrets"), 0);
}

TEST_F(ResourceCollectorTest, BackfillFailuresAreCounted) {
  informer::Informer* configmaps = Add("configmaps", /*backfill=*/true);
  Add("secrets");
  configmaps->OnListStart();
  configmaps->OnListEnd("100");
  EXPECT_EQ(Value("informerd_history_backfills_total", "configmaps"), 0);
  EXPECT_EQ(Value("informerd_history_backfill_failures_total", "configmaps"), 0);
  // Without a backfill the families still have the resource, at 0.
  EXPECT_EQ(Value("informerd_history_backfill_failures_total", "secrets"), 0);

  absl::Notification done;
  absl::Status answer;
  registry_.all()[0]->backfill->Request(50, [&](absl::Status status) {
    answer = std::move(status);
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(answer.code(), absl::StatusCode::kUnavailable) << answer;
  EXPECT_EQ(Value("informerd_history_backfills_total", "configmaps"), 1);
  EXPECT_EQ(Value("informerd_history_backfill_failures_total", "configmaps"), 1);
}

TEST_F(ResourceCollectorTest, EveryFamilyHasEveryResource) {
  for (int i = 0; i < 3; ++i) {
    informer::Informer* informer = Add("r" + std::to_string(i));
    informer->OnListStart();
    informer->OnListEnd(std::to_string(10 + i));
  }
  std::vector<prometheus::MetricFamily> families = CollectResourceMetrics(registry_);
  EXPECT_GE(families.size(), 20u);
  for (const prometheus::MetricFamily& family : families) {
    EXPECT_EQ(family.metric.size(), 3u) << family.name;
    EXPECT_FALSE(family.help.empty()) << family.name;
  }
}

}  // namespace
}  // namespace informerd::admin
