#include "server/service/continue_token.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"

namespace informerd::service {
namespace {

const ContinueScope kScope{"configmaps", "ns", "app=a", "", "", ""};

class ContinueTokenTest : public ::testing::Test {
 protected:
  absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
  ContinueTokens tokens_{std::string(32, 'k'), absl::Minutes(5), [this] { return now_; }};
  ContinuePoint point_{42, "ns/name:with:colons", now_};
};

TEST_F(ContinueTokenTest, RoundTrips) {
  absl::StatusOr<ContinuePoint> decoded = tokens_.Decode(kScope, tokens_.Encode(kScope, point_));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->resource_version, 42u);
  EXPECT_EQ(decoded->last_key, "ns/name:with:colons");
  EXPECT_EQ(decoded->snapshot_time, now_);
}

void ExpectRefused(const absl::StatusOr<ContinuePoint>& decoded, absl::StatusCode code,
                   const std::string& fragment) {
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), code) << decoded.status();
  EXPECT_EQ(std::string(decoded.status().message()).rfind("continue_token: ", 0), 0u);
  EXPECT_NE(std::string(decoded.status().message()).find(fragment), std::string::npos)
      << decoded.status();
}

TEST_F(ContinueTokenTest, RejectsMalformedAndHandMadeTokens) {
  // The unsigned format of earlier releases: base64 of "i1:version:key".
  std::string hand_made = absl::WebSafeBase64Escape("i1:42:ns/name");
  for (const std::string& token : {std::string("!!"), std::string("aGVsbG8"), hand_made,
                                   std::string(kMaxContinueTokenBytes + 1, 'A')}) {
    ExpectRefused(tokens_.Decode(kScope, token), absl::StatusCode::kInvalidArgument, "");
  }
}

TEST_F(ContinueTokenTest, EveryAlteredByteIsRefused) {
  std::string raw;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(tokens_.Encode(kScope, point_), &raw));
  // Past the tag and the key id, which have their own answers below.
  for (size_t i = 10; i < raw.size(); ++i) {
    std::string altered = raw;
    altered[i] ^= 0x01;
    ExpectRefused(tokens_.Decode(kScope, absl::WebSafeBase64Escape(altered)),
                  absl::StatusCode::kInvalidArgument, "not valid for this request");
  }
}

TEST_F(ContinueTokenTest, ATokenIsBoundToItsScope) {
  std::string token = tokens_.Encode(kScope, point_);
  std::vector<ContinueScope> others(6, kScope);
  others[0].resource = "secrets";
  others[1].namespace_ = "kube-system";
  others[2].label_selector = "";
  others[3].field_selector = "metadata.name=x";
  others[4].index_name = "by-node";
  others[5].index_value = "n1";
  for (const ContinueScope& other : others) {
    ExpectRefused(tokens_.Decode(other, token), absl::StatusCode::kInvalidArgument,
                  "issued for another resource");
  }
  // Length prefixes keep fields from sliding into each other.
  ContinueScope shifted = kScope;
  shifted.namespace_ = "nsapp=a";
  shifted.label_selector = "";
  ExpectRefused(tokens_.Decode(shifted, token), absl::StatusCode::kInvalidArgument, "");
}

TEST_F(ContinueTokenTest, AnOldSnapshotIsOutOfRange) {
  std::string token = tokens_.Encode(kScope, point_);
  now_ += absl::Minutes(5);
  EXPECT_TRUE(tokens_.Decode(kScope, token).ok());
  now_ += absl::Seconds(1);
  ExpectRefused(tokens_.Decode(kScope, token), absl::StatusCode::kOutOfRange, "expired");
}

TEST_F(ContinueTokenTest, AnotherProcessesTokenIsOutOfRange) {
  ContinueTokens other(std::string(32, 'x'), absl::Minutes(5), [this] { return now_; });
  ExpectRefused(tokens_.Decode(kScope, other.Encode(kScope, point_)),
                absl::StatusCode::kOutOfRange, "another informerd process");
  // Two random keys differ.
  ContinueTokens a(absl::Minutes(1)), b(absl::Minutes(1));
  point_.snapshot_time = absl::Now();
  EXPECT_TRUE(a.Decode(kScope, a.Encode(kScope, point_)).ok());
  EXPECT_EQ(a.Decode(kScope, b.Encode(kScope, point_)).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST_F(ContinueTokenTest, ArbitraryBytesNeverCrash) {
  std::string token;
  for (int i = 0; i < 5000; ++i) {
    token.push_back(static_cast<char>((i * 7919) % 256));
    (void)tokens_.Decode(kScope, token.substr(i % 97));
  }
}

}  // namespace
}  // namespace informerd::service
