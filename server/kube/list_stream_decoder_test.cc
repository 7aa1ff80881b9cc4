#include "server/kube/list_stream_decoder.h"

#include <gtest/gtest.h>

#include <random>

#include "rapidjson/document.h"
#include "server/kube/member_cut_oracle.h"

namespace informerd::kube {
namespace {

constexpr char kList[] =
    R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42",)"
    R"("continue":"abc\"]}"},"items":[{"metadata":{"name":"a","annotations":{"x":"}]\\\"["}},)"
    R"("data":{"k":[1,[2],{"z":"{"}]}} , {"metadata":{"name":"b"}}]})";

struct Result {
  std::vector<std::string> items;
  absl::StatusOr<std::string> rest;
};

Result Decode(std::string_view body, size_t chunk_size,
              std::vector<std::string> erase_member = {}) {
  ListStreamDecoder decoder(ListStreamDecoder::kDefaultMaxItemBytes, std::move(erase_member));
  Result result{{}, std::string()};
  for (size_t i = 0; i < body.size(); i += chunk_size) {
    absl::Status status = decoder.Feed(body.substr(i, chunk_size), [&](std::string* item) {
      result.items.push_back(*item);
      return absl::OkStatus();
    });
    if (!status.ok()) {
      result.rest = status;
      return result;
    }
  }
  result.rest = decoder.Finish();
  return result;
}

TEST(ListStreamDecoder, SplitsItemsAtEveryChunkBoundary) {
  for (size_t chunk = 1; chunk <= sizeof(kList); ++chunk) {
    Result result = Decode(kList, chunk);
    ASSERT_TRUE(result.rest.ok()) << result.rest.status() << " chunk " << chunk;
    ASSERT_EQ(result.items.size(), 2u) << "chunk " << chunk;
    rapidjson::Document first;
    first.Parse(result.items[0].c_str());
    ASSERT_FALSE(first.HasParseError()) << result.items[0];
    EXPECT_STREQ(first["metadata"]["name"].GetString(), "a");
    EXPECT_STREQ(first["metadata"]["annotations"]["x"].GetString(), R"(}]\"[)");
    EXPECT_EQ(result.items[1], R"({"metadata":{"name":"b"}})");
    rapidjson::Document rest;
    rest.Parse(result.rest->c_str());
    ASSERT_FALSE(rest.HasParseError()) << *result.rest;
    EXPECT_STREQ(rest["metadata"]["resourceVersion"].GetString(), "42");
    EXPECT_STREQ(rest["metadata"]["continue"].GetString(), "abc\"]}");
    EXPECT_TRUE(rest["items"].IsArray());
    EXPECT_EQ(rest["items"].Size(), 0u);
  }
}

TEST(ListStreamDecoder, EmptyAndNullItems) {
  Result empty = Decode(R"({"metadata":{"resourceVersion":"1"},"items":[]})", 3);
  ASSERT_TRUE(empty.rest.ok());
  EXPECT_TRUE(empty.items.empty());
  Result null = Decode(R"({"metadata":{"resourceVersion":"1"},"items":null})", 5);
  ASSERT_TRUE(null.rest.ok());
  EXPECT_NE(null.rest->find("\"items\":null"), std::string::npos);
}

TEST(ListStreamDecoder, ItemsKeyNestedDeeperIsNotTheList) {
  Result result = Decode(R"({"metadata":{"items":[{"a":1}],"resourceVersion":"1"},"items":[{"b":2}]})", 4);
  ASSERT_TRUE(result.rest.ok()) << result.rest.status();
  ASSERT_EQ(result.items.size(), 1u);
  EXPECT_EQ(result.items[0], R"({"b":2})");
}

TEST(ListStreamDecoder, MalformedBodiesAreErrorsNotCrashes) {
  for (const char* body : {"[]", "{\"items\":[{\"a\":1}", "{}}", "{} x",
                           "{\"a\":\"unterminated", ""}) {
    Result result = Decode(body, 2);
    EXPECT_FALSE(result.rest.ok()) << body;
  }
}

TEST(ListStreamDecoder, ScalarElementsArePassedOnForTheCallerToReject) {
  Result result = Decode(R"({"items":[7, "x,]" ,{"a":1},null]})", 3);
  ASSERT_TRUE(result.rest.ok()) << result.rest.status();
  EXPECT_EQ(result.items, (std::vector<std::string>{"7", R"("x,]")", R"({"a":1})", "null"}));
}

TEST(ListStreamDecoder, OversizedItemIsRefused) {
  ListStreamDecoder decoder(/*max_item_bytes=*/16);
  absl::Status status = decoder.Feed(R"({"items":[{"name":"far too long for the cap"}]})",
                                     [](std::string*) { return absl::OkStatus(); });
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
}

struct EraseCase {
  std::string item;
  std::string expected;
};

const std::vector<std::string> kManagedFields = {"metadata", "managedFields"};

TEST(ListStreamDecoder, CutsTheNamedMemberAtEveryChunkBoundary) {
  const std::vector<EraseCase> cases = {
      // In the middle; the strings inside hold brackets and quotes.
      {R"({"metadata":{"name":"a","managedFields":[{"f:x":{"}\"]":1}}],"labels":{"k":"v"}},)"
       R"("spec":{"managedFields":1}})",
       R"({"metadata":{"name":"a","labels":{"k":"v"}},"spec":{"managedFields":1}})"},
      // Last, first, alone.
      {R"({"metadata":{"name":"b","managedFields":[]}})", R"({"metadata":{"name":"b"}})"},
      {R"({"metadata":{"managedFields":"x","name":"c"}})", R"({"metadata":{"name":"c"}})"},
      {R"({"metadata":{"managedFields":null}})", R"({"metadata":{}})"},
      // White space everywhere JSON allows it.
      {R"({ "metadata" : { "name" : "e" , "managedFields" : [ 1 , 2 ] } })",
       R"({ "metadata" : { "name" : "e" } })"},
      // Only the first member of each name counts, as FindMember finds it.
      {R"({"metadata":{"managedFields":1,"managedFields":2}})",
       R"({"metadata":{"managedFields":2}})"},
      {R"({"metadata":5,"x":{"metadata":{"managedFields":1}}})",
       R"({"metadata":5,"x":{"metadata":{"managedFields":1}}})"},
      {R"({"metadata":{"name":"f"},"metadata":{"managedFields":1}})",
       R"({"metadata":{"name":"f"},"metadata":{"managedFields":1}})"},
      // The same keys deeper down are other members.
      {R"({"spec":{"metadata":{"managedFields":1}},"metadata":{"name":"g"}})",
       R"({"spec":{"metadata":{"managedFields":1}},"metadata":{"name":"g"}})"},
      // A key with escapes may be the one: the item is left whole.
      {R"({"metad\u0061ta":{"managedFields":1},"metadata":{"managedFields":1}})",
       R"({"metad\u0061ta":{"managedFields":1},"metadata":{"managedFields":1}})"},
      // Brackets that do not pair up: left whole, for the parser to refuse.
      {R"({"metadata":{"managedFields":[}{]}})", R"({"metadata":{"managedFields":[}{]}})"},
      // Text between a key and its colon: not JSON, left whole.
      {R"({"metadata":{"managedFields" x :1}})", R"({"metadata":{"managedFields" x :1}})"},
      // Not an object: nothing to search.
      {R"([{"metadata":{"managedFields":1}}])", R"([{"metadata":{"managedFields":1}}])"},
  };
  std::string body = R"({"items":[)";
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i > 0) body += ",";
    body += cases[i].item;
  }
  body += R"(,"scalar"]})";
  for (size_t chunk = 1; chunk <= body.size(); ++chunk) {
    Result result = Decode(body, chunk, kManagedFields);
    ASSERT_TRUE(result.rest.ok()) << result.rest.status() << " chunk " << chunk;
    ASSERT_EQ(result.items.size(), cases.size() + 1) << "chunk " << chunk;
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(result.items[i], cases[i].expected) << "chunk " << chunk;
    }
    EXPECT_EQ(result.items.back(), R"("scalar")");
  }
}

TEST(ListStreamDecoder, CutItemsParseAsTheOriginalWithoutTheMember) {
  const std::string item =
      R"({"kind":"Pod","metadata":{"name":"p","labels":{"a":"b"},"managedFields":[)"
      R"({"manager":"kubectl","fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{}}}}}]},)"
      R"("spec":{"containers":[{"name":"c"}]}})";
  Result result = Decode(R"({"items":[)" + item + "]}", 7, kManagedFields);
  ASSERT_TRUE(result.rest.ok());
  ASSERT_EQ(result.items.size(), 1u);
  rapidjson::Document cut;
  cut.Parse(result.items[0].c_str());
  ASSERT_FALSE(cut.HasParseError()) << result.items[0];
  rapidjson::Document original;
  original.Parse(item.c_str());
  original["metadata"].EraseMember("managedFields");
  EXPECT_TRUE(cut == original) << result.items[0];
}

// Random objects whose keys come from a small set, so the path's keys turn
// up at every level, in every position and more than once.
class RandomJson {
 public:
  explicit RandomJson(uint32_t seed) : random_(seed) {}

  std::string Object(int depth) {
    std::string json = "{";
    const int members = static_cast<int>(random_() % 4) + (depth < 3 ? 1 : 0);
    for (int i = 0; i < members; ++i) {
      if (i > 0) json += Space() + "," + Space();
      json += "\"" + kKeys[random_() % kKeys.size()] + "\"" + Space() + ":" + Space() +
              Value(depth + 1);
    }
    return json + Space() + "}";
  }

 private:
  std::string Value(int depth) {
    // Objects often near the root, where the path runs.
    if (depth <= 3 && random_() % 2 == 0) return Object(depth);
    switch (depth > 4 ? random_() % 3 : random_() % 5) {
      case 0:
        return std::to_string(random_() % 100);
      case 1:
        return "\"s}]{[,:\"";
      case 2:
        return "null";
      case 3:
        return Object(depth);
      default: {
        std::string json = "[";
        const int elements = static_cast<int>(random_() % 3);
        for (int i = 0; i < elements; ++i) json += (i > 0 ? "," : "") + Value(depth + 1);
        return json + "]";
      }
    }
  }
  std::string Space() { return random_() % 4 == 0 ? " " : ""; }

  const std::vector<std::string> kKeys = {"metadata", "managedFields", "name"};
  std::mt19937 random_;
};

TEST(ListStreamDecoder, CutItemsAgreeWithRapidJsonOnRandomObjects) {
  RandomJson random(11);
  int cuts = 0;
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> originals;
    std::string body = R"({"items":[)";
    for (int i = 0; i < 40; ++i) {
      originals.push_back(random.Object(0));
      body += (i > 0 ? "," : "") + originals.back();
    }
    body += "]}";
    Result result = Decode(body, 1 + round % 97, kManagedFields);
    ASSERT_TRUE(result.rest.ok()) << body;
    ASSERT_EQ(result.items.size(), originals.size());
    for (size_t i = 0; i < originals.size(); ++i) {
      cuts += result.items[i].size() < originals[i].size() ? 1 : 0;
      rapidjson::Document cut;
      cut.Parse(result.items[i].c_str());
      ASSERT_FALSE(cut.HasParseError()) << originals[i] << "\n" << result.items[i];
      ASSERT_EQ(Written(cut), WrittenWithoutMember(originals[i], kManagedFields)) << originals[i];
    }
  }
  EXPECT_GT(cuts, 1000);  // the generator does reach the path
}

TEST(ListStreamDecoder, RandomBytesNeverCrash) {
  std::mt19937 random(7);
  const std::string alphabet = "{}[]\",:\\ abitems";
  for (int i = 0; i < 5000; ++i) {
    std::string body;
    int length = static_cast<int>(random() % 60);
    for (int j = 0; j < length; ++j) body.push_back(alphabet[random() % alphabet.size()]);
    (void)Decode(body, 1 + random() % 7);
    (void)Decode(body, 1 + random() % 7, {"a", "b"});
  }
}

}  // namespace
}  // namespace informerd::kube
