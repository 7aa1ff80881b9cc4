#include "server/json/json_parse.h"

#include <pthread.h>

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace informerd::json {
namespace {

using ::testing::HasSubstr;

// `depth` arrays, one inside the other, around a value.
std::string Nested(int depth) {
  return std::string(depth, '[') + "1" + std::string(depth, ']');
}

TEST(JsonParseTest, ParsesADocumentInPlaceAndCopied) {
  std::string text = R"({"a":[1,{"b":"c"}],"d":null})";
  rapidjson::Document copied;
  ASSERT_TRUE(Parse(text, &copied).ok());
  rapidjson::Document in_place;
  ASSERT_TRUE(ParseInsitu(text.data(), &in_place).ok());
  EXPECT_TRUE(copied == in_place);
  EXPECT_STREQ(in_place["a"][1]["b"].GetString(), "c");
}

TEST(JsonParseTest, ParseNeedsNoTerminatingNul) {
  const std::string text = R"({"a":1}garbage)";
  rapidjson::Document document;
  ASSERT_TRUE(Parse(std::string_view(text).substr(0, 7), &document).ok());
  EXPECT_EQ(document["a"].GetInt(), 1);
}

TEST(JsonParseTest, InvalidJsonNamesTheOffsetAndLeavesNull) {
  std::string text = R"({"a":})";
  rapidjson::Document document;
  absl::Status status = ParseInsitu(text.data(), &document);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("offset 5"));
  EXPECT_TRUE(document.IsNull());
}

TEST(JsonParseTest, TheDepthLimitIsInclusive) {
  std::string at_limit = Nested(kMaxJsonDepth);
  rapidjson::Document document;
  EXPECT_TRUE(ParseInsitu(at_limit.data(), &document).ok());
  std::string past = Nested(kMaxJsonDepth + 1);
  absl::Status status = Parse(past, &document);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("nested deeper than 20000 levels at offset 20001"));
  EXPECT_TRUE(document.IsNull());
}

TEST(JsonParseTest, AMillionLevelsAreRefusedWithoutExhaustingTheStack) {
  // What a lying upstream sent (issue 26): RapidJSON's own Parse recurses
  // once per level and overflowed the stack.
  std::string text = R"({"metadata":{"name":"a"},"spec":)" + Nested(1000000) + "}";
  rapidjson::Document document;
  absl::Status status = ParseInsitu(text.data(), &document);
  EXPECT_THAT(status.message(), HasSubstr("nested deeper than"));
  status = Parse(std::string(R"({"a":)") + std::string(1000000, '['), &document);
  EXPECT_THAT(status.message(), HasSubstr("nested deeper than"));
}

// Parses and writes a document at the limit on a thread with `stack_bytes`
// of stack: the recursion at the limit fits there.
void* ParseAndWriteAtTheLimit(void*) {
  std::string text = Nested(kMaxJsonDepth);
  rapidjson::Document document;
  if (!ParseInsitu(text.data(), &document).ok()) return nullptr;
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  document.Accept(writer);
  return out.GetSize() == text.size() ? &document : nullptr;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// The sanitizers' frames are larger: ASan needs 8 MiB, the default.
constexpr size_t kStackAtTheLimit = size_t{8} << 20;
#else
constexpr size_t kStackAtTheLimit = size_t{4} << 20;
#endif

TEST(JsonParseTest, ADocumentAtTheLimitFitsInFourMebibytesOfStack) {
  // Threads take glibc's default stack, RLIMIT_STACK (8 MiB on Debian and
  // in a container by default). Measured at the limit: under 2 MiB built
  // with -O2 (the image), under 4 MiB with -O0 (this test's fastbuild).
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackAtTheLimit);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, ParseAndWriteAtTheLimit, nullptr), 0);
  void* result = nullptr;
  pthread_join(thread, &result);
  pthread_attr_destroy(&attr);
  EXPECT_NE(result, nullptr);
}

}  // namespace
}  // namespace informerd::json
