#include "server/cache/metadata_projection.h"

#include <functional>
#include <iterator>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "server/cache/json_writer.h"

namespace informerd::cache {
namespace {

// The same projection through a parse: the oracle.
std::string ParsedProjection(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  rapidjson::StringBuffer output;
  JsonWriter writer(output);
  writer.StartObject();
  for (const auto& member : document.GetObject()) {
    std::string name = member.name.GetString();
    if (name != "apiVersion" && name != "kind" && name != "metadata") continue;
    writer.Key(member.name.GetString(), member.name.GetStringLength());
    member.value.Accept(writer);
  }
  writer.EndObject();
  return output.GetString();
}

// `json` as JsonWriter writes it.
std::string Compact(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  EXPECT_FALSE(document.HasParseError()) << json;
  rapidjson::StringBuffer output;
  JsonWriter writer(output);
  document.Accept(writer);
  return output.GetString();
}

TEST(MetadataProjection, KeepsApiVersionKindAndMetadataInTheirOrder) {
  std::string pod = Compact(R"({"kind":"Pod","apiVersion":"v1",
      "metadata":{"name":"a","labels":{"k":"v}\"{"},"annotations":{"x":"[\\\"]"}},
      "spec":{"containers":[{"name":"c","args":["}",",","\""]}],"n":-1.5e3,"b":true,"z":null},
      "status":{}})");
  EXPECT_EQ(MetadataProjection(pod),
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"k":"v}\"{"},)"
            R"("annotations":{"x":"[\\\"]"}}})");
  EXPECT_EQ(MetadataProjection(pod), ParsedProjection(pod));
}

TEST(MetadataProjection, MembersAnywhereAndMissing) {
  for (const char* json : {R"({"spec":1,"metadata":{},"data":"kind","kind":"K"})",
                           R"({"data":{"metadata":{"name":"inner"}}})", R"({})",
                           R"({"metadata":{"a":[[],[{}],"]"]},"apiVersion":"apps/v1"})"}) {
    std::string compact = Compact(json);
    EXPECT_EQ(MetadataProjection(compact), ParsedProjection(compact)) << json;
  }
}

TEST(MetadataProjection, RandomObjectsMatchTheParsedProjection) {
  std::mt19937 random(7);
  const std::string atoms[] = {R"("s")", R"("a\"b")", R"("}]{[,:")", "1", "-2.5", "true",
                               "null", R"("\\")", R"("\u00e9")"};
  const std::string keys[] = {"kind", "apiVersion", "metadata", "spec", "k\\\"", "data"};
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    int choice = static_cast<int>(random() % 3);
    if (depth > 3 || choice == 0) return atoms[random() % std::size(atoms)];
    std::string out = choice == 1 ? "[" : "{";
    int n = static_cast<int>(random() % 4);
    for (int i = 0; i < n; ++i) {
      if (i) out += ",";
      if (choice == 2) out += "\"" + keys[random() % std::size(keys)] + "\":";
      out += value(depth + 1);
    }
    return out + (choice == 1 ? "]" : "}");
  };
  for (int round = 0; round < 2000; ++round) {
    std::string json = "{";
    int n = static_cast<int>(random() % 6);
    for (int i = 0; i < n; ++i) {
      if (i) json += ",";
      json += "\"" + keys[random() % std::size(keys)] + "\":" + value(0);
    }
    json += "}";
    std::string compact = Compact(json);
    ASSERT_EQ(MetadataProjection(compact), ParsedProjection(compact)) << compact;
  }
}

TEST(MetadataProjection, TruncatedTextStaysInBounds) {
  std::string pod = Compact(R"({"kind":"Pod","metadata":{"name":"a\"b"},"spec":{"x":[1,2]}})");
  for (size_t size = 0; size <= pod.size(); ++size) {
    std::string projected = MetadataProjection(std::string_view(pod.data(), size));
    EXPECT_LE(projected.size(), size + 2);
  }
}

}  // namespace
}  // namespace informerd::cache
