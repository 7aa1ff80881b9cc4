#include "server/config/config.h"

#include <gtest/gtest.h>

namespace informerd::config {
namespace {

TEST(Config, ParsesEveryKey) {
  absl::StatusOr<Config> config = ParseConfig(R"(
resources:
  - resource: pods
    fieldIndexes: [spec.nodeName]
    stripManagedFields: false
  - resource: deployments
    group: apps
    version: v1
    namespace: prod
    labelSelector: team=a
history:
  windowSeconds: 30
  minEvents: 10
  maxEvents: 1000
readWaitSeconds: 5
bookmarkIntervalSeconds: 30
maxPageBytes: 100000
)", "test.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->resources.size(), 2u);
  EXPECT_EQ(config->resources[0].field_indexes, std::vector<std::string>{"spec.nodeName"});
  EXPECT_FALSE(config->resources[0].strip_managed_fields);
  EXPECT_EQ(config->resources[1].group, "apps");
  EXPECT_EQ(config->resources[1].namespace_, "prod");
  EXPECT_EQ(config->history.max_events, 1000u);
  EXPECT_EQ(config->read_wait, absl::Seconds(5));
}

TEST(Config, ErrorsNameTheFileKeyAndReason) {
  struct Case {
    const char* yaml;
    const char* message;
  } cases[] = {
      {"resourcez: []", "config t.yaml: resourcez: unknown key"},
      {"resources: [{resource: pods, fieldIndex: [a]}]", "resources[0].fieldIndex: unknown key"},
      {"resources: [{group: apps}]", "resources[0].resource: required"},
      {"resources: [{resource: pods, fieldIndexes: a}]", "resources[0].fieldIndexes: must be a list of strings"},
      {"resources: [{resource: pods, stripManagedFields: maybe}]", "must be true or false"},
      {"history: {minEvents: 0}", "history.minEvents: must be between 1 and"},
      {"history: {minEvents: 10, maxEvents: 5}", "history.minEvents: must not exceed"},
      {"readWaitSeconds: soon", "readWaitSeconds: must be a whole number"},
      {"resources: [pods", "config t.yaml: line"},
      {"", "empty file"},
      {"- a", "must be a mapping"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Config> config = ParseConfig(c.yaml, "t.yaml");
    ASSERT_FALSE(config.ok()) << c.yaml;
    EXPECT_NE(config.status().message().find(c.message), absl::string_view::npos)
        << config.status() << " for " << c.yaml;
  }
}

TEST(Config, ResourceList) {
  absl::StatusOr<std::vector<ResourceConfig>> list =
      ParseResourceList("configmaps, deployments.apps,csr.certificates.k8s.io");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[1].group, "apps");
  EXPECT_EQ((*list)[2].resource, "csr");
  EXPECT_EQ((*list)[2].group, "certificates.k8s.io");
  EXPECT_FALSE(ParseResourceList("pods.").ok());
  EXPECT_FALSE(ParseResourceList(".apps").ok());
}

}  // namespace
}  // namespace informerd::config
