// --token-audiences against the real apiserver, through the informerd
// binary: a service account token issued (TokenRequest API) for informerd's
// audience is accepted and authorized by the account's RBAC; a token for
// the apiserver's own audience, for another audience, or a static token is
// UNAUTHENTICATED. Without the flag it is the other way round, because the
// apiserver accepts only tokens for its own audiences
// (hack/control-plane.sh: --api-audiences defaults to the issuer).
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

using ::testing::HasSubstr;

class TokenAudienceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ns_ = new std::string(CreateTestNamespace("audience"));
    CreateConfigMap(*ns_, "cm", {});
    ApiSend("POST", absl::StrCat("/api/v1/namespaces/", *ns_, "/serviceaccounts"),
            R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"reader"}})");
    ApiSend("POST", absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", *ns_, "/roles"),
            R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
                "metadata":{"name":"reader"},
                "rules":[{"apiGroups":[""],"resources":["configmaps"],
                          "verbs":["get","list","watch"]}]})");
    ApiSend("POST",
            absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", *ns_, "/rolebindings"),
            absl::StrCat(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                "metadata":{"name":"reader"},
                "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"},
                "subjects":[{"kind":"ServiceAccount","name":"reader","namespace":")",
                         *ns_, R"("}]})"));
    informerd_token_ = new std::string(RequestToken({kAudience}));
    other_token_ = new std::string(RequestToken({"someone-else"}));
    apiserver_token_ = new std::string(RequestToken({}));
    // The binding must have reached the apiserver's authorizer: the
    // account's own token (for the apiserver) lists.
    std::unique_ptr<kube::RestClient> reader = ClientWithToken(*apiserver_token_);
    const std::string path = absl::StrCat("/api/v1/namespaces/", *ns_, "/configmaps");
    ASSERT_TRUE(Eventually([&] { return reader->Get(path)->status == 200; }, absl::Seconds(30)));
  }

  static void TearDownTestSuite() {
    delete ns_;
    delete informerd_token_;
    delete other_token_;
    delete apiserver_token_;
  }

  // A token of ServiceAccount "reader" for `audiences` (empty: the
  // apiserver's own).
  static std::string RequestToken(const std::vector<std::string>& audiences) {
    std::string list;
    for (const std::string& audience : audiences) {
      absl::StrAppend(&list, list.empty() ? "" : ",", "\"", audience, "\"");
    }
    rapidjson::Document answer = ApiSend(
        "POST", absl::StrCat("/api/v1/namespaces/", *ns_, "/serviceaccounts/reader/token"),
        absl::StrCat(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)",
                     R"("spec":{"expirationSeconds":3600)",
                     audiences.empty() ? "" : absl::StrCat(R"(,"audiences":[)", list, "]"),
                     "}}"));
    return answer["status"]["token"].GetString();
  }

  // Starts informerd with --auth-mode=kubernetes and `flags` on loopback.
  struct Running {
    Running(const std::vector<std::string>& flags, const std::string& log) : ports() {
      std::vector<std::string> args = {"--resources=configmaps", "--auth-mode=kubernetes",
                                       absl::StrCat("--grpc-address=127.0.0.1:", ports.grpc),
                                       absl::StrCat("--http-address=127.0.0.1:", ports.http)};
      args.insert(args.end(), flags.begin(), flags.end());
      process = std::make_unique<InformerdProcess>(args, log);
      ready = Eventually([&] { return HttpGet(ports.http, "/readyz") == "200 ok\n"; },
                         absl::Seconds(60));
      stub = v1::Cache::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", ports.grpc),
                                                    grpc::InsecureChannelCredentials()));
    }
    struct Ports {
      int grpc = FreeLoopbackPort();
      int http = FreeLoopbackPort();
    } ports;
    std::unique_ptr<InformerdProcess> process;
    bool ready = false;
    std::unique_ptr<v1::Cache::Stub> stub;
  };

  // List of the test namespace's ConfigMaps with `token`.
  static grpc::Status List(Running& informerd, const std::string& token,
                           v1::ListResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    context.AddMetadata("authorization", "Bearer " + token);
    v1::ListRequest request;
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(*ns_);
    return informerd.stub->List(&context, request, response);
  }

  static grpc::StatusCode ListCode(Running& informerd, const std::string& token) {
    v1::ListResponse response;
    return List(informerd, token, &response).error_code();
  }

  static constexpr char kAudience[] = "informerd-audience-test";
  static std::string* ns_;
  static std::string* informerd_token_;
  static std::string* other_token_;
  static std::string* apiserver_token_;
};

std::string* TokenAudienceTest::ns_ = nullptr;
std::string* TokenAudienceTest::informerd_token_ = nullptr;
std::string* TokenAudienceTest::other_token_ = nullptr;
std::string* TokenAudienceTest::apiserver_token_ = nullptr;

TEST_F(TokenAudienceTest, WithTokenAudiencesOnlyTokensForInformerdAreAccepted) {
  Running informerd({absl::StrCat("--token-audiences=unused.example,", kAudience)},
                    "with-audiences.log");
  ASSERT_TRUE(informerd.ready) << informerd.process->Log();

  v1::ListResponse response;
  grpc::Status status = List(informerd, *informerd_token_, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.items_size(), 1);
  EXPECT_EQ(response.items(0).name(), "cm");

  for (const std::string* token : {apiserver_token_, other_token_}) {
    status = List(informerd, *token, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  }
  // Static tokens have no audience of their own.
  EXPECT_EQ(ListCode(informerd, ReadFileFromEnv("INFORMERD_ALICE_TOKEN_FILE")),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(informerd.process->Stop(), 0) << informerd.process->Log();
}

// The audience token still carries the account's identity and RBAC: it is
// refused what the account may not read.
TEST_F(TokenAudienceTest, AudienceTokenIsAuthorizedAsItsServiceAccount) {
  Running informerd({absl::StrCat("--token-audiences=", kAudience)}, "authorized.log");
  ASSERT_TRUE(informerd.ready) << informerd.process->Log();
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  context.AddMetadata("authorization", "Bearer " + *informerd_token_);
  v1::ListRequest request;
  request.mutable_resource()->set_resource("configmaps");  // every namespace
  v1::ListResponse response;
  grpc::Status status = informerd.stub->List(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(absl::StrCat("system:serviceaccount:", *ns_,
                                                             ":reader")));
  EXPECT_EQ(informerd.process->Stop(), 0) << informerd.process->Log();
}

TEST_F(TokenAudienceTest, WithoutTokenAudiencesTheApiserversOwnAudienceApplies) {
  Running informerd({}, "without-audiences.log");
  ASSERT_TRUE(informerd.ready) << informerd.process->Log();
  EXPECT_EQ(ListCode(informerd, *apiserver_token_), grpc::StatusCode::OK);
  EXPECT_EQ(ListCode(informerd, *informerd_token_), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(informerd.process->Stop(), 0) << informerd.process->Log();
}

TEST(TokenAudienceFlag, NeedsAuthModeKubernetes) {
  int http = FreeLoopbackPort();
  InformerdProcess informerd({"--resources=configmaps", "--token-audiences=informerd",
                              absl::StrCat("--grpc-address=127.0.0.1:", FreeLoopbackPort()),
                              absl::StrCat("--http-address=127.0.0.1:", http)},
                             "audiences-without-auth.log");
  EXPECT_EQ(informerd.WaitForExit(absl::Seconds(20)), 1) << informerd.Log();
  EXPECT_THAT(informerd.Log(), HasSubstr("--token-audiences: needs --auth-mode=kubernetes"));
}

}  // namespace
}  // namespace informerd::testing
