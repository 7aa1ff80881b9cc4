#include "server/kube/list_stream_decoder.h"

#include <gtest/gtest.h>

#include <random>

#include "rapidjson/document.h"

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

Result Decode(std::string_view body, size_t chunk_size) {
  ListStreamDecoder decoder;
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

TEST(ListStreamDecoder, RandomBytesNeverCrash) {
  std::mt19937 random(7);
  const std::string alphabet = "{}[]\",:\\ abitems";
  for (int i = 0; i < 5000; ++i) {
    std::string body;
    int length = static_cast<int>(random() % 60);
    for (int j = 0; j < length; ++j) body.push_back(alphabet[random() % alphabet.size()]);
    (void)Decode(body, 1 + random() % 7);
  }
}

}  // namespace
}  // namespace informerd::kube
