#include "client/cpp/informerctl/get_format.h"

#include "client/cpp/test_objects.h"
#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

using client::MakeTestObject;

TEST(GetFormatTest, Table) {
  std::vector<informerd::v1::Object> objects = {MakeTestObject("ns", "a", "5"),
                                                MakeTestObject("other", "bb", "12")};
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

TEST(GetFormatTest, Names) {
  EXPECT_EQ(FormatObjectNames({MakeTestObject("ns", "foo", "1")}, "configmaps"),
            "configmaps/foo\n");
  EXPECT_EQ(FormatObjectNames({MakeTestObject("ns", "web", "1")}, "deployments.apps"),
            "deployments.apps/web\n");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
