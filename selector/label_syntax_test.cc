#include "selector/label_syntax.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace informerd::selector {
namespace {

TEST(LabelSyntaxTest, ValidKeys) {
  for (const std::string& key : std::vector<std::string>{
           "a", "A", "0", "app", "app.kubernetes.io/name", "a-b_c.d", "x/y",
           "k8s.io/Z9", "a1-b2.c3/n", std::string(63, 'k'),
           std::string(253, 'p') + "/n"}) {
    EXPECT_TRUE(ValidateLabelKey(key).ok()) << key;
  }
}

TEST(LabelSyntaxTest, InvalidKeys) {
  for (const std::string& key : std::vector<std::string>{
           "", "-a", "a-", "_a", "a.", "a b", "a/b/c", "/a", "a/",
           "Example.com/a", "ex_ample.com/a", "-ex.com/a", "ex..com/a",
           "ex.com-/a", "é", std::string(64, 'k'), std::string(254, 'p') + "/n",
           std::string("a\0b", 3)}) {
    const absl::Status status = ValidateLabelKey(key);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << key;
    EXPECT_FALSE(status.message().empty()) << key;
  }
}

TEST(LabelSyntaxTest, Values) {
  for (const std::string& value : std::vector<std::string>{
           "", "a", "Z", "9", "v1.2.3", "a-b_c.d", std::string(63, 'v')}) {
    EXPECT_TRUE(ValidateLabelValue(value).ok()) << value;
  }
  for (const std::string& value : std::vector<std::string>{
           "-a", "a-", ".a", "a/b", "a b", "a=b", std::string(64, 'v')}) {
    EXPECT_EQ(ValidateLabelValue(value).code(),
              absl::StatusCode::kInvalidArgument)
        << value;
  }
}

TEST(LabelSyntaxTest, MessagesNameThePart) {
  EXPECT_EQ(ValidateLabelKey(std::string(64, 'k')).message(),
            "name part must be no more than 63 characters");
  EXPECT_EQ(ValidateLabelKey("/a").message(), "prefix part must be non-empty");
  EXPECT_EQ(ValidateLabelKey("a/").message(), "name part must be non-empty");
}

}  // namespace
}  // namespace informerd::selector
