#include "server/admin/resource_collector.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "server/kube/rest_client.h"

namespace informerd::admin {
namespace {

// Two resources, one listed at version 42; the Reflectors are never started.
class ResourceCollectorTest : public ::testing::Test {
 protected:
  ResourceCollectorTest() {
    kube::ClusterConfig config;
    config.server = "https://127.0.0.1:1";
    client_ = *kube::RestClient::Create(config);
    for (const char* name : {"configmaps", "pods"}) {
      auto served = std::make_unique<service::ServedResource>();
      served->info.version = "v1";
      served->info.resource = name;
      served->informer = std::make_unique<informer::Informer>(informer::InformerOptions{});
      served->reflector = std::make_unique<kube::Reflector>(client_.get(), served->info,
                                                            kube::ReflectorOptions{},
                                                            served->informer.get());
      registry_.Add(std::move(served));
    }
    service::ServedResource* configmaps = registry_.all()[0];
    configmaps->informer->OnListStart();
    configmaps->informer->OnListEnd("42");
  }

  // name{resource="..."} -> value, for every sample of every family.
  std::map<std::string, double> Samples() {
    std::map<std::string, double> samples;
    for (const prometheus::MetricFamily& family : CollectResourceMetrics(registry_)) {
      for (const prometheus::ClientMetric& metric : family.metric) {
        const double value = family.type == prometheus::MetricType::Counter
                                 ? metric.counter.value
                                 : metric.gauge.value;
        samples[family.name + "{" + metric.label.at(0).value + "}"] = value;
      }
    }
    return samples;
  }

  std::unique_ptr<kube::RestClient> client_;
  service::ResourceRegistry registry_;
};

// Every family gets one sample per resource, whatever the number of
// families (builders must survive the family list growing).
TEST_F(ResourceCollectorTest, EveryFamilyHasASamplePerResource) {
  std::map<std::string, size_t> per_family;
  size_t families = 0;
  for (const prometheus::MetricFamily& family : CollectResourceMetrics(registry_)) {
    ++families;
    EXPECT_EQ(family.metric.size(), 2u) << family.name;
  }
  EXPECT_GT(families, 16u);
  const std::map<std::string, double> samples = Samples();
  EXPECT_EQ(samples.at("informerd_resource_synced{configmaps}"), 1);
  EXPECT_EQ(samples.at("informerd_resource_synced{pods}"), 0);
  EXPECT_EQ(samples.at("informerd_upstream_streaming_lists_broken_total{pods}"), 0);
  EXPECT_EQ(samples.at("informerd_upstream_lists_total{configmaps}"), 0);
}

}  // namespace
}  // namespace informerd::admin
