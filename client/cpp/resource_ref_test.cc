#include "client/cpp/resource_ref.h"

#include "gtest/gtest.h"

namespace informerd {
namespace client {
namespace {

struct Expected {
  const char* input;
  const char* group;
  const char* version;
  const char* resource;
  bool group_explicit;
};

TEST(ParseResourceRefTest, AcceptsKubectlForms) {
  const Expected cases[] = {
      {"pods", "", "", "pods", false},
      {"ConfigMaps", "", "", "configmaps", false},
      {"deployments.apps", "apps", "", "deployments", true},
      {"deployments.v1.apps", "apps", "v1", "deployments", true},
      {"ingresses.networking.k8s.io", "networking.k8s.io", "", "ingresses",
       true},
      {"cronjobs.v1beta1.batch", "batch", "v1beta1", "cronjobs", true},
      {"/v1/pods", "", "v1", "pods", true},
      {"apps/v1/deployments", "apps", "v1", "deployments", true},
      {"po", "", "", "pods", true},
      {"deploy", "apps", "", "deployments", true},
      {"sts", "apps", "", "statefulsets", true},
  };
  for (const Expected& expected : cases) {
    absl::StatusOr<ResourceRef> ref = ParseResourceRef(expected.input);
    ASSERT_TRUE(ref.ok()) << expected.input << ": " << ref.status();
    EXPECT_EQ(ref->name.group(), expected.group) << expected.input;
    EXPECT_EQ(ref->name.version(), expected.version) << expected.input;
    EXPECT_EQ(ref->name.resource(), expected.resource) << expected.input;
    EXPECT_EQ(ref->group_explicit, expected.group_explicit) << expected.input;
  }
}

TEST(ParseResourceRefTest, TwoPartsAreResourceAndGroupEvenIfVersionLike) {
  absl::StatusOr<ResourceRef> ref = ParseResourceRef("widgets.v1");
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->name.group(), "v1");
  EXPECT_EQ(ref->name.version(), "");
}

TEST(ParseResourceRefTest, RejectsMalformedInputNamingIt) {
  const char* bad[] = {"",          "a/b",        "a/b/c/d",    "apps//deployments",
                       "pods.",     ".apps",      "po ds",      "/v1/",
                       "apps/x1/deployments",     "pods..apps", "-pods",
                       "apps/v1/deployments!"};
  for (const char* input : bad) {
    absl::StatusOr<ResourceRef> ref = ParseResourceRef(input);
    ASSERT_FALSE(ref.ok()) << input;
    EXPECT_EQ(ref.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(ref.status().message().find(std::string("\"") + input + "\""),
              absl::string_view::npos)
        << ref.status();
  }
}

}  // namespace
}  // namespace client
}  // namespace informerd
