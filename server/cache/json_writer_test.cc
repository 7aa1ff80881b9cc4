#include "server/cache/json_writer.h"

#include <string>

#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace informerd::cache {
namespace {

// What rapidjson::Writer<StringBuffer> and JsonWriter write for `value`.
std::pair<std::string, std::string> WriteBoth(const rapidjson::Value& value) {
  rapidjson::StringBuffer expected;
  rapidjson::Writer<rapidjson::StringBuffer> reference(expected);
  value.Accept(reference);
  rapidjson::StringBuffer actual;
  JsonWriter writer(actual);
  value.Accept(writer);
  return {std::string(expected.GetString(), expected.GetSize()),
          std::string(actual.GetString(), actual.GetSize())};
}

TEST(JsonWriterTest, EveryByteIsWrittenAsRapidJsonWritesIt) {
  rapidjson::Document document(rapidjson::kObjectType);
  auto& allocator = document.GetAllocator();
  for (int c = 0; c < 256; ++c) {
    const std::string text(1, static_cast<char>(c));
    // As a key, a short value, and inside a long value.
    const std::string long_text = std::string(20, 'a') + text + std::string(20, 'b');
    rapidjson::Value key(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
    rapidjson::Value values(rapidjson::kArrayType);
    values.PushBack(rapidjson::Value(text.data(), 1, allocator), allocator);
    values.PushBack(rapidjson::Value(long_text.data(),
                                     static_cast<rapidjson::SizeType>(long_text.size()), allocator),
                    allocator);
    document.AddMember(key, values, allocator);
  }
  auto [expected, actual] = WriteBoth(document);
  EXPECT_EQ(actual, expected);
}

TEST(JsonWriterTest, StringsOfEveryLengthAroundTheThreshold) {
  for (size_t length = 0; length <= 2 * JsonWriter::kVectorMinLength; ++length) {
    std::string text;
    for (size_t i = 0; i < length; ++i) text.push_back("a\"\\\n\x01\xc3\xa9z"[i % 8]);
    rapidjson::Document document;
    document.Parse(R"({"k":[1,true,null,{"x":"y"}]})");
    rapidjson::Value value(text.data(), static_cast<rapidjson::SizeType>(text.size()),
                           document.GetAllocator());
    document.AddMember("s", value, document.GetAllocator());
    auto [expected, actual] = WriteBoth(document);
    EXPECT_EQ(actual, expected) << "length " << length;
  }
}

}  // namespace
}  // namespace informerd::cache
