#include "server/service/served_resource.h"

#include <gtest/gtest.h>

namespace informerd::service {
namespace {

std::unique_ptr<ServedResource> Served(const std::string& group, const std::string& resource) {
  auto served = std::make_unique<ServedResource>();
  served->info = {group, "v1", resource, "Kind", true, {"list", "watch"}};
  served->informer = std::make_unique<informer::Informer>(informer::InformerOptions{});
  return served;
}

v1::ResourceName Name(const std::string& group, const std::string& resource,
                      const std::string& version = "") {
  v1::ResourceName name;
  name.set_group(group);
  name.set_resource(resource);
  name.set_version(version);
  return name;
}

TEST(ResourceRegistry, FindsServedResourcesAndKeepsTheOthersQuiet) {
  ResourceRegistry registry;
  registry.Add(Served("", "configmaps"));
  registry.Add(Served("apps", "deployments"));
  EXPECT_EQ((*registry.Find(Name("apps", "deployments")))->DisplayName(), "deployments.apps");
  absl::StatusOr<ServedResource*> missing = registry.Find(Name("", "pods"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "resource pods is not served");
  EXPECT_EQ(registry.Find(Name("", "configmaps", "v2")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Find(Name("", "")).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Find(Name(std::string(254, 'g'), "pods")).status().message(),
            "resource.group: longer than 253 characters");
  EXPECT_EQ(registry.Find(Name("", "configmaps", std::string(64, 'v'))).status().message(),
            "resource.version: longer than 63 characters");
}

TEST(ResourceRegistry, PendingResourcesAreUnavailableUntilAdded) {
  ResourceRegistry registry;
  registry.AddPending("example.com", "widgets");
  absl::StatusOr<ServedResource*> pending = registry.Find(Name("example.com", "widgets"));
  EXPECT_EQ(pending.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(pending.status().message().find("CustomResourceDefinition"), absl::string_view::npos);
  EXPECT_EQ(registry.pending(), std::vector<std::string>{"widgets.example.com"});
  EXPECT_FALSE(registry.AllSynced());

  registry.Add(Served("example.com", "widgets"));
  EXPECT_TRUE(registry.pending().empty());
  EXPECT_TRUE(registry.Find(Name("example.com", "widgets")).ok());
  EXPECT_FALSE(registry.AllSynced());  // Added, not yet listed.
  registry.all()[0]->informer->OnListStart();
  registry.all()[0]->informer->OnListEnd("5");
  EXPECT_TRUE(registry.AllSynced());
}

TEST(ResourceRegistry, SignalsReadyOnceWhenNothingIsPendingAndEverythingSynced) {
  ResourceRegistry registry;
  int ready = 0;
  registry.OnReady([&] { ++ready; });
  registry.Add(Served("", "configmaps"));
  registry.AddPending("example.com", "widgets");
  registry.all()[0]->informer->OnListStart();
  registry.all()[0]->informer->OnListEnd("5");
  EXPECT_EQ(ready, 0);  // widgets still pending

  registry.Add(Served("example.com", "widgets"));
  EXPECT_EQ(ready, 0);  // added, not yet listed
  registry.all()[1]->informer->OnListStart();
  registry.all()[1]->informer->OnListEnd("7");
  EXPECT_EQ(ready, 1);

  registry.all()[1]->informer->OnListStart();  // a relist signals nothing more
  registry.all()[1]->informer->OnListEnd("9");
  EXPECT_EQ(ready, 1);
}

TEST(ResourceRegistry, ReadyAtOnceWhenAlreadySynced) {
  ResourceRegistry registry;
  registry.Add(Served("", "configmaps"));
  registry.all()[0]->informer->OnListStart();
  registry.all()[0]->informer->OnListEnd("5");
  int ready = 0;
  registry.OnReady([&] { ++ready; });
  EXPECT_EQ(ready, 1);
}

}  // namespace
}  // namespace informerd::service
