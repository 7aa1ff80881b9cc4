#include "client/cpp/informerctl/get_format.h"

#include "client/cpp/test_objects.h"
#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

using client::MakeTestObject;

informerd::v1::ResourceStatus Status(const std::string& group,
                                     const std::string& resource,
                                     const std::string& kind) {
  informerd::v1::ResourceStatus status;
  status.mutable_resource()->set_group(group);
  status.mutable_resource()->set_resource(resource);
  status.set_kind(kind);
  return status;
}

TEST(GetFormatTest, TableOfTheTypesColumns) {
  std::vector<informerd::v1::Object> objects = {MakeTestObject("ns", "a", "5"),
                                                MakeTestObject("other", "bb", "12")};
  objects[1].set_json(
      R"({"metadata":{"name":"bb","creationTimestamp":"2026-01-02T10:00:00Z"},)"
      R"("data":{"k":"v"}})");
  TableOptions options;
  options.now = absl::FromUnixSeconds(1767348005);  // 2026-01-02T10:00:05Z
  informerd::v1::ResourceName configmaps = Status("", "configmaps", "ConfigMap").resource();
  EXPECT_EQ(FormatObjectTable(configmaps, objects, options),
            "NAME   DATA   AGE\n"
            "a      0      <unknown>\n"
            "bb     1      5s\n");
  options.with_namespace = true;
  EXPECT_EQ(FormatObjectTable(configmaps, objects, options),
            "NAMESPACE   NAME   DATA   AGE\n"
            "ns          a      0      <unknown>\n"
            "other       bb     1      5s\n");
}

TEST(GetFormatTest, ListJsonEmbedsObjectsVerbatim) {
  EXPECT_EQ(FormatListJson({MakeTestObject("ns", "a", "5"), MakeTestObject("ns", "b", "6")},
                           "9"),
            R"({"apiVersion":"v1","kind":"List","items":[)"
            R"({"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],)"
            R"("metadata":{"resourceVersion":"9"}})"
            "\n");
  EXPECT_EQ(FormatListJson({}, "3"),
            R"({"apiVersion":"v1","kind":"List","items":[],)"
            R"("metadata":{"resourceVersion":"3"}})"
            "\n");
}

TEST(GetFormatTest, Yaml) {
  absl::StatusOr<std::string> one = FormatObjectYaml(MakeTestObject("ns", "a", "5"));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(*one, "metadata:\n  name: a\n");
  absl::StatusOr<std::string> list =
      FormatListYaml({MakeTestObject("ns", "a", "5")}, "9");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(*list,
            "apiVersion: v1\n"
            "items:\n"
            "  - metadata:\n"
            "      name: a\n"
            "kind: List\n"
            "metadata:\n"
            "  resourceVersion: \"9\"\n");
  informerd::v1::Object broken = MakeTestObject("ns", "a", "5");
  broken.set_json("{");
  EXPECT_EQ(FormatObjectYaml(broken).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GetFormatTest, NamesAreKindAndGroupAsKubectlPrintsThem) {
  EXPECT_EQ(FormatObjectNames({MakeTestObject("ns", "foo", "1")},
                              Status("", "configmaps", "ConfigMap")),
            "configmap/foo\n");
  EXPECT_EQ(FormatObjectNames({MakeTestObject("ns", "web", "1")},
                              Status("apps", "deployments", "Deployment")),
            "deployment.apps/web\n");
  EXPECT_EQ(FormatObjectNames({MakeTestObject("ns", "x", "1")},
                              Status("example.com", "widgets", "")),
            "widgets.example.com/x\n");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
