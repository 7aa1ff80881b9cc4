#include "informerd/v1/informerd.grpc.pb.h"
#include <gtest/gtest.h>
TEST(Proto, RoundTrip) {
  informerd::v1::WatchEvent e;
  e.set_type(informerd::v1::WatchEvent::DELETED);
  e.set_final_state_unknown(true);
  std::string s = e.SerializeAsString();
  informerd::v1::WatchEvent back;
  ASSERT_TRUE(back.ParseFromString(s));
  EXPECT_TRUE(back.final_state_unknown());
}
