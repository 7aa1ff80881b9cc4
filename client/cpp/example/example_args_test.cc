#include "client/cpp/example/example_args.h"

#include "gtest/gtest.h"

namespace informerd {
namespace example {
namespace {

TEST(ParseExampleArgsTest, ReadsEveryFlag) {
  absl::StatusOr<ExampleArgs> args = ParseExampleArgs(
      {"--server", "127.0.0.1:50051", "--resource", "deployments.apps", "-n",
       "ns1", "-l", "app=web", "--token-file", "/tmp/token", "--ca-file",
       "/tmp/ca.crt"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->server, "127.0.0.1:50051");
  EXPECT_EQ(args->resource.name.resource(), "deployments");
  EXPECT_EQ(args->resource.name.group(), "apps");
  EXPECT_EQ(args->watch_namespace, "ns1");
  EXPECT_EQ(args->label_selector, "app=web");
  EXPECT_EQ(args->token_file, "/tmp/token");
  EXPECT_EQ(args->ca_file, "/tmp/ca.crt");
}

TEST(ParseExampleArgsTest, AcceptsValuesAfterEquals) {
  absl::StatusOr<ExampleArgs> args =
      ParseExampleArgs({"--server=h:1", "--resource=configmaps", "-l=a!=b"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->server, "h:1");
  EXPECT_EQ(args->resource.name.resource(), "configmaps");
  EXPECT_EQ(args->resource.name.group(), "");
  EXPECT_EQ(args->label_selector, "a!=b");
  EXPECT_EQ(args->watch_namespace, "");
}

TEST(ParseExampleArgsTest, RequiresServer) {
  absl::StatusOr<ExampleArgs> args = ParseExampleArgs({"--resource", "pods"});
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(args.status().message().find("--server"), absl::string_view::npos);
}

TEST(ParseExampleArgsTest, RequiresResource) {
  absl::StatusOr<ExampleArgs> args = ParseExampleArgs({"--server", "h:1"});
  ASSERT_FALSE(args.ok());
  EXPECT_NE(args.status().message().find("--resource"),
            absl::string_view::npos);
}

TEST(ParseExampleArgsTest, RejectsMissingValue) {
  absl::StatusOr<ExampleArgs> args =
      ParseExampleArgs({"--resource", "pods", "--server"});
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.status().message(), "--server: needs a value");
}

TEST(ParseExampleArgsTest, RejectsUnknownArgument) {
  absl::StatusOr<ExampleArgs> args =
      ParseExampleArgs({"--server", "h:1", "--resource", "pods", "extra"});
  ASSERT_FALSE(args.ok());
  EXPECT_NE(args.status().message().find("\"extra\""), absl::string_view::npos);
}

TEST(ParseExampleArgsTest, RejectsBadResource) {
  absl::StatusOr<ExampleArgs> args =
      ParseExampleArgs({"--server", "h:1", "--resource", "a/b/c/d"});
  ASSERT_FALSE(args.ok());
  EXPECT_NE(args.status().message().find("--resource"),
            absl::string_view::npos);
}

TEST(ParseExampleArgsTest, TurnsSeveralAddressesIntoOneTarget) {
  absl::StatusOr<ExampleArgs> args = ParseExampleArgs(
      {"--server", "127.0.0.1:1,10.0.0.2:2", "--resource", "pods"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->server, "ipv4:127.0.0.1:1,10.0.0.2:2");

  args = ParseExampleArgs({"--server", "[::1]:1,[fe80::2]:2", "--resource",
                           "pods"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->server, "ipv6:[::1]:1,[fe80::2]:2");
}

TEST(ParseExampleArgsTest, RejectsSeveralAddressesThatAreNotOneIpFamily) {
  for (const char* server :
       {"127.0.0.1:1,[::1]:2", "127.0.0.1:1,localhost:2", "127.0.0.1:1,",
        "127.0.0.1,127.0.0.2:2", "127.0.0.1:1,127.0.0.2:70000"}) {
    absl::StatusOr<ExampleArgs> args =
        ParseExampleArgs({"--server", server, "--resource", "pods"});
    ASSERT_FALSE(args.ok()) << server;
    EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(args.status().message().find("--server"),
              absl::string_view::npos);
  }
}

}  // namespace
}  // namespace example
}  // namespace informerd
