#include "server/auth/bearer_token.h"

#include <gtest/gtest.h>

namespace informerd::auth {
namespace {

absl::StatusCode CodeOf(std::vector<std::string_view> values) {
  return BearerTokenFromMetadata(values).status().code();
}

TEST(BearerTokenTest, AcceptsBearerInAnyCase) {
  EXPECT_EQ(*BearerTokenFromMetadata({"Bearer abc.def-1"}), "abc.def-1");
  EXPECT_EQ(*BearerTokenFromMetadata({"bearer abc"}), "abc");
  EXPECT_EQ(*BearerTokenFromMetadata({"BEARER   abc"}), "abc");
}

TEST(BearerTokenTest, MissingOrRepeatedIsUnauthenticated) {
  EXPECT_EQ(CodeOf({}), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(CodeOf({"Bearer a", "Bearer b"}), absl::StatusCode::kUnauthenticated);
}

TEST(BearerTokenTest, MalformedIsUnauthenticated) {
  for (std::string_view value :
       {"", "Bearer", "Bearer ", "Bearer    ", "Bearerabc", "Basic dXNlcjpwdw==", "Bearer a b",
        "Bearer a\tb", "Bearer a\nb", "Bearer \x7f", " Bearer abc", "Bearer\tabc"}) {
    EXPECT_EQ(CodeOf({value}), absl::StatusCode::kUnauthenticated) << "\"" << value << "\"";
  }
}

TEST(BearerTokenTest, ErrorsDoNotEchoTheToken) {
  absl::StatusOr<std::string> token = BearerTokenFromMetadata({"Bearer secret value"});
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().message().find("secret"), std::string_view::npos);
  EXPECT_NE(token.status().message().find("Bearer <token>"), std::string_view::npos);
}

TEST(BearerTokenTest, BoundsTheTokenLength) {
  std::string longest = "Bearer " + std::string(kMaxBearerTokenBytes, 'a');
  EXPECT_TRUE(BearerTokenFromMetadata({longest}).ok());
  EXPECT_EQ(CodeOf({longest + "a"}), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(CodeOf({longest + std::string(1 << 20, 'a')}), absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace informerd::auth
