#include "client/cpp/informerctl/yaml_text.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

TEST(JsonToYamlTest, BlockStyleWithSortedKeys) {
  absl::StatusOr<std::string> yaml = JsonToYaml(
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","labels":{"z":"1","app":"web"}},)"
      R"("data":{"b":"x"}})");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(*yaml,
            "apiVersion: v1\n"
            "data:\n"
            "  b: x\n"
            "kind: ConfigMap\n"
            "metadata:\n"
            "  labels:\n"
            "    app: web\n"
            "    z: \"1\"\n"
            "  name: a\n");
}

TEST(JsonToYamlTest, QuotesStringsThatReadAsOtherTypes) {
  absl::StatusOr<std::string> yaml = JsonToYaml(
      R"({"y":"true","b":"No","c":"12","d":"2026-01-02T10:00:00Z","e":"",)"
      R"("f":"null","g":"x: y","h":"two\nlines","i":"1.5","j":"~"})");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(*yaml,
            "b: \"No\"\n"
            "c: \"12\"\n"
            "d: \"2026-01-02T10:00:00Z\"\n"
            "e: \"\"\n"
            "f: \"null\"\n"
            "g: \"x: y\"\n"
            "h: \"two\\nlines\"\n"
            "i: \"1.5\"\n"
            "j: \"~\"\n"
            "\"y\": \"true\"\n");
}

TEST(JsonToYamlTest, ScalarsAndEmptyCollections) {
  absl::StatusOr<std::string> yaml = JsonToYaml(
      R"({"nil":null,"t":true,"f":false,"i":-3,"big":12345678901234,"d":0.25,)"
      R"("list":[],"map":{},"items":[{"a":1},2]})");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(*yaml,
            "big: 12345678901234\n"
            "d: 0.25\n"
            "f: false\n"
            "i: -3\n"
            "items:\n"
            "  - a: 1\n"
            "  - 2\n"
            "list: []\n"
            "map: {}\n"
            "nil: null\n"
            "t: true\n");
}

TEST(JsonToYamlTest, BadJsonNamesTheOffset) {
  absl::StatusOr<std::string> yaml = JsonToYaml(R"({"a":)");
  ASSERT_FALSE(yaml.ok());
  EXPECT_EQ(yaml.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(yaml.status().message().find("offset 5"), std::string::npos)
      << yaml.status();
}

std::string Nested(int depth) {
  return std::string(depth - 1, '[') + "{}" + std::string(depth - 1, ']');
}

TEST(JsonToYamlTest, NestingUpToTheLimit) {
  absl::StatusOr<std::string> yaml = JsonToYaml(Nested(kMaxYamlDepth));
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->substr(0, 6), "-\n  -\n");
  EXPECT_EQ(JsonToYaml(Nested(kMaxYamlDepth + 1)).status(),
            absl::InvalidArgumentError("object JSON: nested deeper than 1000 levels, "
                                       "too deep for YAML; -o json prints it"));
  // A million levels neither parse nor emit recursively.
  EXPECT_EQ(JsonToYaml(Nested(1000000)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
