#include "server/service/continue_token.h"

#include <gtest/gtest.h>

namespace informerd::service {
namespace {

TEST(ContinueToken, RoundTrips) {
  ContinuePoint point{42, "ns/name:with:colons"};
  absl::StatusOr<ContinuePoint> decoded = DecodeContinueToken(EncodeContinueToken(point));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->resource_version, 42u);
  EXPECT_EQ(decoded->last_key, "ns/name:with:colons");
}

TEST(ContinueToken, RejectsForeignAndMalformedTokens) {
  for (const std::string& token :
       {std::string("!!"), std::string("aGVsbG8"), EncodeContinueToken({0, "k"}),
        std::string(kMaxContinueTokenBytes + 1, 'A'), EncodeContinueToken({1, ""})}) {
    absl::StatusOr<ContinuePoint> decoded = DecodeContinueToken(token);
    ASSERT_FALSE(decoded.ok()) << token;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(decoded.status().message()).rfind("continue_token: ", 0), 0u);
  }
}

TEST(ContinueToken, ArbitraryBytesNeverCrash) {
  std::string token;
  for (int i = 0; i < 5000; ++i) {
    token.push_back(static_cast<char>((i * 7919) % 256));
    (void)DecodeContinueToken(token.substr(i % 97));
  }
}

}  // namespace
}  // namespace informerd::service
