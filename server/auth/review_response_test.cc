#include "server/auth/review_response.h"

#include <gtest/gtest.h>

namespace informerd::auth {
namespace {

TEST(TokenReviewResponseTest, ReadsTheUser) {
  absl::StatusOr<UserInfo> user = ParseTokenReviewResponse(201, R"({"status":{
      "authenticated":true,
      "user":{"username":"alice","uid":"u1","groups":["dev",7,"ops"],
              "extra":{"scopes":["a","b"],"empty":"not a list"}}}})");
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(user->username, "alice");
  EXPECT_EQ(user->uid, "u1");
  EXPECT_EQ(user->groups, (std::vector<std::string>{"dev", "ops"}));
  EXPECT_EQ(user->extra.at("scopes"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(user->extra.at("empty").empty());
}

TEST(TokenReviewResponseTest, NotAuthenticatedIsUnauthenticated) {
  absl::StatusOr<UserInfo> user = ParseTokenReviewResponse(
      201, R"({"status":{"authenticated":false,"error":"token expired"}})");
  EXPECT_EQ(user.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(user.status().message().find("token expired"), std::string_view::npos);
  // "true" as a string is not a boolean.
  EXPECT_EQ(ParseTokenReviewResponse(
                201, R"({"status":{"authenticated":"true","user":{"username":"a"}}})")
                .status()
                .code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(ParseTokenReviewResponse(
                201, R"({"status":{"authenticated":true,"user":{"username":""}}})")
                .status()
                .code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(TokenReviewResponseTest, NoAnswerIsUnavailable) {
  for (const auto& [http_status, body] : std::vector<std::pair<int, std::string_view>>{
           {500, R"({"status":{"authenticated":true,"user":{"username":"a"}}})"},
           {301, "{}"},
           {201, "not json"},
           {201, "[]"},
           {201, R"({"status":"ok"})"},
           {201, R"({"status":{"authenticated":true}})"},
           {201, R"({"status":{"authenticated":true,"user":"alice"}})"},
       }) {
    EXPECT_EQ(ParseTokenReviewResponse(http_status, body).status().code(),
              absl::StatusCode::kUnavailable)
        << http_status << " " << body;
  }
}

TEST(AccessReviewResponseTest, AllowedUnlessDenied) {
  EXPECT_EQ(*ParseAccessReviewResponse(201, R"({"status":{"allowed":true}})"), true);
  EXPECT_EQ(*ParseAccessReviewResponse(201, R"({"status":{"allowed":true,"denied":true}})"),
            false);
  EXPECT_EQ(*ParseAccessReviewResponse(201, R"({"status":{}})"), false);
  EXPECT_EQ(*ParseAccessReviewResponse(201, R"({"status":{"allowed":1}})"), false);
  EXPECT_EQ(ParseAccessReviewResponse(403, R"({"status":{"allowed":true}})").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(ParseAccessReviewResponse(201, R"({"status":[]})").status().code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace informerd::auth
