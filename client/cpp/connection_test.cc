#include "client/cpp/connection.h"

#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace informerd {
namespace client {
namespace {

constexpr char kTokenNeedsTls[] =
    "token, token_file: a token needs tls (or allow_token_without_tls)";

TEST(ConnectTest, RefusesATokenWithoutTls) {
  ConnectionOptions options;
  options.address = "informerd.example:50051";
  options.token = "s3cret";
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Connect(options);
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(channel.status().message(), kTokenNeedsTls);
}

// As in the Go client, loopback is no exception: whether a plaintext token
// is safe depends on the path to the server, which the client cannot know.
TEST(ConnectTest, RefusesATokenFileWithoutTlsEvenOnLoopback) {
  ConnectionOptions options;
  options.address = "127.0.0.1:50051";
  options.token_file = "/nonexistent/token";
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Connect(options);
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().message(), kTokenNeedsTls);
}

TEST(ConnectTest, SendsATokenWithoutTlsOnlyWhenAllowed) {
  ConnectionOptions options;
  options.address = "127.0.0.1:50051";
  options.token = "s3cret";
  options.allow_token_without_tls = true;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Connect(options);
  EXPECT_TRUE(channel.ok()) << channel.status();
}

TEST(ConnectTest, AcceptsATokenOverTls) {
  ConnectionOptions options;
  options.address = "informerd.example:50051";
  options.token = "s3cret";
  options.tls = true;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Connect(options);
  EXPECT_TRUE(channel.ok()) << channel.status();
}

TEST(ConnectTest, PlaintextWithoutATokenNeedsNoOption) {
  ConnectionOptions options;
  options.address = "127.0.0.1:50051";
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Connect(options);
  EXPECT_TRUE(channel.ok()) << channel.status();
}

TEST(ConnectTest, TokenAndTokenFileAreExclusive) {
  ConnectionOptions options;
  options.address = "127.0.0.1:50051";
  options.token = "a";
  options.token_file = "b";
  options.tls = true;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Connect(options);
  ASSERT_FALSE(channel.ok());
  EXPECT_EQ(channel.status().message(),
            "token, token_file: at most one may be set");
}

}  // namespace
}  // namespace client
}  // namespace informerd
