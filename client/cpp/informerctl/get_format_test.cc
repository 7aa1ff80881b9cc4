#include "client/cpp/informerctl/get_format.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

informerd::v1::Object MakeObject(const std::string& ns, const std::string& name,
                                 const std::string& version) {
  informerd::v1::Object object;
  object.set_namespace_(ns);
  object.set_name(name);
  object.set_resource_version(version);
  object.set_json("{\"metadata\":{\"name\":\"" + name + "\"}}");
  return object;
}

TEST(GetFormatTest, Table) {
  std::vector<informerd::v1::Object> objects = {MakeObject("ns", "a", "5"),
                                                MakeObject("other", "bb", "12")};
  EXPECT_EQ(FormatObjectTable(objects, /*with_namespace=*/false),
            "NAME   RESOURCE-VERSION\n"
            "a      5\n"
            "bb     12\n");
  EXPECT_EQ(FormatObjectTable(objects, /*with_namespace=*/true),
            "NAMESPACE   NAME   RESOURCE-VERSION\n"
            "ns          a      5\n"
            "other       bb     12\n");
}

TEST(GetFormatTest, ListJsonEmbedsObjectsVerbatim) {
  EXPECT_EQ(FormatListJson({MakeObject("ns", "a", "5"), MakeObject("ns", "b", "6")},
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

TEST(GetFormatTest, Names) {
  EXPECT_EQ(FormatObjectNames({MakeObject("ns", "foo", "1")}, "configmaps"),
            "configmaps/foo\n");
  EXPECT_EQ(FormatObjectNames({MakeObject("ns", "web", "1")}, "deployments.apps"),
            "deployments.apps/web\n");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
