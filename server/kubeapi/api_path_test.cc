#include "server/kubeapi/api_path.h"

#include <gtest/gtest.h>

namespace informerd::kubeapi {
namespace {

TEST(ApiPath, CoreAndGroupsClusterWideAndPerNamespace) {
  std::optional<ApiPath> pods = ParseApiPath("/api/v1/pods");
  ASSERT_TRUE(pods.has_value());
  EXPECT_EQ(pods->group, "");
  EXPECT_EQ(pods->version, "v1");
  EXPECT_EQ(pods->resource, "pods");
  EXPECT_EQ(pods->ns, "");
  EXPECT_EQ(pods->name, "");

  std::optional<ApiPath> one = ParseApiPath("/apis/apps/v1/namespaces/web/deployments/front");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->group, "apps");
  EXPECT_EQ(one->ns, "web");
  EXPECT_EQ(one->resource, "deployments");
  EXPECT_EQ(one->name, "front");
  EXPECT_EQ(one->subresource, "");

  std::optional<ApiPath> sub = ParseApiPath("/api/v1/namespaces/web/pods/p/log");
  ASSERT_TRUE(sub.has_value());
  EXPECT_EQ(sub->subresource, "log");
  EXPECT_EQ(ParseApiPath("/api/v1/namespaces/web/pods/")->resource, "pods");
}

TEST(ApiPath, NamespacesAreTheirOwnResource) {
  std::optional<ApiPath> ns = ParseApiPath("/api/v1/namespaces/web");
  ASSERT_TRUE(ns.has_value());
  EXPECT_EQ(ns->resource, "namespaces");
  EXPECT_EQ(ns->name, "web");
  EXPECT_EQ(ns->ns, "");
  std::optional<ApiPath> status = ParseApiPath("/api/v1/namespaces/web/status");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->resource, "namespaces");
  EXPECT_EQ(status->subresource, "status");
  EXPECT_EQ(ParseApiPath("/api/v1/namespaces")->resource, "namespaces");
}

TEST(ApiPath, DiscoveryAndOtherPathsAreNotResourceRequests) {
  for (const char* path : {"/", "/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1",
                           "/version", "/openapi/v3", "/healthz", "/api/v1/watch/pods",
                           "/api/v1/namespaces/a/pods/p/log/more", "/api//pods", "api/v1/pods",
                           "/api/v1/namespaces/a/services/s/proxy/x"}) {
    EXPECT_FALSE(ParseApiPath(path).has_value()) << path;
  }
}

}  // namespace
}  // namespace informerd::kubeapi
