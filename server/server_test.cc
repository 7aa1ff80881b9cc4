// Server::Start applies the configuration policy (config::Validate) before
// it connects to anything, so a refused configuration needs no cluster.
#include "server/server.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd {
namespace {

using ::testing::HasSubstr;

ServerOptions Options() {
  ServerOptions options;
  options.config.resources.push_back(config::ResourceConfig{"", "", "configmaps"});
  options.grpc_address = "127.0.0.1:0";
  options.http_address = "127.0.0.1:0";
  return options;
}

TEST(ServerStart, RefusesWhatValidateRefusesBeforeConnecting) {
  ServerOptions nothing = Options();
  nothing.config.resources.clear();
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(nothing);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(server.status().message(), HasSubstr("nothing to serve"));

  ServerOptions audiences = Options();
  audiences.config.auth.token_audiences = {"informerd"};
  server = Server::Start(audiences);
  EXPECT_THAT(server.status().message(),
              HasSubstr("--token-audiences: needs --auth-mode=kubernetes"));

  ServerOptions open = Options();
  open.grpc_address = "0.0.0.0:0";
  server = Server::Start(open);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(server.status().message(), HasSubstr("--allow-unauthenticated"));

  ServerOptions plain_apiserver = Options();
  plain_apiserver.cluster.server = "http://127.0.0.1:1";
  server = Server::Start(plain_apiserver);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(server.status().message(), HasSubstr("refusing the API server connection"));
}

}  // namespace
}  // namespace informerd
