#include "client/cpp/informerctl/resource_lookup.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

informerd::v1::ListResourcesResponse Served() {
  informerd::v1::ListResourcesResponse served;
  auto add = [&](const char* group, const char* resource, bool namespaced) {
    informerd::v1::ResourceStatus* status = served.add_resources();
    status->mutable_resource()->set_group(group);
    status->mutable_resource()->set_version("v1");
    status->mutable_resource()->set_resource(resource);
    status->set_namespaced(namespaced);
  };
  add("apps", "deployments", true);
  add("", "pods", true);
  add("", "nodes", false);
  add("example.com", "widgets", true);
  add("other.io", "widgets", true);
  add("extra.io", "pods", true);
  return served;
}

client::ResourceRef Ref(const char* input) {
  return *client::ParseResourceRef(input);
}

TEST(ResolveResourceTest, BarePluralFindsItsGroupPreferringCore) {
  absl::StatusOr<informerd::v1::ResourceStatus> deployments =
      ResolveResource("deployments", Ref("deployments"), Served());
  ASSERT_TRUE(deployments.ok()) << deployments.status();
  EXPECT_EQ(deployments->resource().group(), "apps");

  absl::StatusOr<informerd::v1::ResourceStatus> pods =
      ResolveResource("pods", Ref("pods"), Served());
  ASSERT_TRUE(pods.ok()) << pods.status();
  EXPECT_EQ(pods->resource().group(), "");
}

TEST(ResolveResourceTest, ExplicitGroupAndVersionMustMatch) {
  EXPECT_EQ(ResolveResource("pods.extra.io", Ref("pods.extra.io"), Served())
                ->resource()
                .group(),
            "extra.io");
  EXPECT_TRUE(ResolveResource("x", Ref("apps/v1/deployments"), Served()).ok());
  absl::StatusOr<informerd::v1::ResourceStatus> wrong_version =
      ResolveResource("apps/v2/deployments", Ref("apps/v2/deployments"), Served());
  EXPECT_EQ(wrong_version.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(wrong_version.status().message(),
            "the server doesn't serve resource \"apps/v2/deployments\"");
}

TEST(ResolveResourceTest, AmbiguousPluralNamesTheCandidates) {
  absl::StatusOr<informerd::v1::ResourceStatus> widgets =
      ResolveResource("widgets", Ref("widgets"), Served());
  EXPECT_EQ(widgets.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(widgets.status().message(),
            "resource \"widgets\" is served by several groups; name one of: "
            "widgets.example.com, widgets.other.io");
}

TEST(ResourceNamesTest, DisplayNameAndApiVersion) {
  informerd::v1::ResourceName name;
  name.set_resource("pods");
  name.set_version("v1");
  EXPECT_EQ(ResourceDisplayName(name), "pods");
  EXPECT_EQ(ApiVersion(name), "v1");
  name.set_group("apps");
  name.set_resource("deployments");
  EXPECT_EQ(ResourceDisplayName(name), "deployments.apps");
  EXPECT_EQ(ApiVersion(name), "apps/v1");
}

TEST(RequestNamespaceTest, KubectlRules) {
  CommandLine line;
  EXPECT_EQ(RequestNamespace(line, /*namespaced=*/true), "default");
  EXPECT_EQ(RequestNamespace(line, /*namespaced=*/false), "");
  line.namespace_name = "prod";
  EXPECT_EQ(RequestNamespace(line, /*namespaced=*/true), "prod");
  EXPECT_EQ(RequestNamespace(line, /*namespaced=*/false), "");
  line.namespace_name.clear();
  line.all_namespaces = true;
  EXPECT_EQ(RequestNamespace(line, /*namespaced=*/true), "");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
