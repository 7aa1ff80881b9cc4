#include "client/cpp/informerctl/health_wire.h"

#include <string>

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

TEST(HealthWireTest, EncodesRequest) {
  EXPECT_EQ(EncodeHealthCheckRequest(""), "");
  EXPECT_EQ(EncodeHealthCheckRequest("cache"), std::string("\x0a\x05" "cache"));
}

TEST(HealthWireTest, DecodesStatus) {
  EXPECT_EQ(*DecodeServingStatus(std::string("\x08\x01", 2)), 1);
  EXPECT_EQ(*DecodeServingStatus(std::string("\x08\x02", 2)), 2);
  // proto3: an absent enum is its zero value.
  EXPECT_EQ(*DecodeServingStatus(""), 0);
  // Unknown fields are skipped, before or after.
  EXPECT_EQ(*DecodeServingStatus(std::string("\x12\x02xy\x08\x01\x18\x07", 8)), 1);
}

TEST(HealthWireTest, RejectsMalformedBytes) {
  EXPECT_FALSE(DecodeServingStatus(std::string("\x08", 1)).ok());
  EXPECT_FALSE(DecodeServingStatus(std::string("\x12\x05xy", 4)).ok());
  EXPECT_FALSE(DecodeServingStatus(std::string("\x00\x01", 2)).ok());
}

TEST(HealthWireTest, StatusNames) {
  EXPECT_EQ(ServingStatusName(1), "SERVING");
  EXPECT_EQ(ServingStatusName(2), "NOT_SERVING");
  EXPECT_EQ(ServingStatusName(0), "UNKNOWN");
  EXPECT_EQ(ServingStatusName(3), "SERVICE_UNKNOWN");
  EXPECT_EQ(ServingStatusName(9), "9");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
