#include "server/service/client_host.h"

#include <gtest/gtest.h>

namespace informerd::service {
namespace {

TEST(ClientHostTest, ThePeersHostWithoutItsPort) {
  EXPECT_EQ(ClientHost("ipv4:10.0.0.1:5000", std::nullopt, false), "ipv4:10.0.0.1");
  EXPECT_EQ(ClientHost("ipv6:[fd00::1]:5000", std::nullopt, false), "ipv6:[fd00::1]");
  EXPECT_EQ(ClientHost("unix:/run/x.sock", std::nullopt, false), "unix:/run/x.sock");
}

TEST(ClientHostTest, AProxyOnLoopbackNamesTheClientWhenTrusted) {
  EXPECT_EQ(ClientHost("ipv4:127.0.0.1:5000", "10.214.0.7", true), "ipv4:10.214.0.7");
  EXPECT_EQ(ClientHost("ipv6:[::1]:5000", "fd00::7", true), "ipv6:[fd00::7]");
  // A chain: the proxy appends the address it saw, so the last entry is its.
  EXPECT_EQ(ClientHost("ipv4:127.0.0.1:5000", "1.2.3.4, 10.214.0.7", true), "ipv4:10.214.0.7");
}

TEST(ClientHostTest, TheHeaderIsIgnoredUnlessTrustedAndFromLoopback) {
  EXPECT_EQ(ClientHost("ipv4:127.0.0.1:5000", "10.214.0.7", false), "ipv4:127.0.0.1");
  // A client reaching informerd directly cannot choose its address.
  EXPECT_EQ(ClientHost("unix:/run/x.sock", "10.214.0.7", true), "unix:/run/x.sock");
  EXPECT_EQ(ClientHost("ipv4:10.0.0.9:5000", "10.214.0.7", true), "ipv4:10.0.0.9");
}

TEST(ClientHostTest, InformerdsOwnInProcessCallsNameTheirClient) {
  EXPECT_EQ(ClientHost("inproc", "10.214.0.7", false), "ipv4:10.214.0.7");
  EXPECT_EQ(ClientHost("unknown", "10.214.0.7", false), "ipv4:10.214.0.7");
  EXPECT_EQ(ClientHost("inproc", std::nullopt, false), "inproc");
  EXPECT_EQ(ClientHost("inproc", "evil", false), "inproc");
}

TEST(ClientHostTest, AnEntryThatIsNoAddressIsIgnored) {
  for (const char* bad : {"", "evil", "10.0.0.1:80", "10.0.0.1; x", "[::1]", "999.1.1.1"}) {
    EXPECT_EQ(ClientHost("ipv4:127.0.0.1:5000", bad, true), "ipv4:127.0.0.1") << bad;
  }
  EXPECT_EQ(ClientHost("ipv4:127.0.0.1:5000", std::string(1000, '1'), true), "ipv4:127.0.0.1");
}

}  // namespace
}  // namespace informerd::service
