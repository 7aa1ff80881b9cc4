#include "server/kube/api_status.h"

#include "gtest/gtest.h"

namespace informerd::kube {
namespace {

TEST(ApiStatusTest, ParsesAStatusBody) {
  const ApiStatus status = ApiStatusFromResponse(
      410,
      R"json({"kind":"Status","apiVersion":"v1","status":"Failure",)json"
      R"json("message":"too old resource version: 5 (10)",)json"
      R"json("reason":"Expired","code":410})json");
  EXPECT_EQ(status.code, 410);
  EXPECT_EQ(status.reason, "Expired");
  EXPECT_EQ(status.message, "too old resource version: 5 (10)");
  EXPECT_TRUE(IsExpired(status));
}

TEST(ApiStatusTest, NonStatusBodyBecomesTheMessage) {
  const ApiStatus status = ApiStatusFromResponse(502, "Bad Gateway");
  EXPECT_EQ(status.code, 502);
  EXPECT_EQ(status.reason, "");
  EXPECT_EQ(status.message, "Bad Gateway");
  EXPECT_FALSE(IsExpired(status));
}

TEST(ApiStatusTest, LongGarbageBodyIsTruncated) {
  const ApiStatus status = ApiStatusFromResponse(500, std::string(10000, '{'));
  EXPECT_EQ(status.code, 500);
  EXPECT_LE(status.message.size(), 512u);
}

// A Status can carry a webhook's message of any length; it is cut like a
// garbage body, so no error message grows with what the apiserver relays.
TEST(ApiStatusTest, LongStatusTextIsTruncated) {
  const std::string long_text(10000, 'm');
  const ApiStatus status = ApiStatusFromResponse(
      500, R"({"kind":"Status","code":500,"reason":")" + long_text + R"(","message":")" +
               long_text + R"("})");
  EXPECT_EQ(status.code, 500);
  EXPECT_EQ(status.message, long_text.substr(0, kMaxApiStatusTextBytes));
  EXPECT_EQ(status.reason, long_text.substr(0, kMaxApiStatusTextBytes));
}

TEST(ApiStatusTest, StatusWithoutCodeTakesTheHttpCode) {
  const ApiStatus status =
      ApiStatusFromResponse(429, R"({"kind":"Status","message":"slow down"})");
  EXPECT_EQ(status.code, 429);
  EXPECT_EQ(status.message, "slow down");
}

TEST(ApiStatusTest, WatchErrorObjectWithWrongTypesIsTolerated) {
  rapidjson::Document object;
  object.Parse(R"({"code":"410","reason":7,"message":null})");
  const ApiStatus status = ApiStatusFromJson(object);
  EXPECT_EQ(status.code, 0);
  EXPECT_EQ(status.reason, "");
  EXPECT_EQ(status.message, "");
}

TEST(IsExpiredTest, RecognisesEachForm) {
  EXPECT_TRUE(IsExpired({410, "", ""}));
  EXPECT_TRUE(IsExpired({0, "Expired", ""}));
  EXPECT_TRUE(IsExpired({0, "Gone", ""}));
  EXPECT_TRUE(IsExpired({500, "", "too old resource version: 1 (2)"}));
  EXPECT_FALSE(IsExpired({500, "InternalError", "etcd down"}));
  EXPECT_FALSE(IsExpired({504, "Timeout", "Too large resource version"}));
}

TEST(ToStatusTest, MapsCodesAndKeepsTheMessage) {
  const absl::Status status =
      ToStatus({403, "Forbidden", "pods is forbidden"}, "list pods");
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(status.message(),
            "list pods: HTTP 403 Forbidden: pods is forbidden");
  EXPECT_EQ(ToStatus({410, "", ""}, "x").code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ToStatus({503, "", ""}, "x").code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace informerd::kube
