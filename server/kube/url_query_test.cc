#include "server/kube/url_query.h"

#include "gtest/gtest.h"

namespace informerd::kube {
namespace {

TEST(EscapeQueryValueTest, KeepsUnreservedAndEscapesTheRest) {
  EXPECT_EQ(EscapeQueryValue("abc-XYZ_0.9~"), "abc-XYZ_0.9~");
  EXPECT_EQ(EscapeQueryValue("app in (a,b)"), "app%20in%20%28a%2Cb%29");
  EXPECT_EQ(EscapeQueryValue("eyJ2Ijo+/=="), "eyJ2Ijo%2B%2F%3D%3D");
  EXPECT_EQ(EscapeQueryValue("a&b=c%"), "a%26b%3Dc%25");
  EXPECT_EQ(EscapeQueryValue(std::string("\xff\x00", 2)), "%FF%00");
}

TEST(AppendQueryParamTest, ChoosesTheSeparator) {
  std::string url = "/api/v1/pods";
  AppendQueryParam(&url, "limit", "500");
  AppendQueryParam(&url, "labelSelector", "a=b");
  EXPECT_EQ(url, "/api/v1/pods?limit=500&labelSelector=a%3Db");
}

}  // namespace
}  // namespace informerd::kube
