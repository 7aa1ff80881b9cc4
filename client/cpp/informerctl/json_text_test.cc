#include "client/cpp/informerctl/json_text.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

TEST(JsonTextTest, EscapesStrings) {
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
  EXPECT_EQ(JsonString("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
}

TEST(JsonTextTest, ObjectJsonIsVerbatimWhenPresent) {
  informerd::v1::Object object;
  object.set_json(R"({"kind":"ConfigMap","metadata":{"name":"x"}})");
  object.set_name("ignored");
  EXPECT_EQ(ObjectJson(object), object.json());
}

TEST(JsonTextTest, ObjectJsonFallsBackToMetadata) {
  informerd::v1::Object object;
  object.set_namespace_("ns");
  object.set_name("x\"y");
  object.set_resource_version("7");
  EXPECT_EQ(ObjectJson(object),
            R"({"metadata":{"name":"x\"y","namespace":"ns","resourceVersion":"7"}})");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
