// --auth-mode=kubernetes against the real apiserver and its RBAC: for List,
// Get and Watch, each identity gets from informerd exactly what the
// apiserver gives it for the same request with the same token (200 vs 403
// is OK vs PERMISSION_DENIED); withdrawn permission ends an open Watch.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <random>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "server/auth/authorizer.h"
#include "server/auth/kube_reviewer.h"
#include "server/tls/server_credentials.h"
#include "tests/certificates/test_certificates.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

std::string ReaderRules() {
  return R"("rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list","watch"]}])";
}

void CreateRole(const std::string& ns, const std::string& name) {
  ApiSend("POST", absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", ns, "/roles"),
          absl::StrCat(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",)",
                       R"("metadata":{"name":")", name, R"("},)", ReaderRules(), "}"));
}

std::string BindingBody(const char* kind, const std::string& name, const char* role_kind,
                        const std::string& role, const std::string& user) {
  return absl::StrCat(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":")", kind,
                      R"(","metadata":{"name":")", name, R"("},"roleRef":{"apiGroup":")",
                      kRbacGroup, R"(","kind":")", role_kind, R"(","name":")", role,
                      R"("},"subjects":[{"kind":"User","apiGroup":")", kRbacGroup,
                      R"(","name":")", user, R"("}]})");
}

// The apiserver's HTTP status for `path` with `client`'s identity. A watch
// ends as soon as its first bytes arrive.
int ApiStatus(kube::RestClient& client, const std::string& path, bool watch) {
  absl::StatusOr<kube::HttpResponse> response =
      watch ? client.Stream(path, [](std::string_view) { return false; }) : client.Get(path);
  EXPECT_TRUE(response.ok()) << path << ": " << response.status();
  return response.ok() ? response->status : 0;
}

// Cluster-wide grants would leak into other tests sharing the apiserver.
void DeleteClusterGrant(const std::string& prefix) {
  ApiSend("DELETE",
          absl::StrCat("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/", prefix, "-bob"),
          "");
  ApiSend("DELETE", absl::StrCat("/apis/rbac.authorization.k8s.io/v1/clusterroles/", prefix,
                                 "-reader"),
          "");
}

// Waits (bounded) until RBAC changes reached the apiserver's authorizer.
void AwaitApiStatus(kube::RestClient& client, const std::string& path, int want) {
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (ApiStatus(client, path, false) != want) {
    ASSERT_LT(absl::Now(), deadline) << path << " never answered " << want;
    absl::SleepFor(absl::Milliseconds(50));
  }
}

// A ClusterRole "PREFIX-reader" with ReaderRules, bound to bob as
// "PREFIX-bob" (removed by DeleteClusterGrant(PREFIX)).
void GrantBobClusterRead(const std::string& prefix) {
  ApiSend("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
          absl::StrCat(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",)",
                       R"("metadata":{"name":")", prefix, R"(-reader"},)", ReaderRules(), "}"));
  ApiSend("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
          BindingBody("ClusterRoleBinding", prefix + "-bob", "ClusterRole", prefix + "-reader",
                      "bob"));
}

// A Watch of the namespace's ConfigMaps from resourceVersion "0": its
// current state first, then its changes.
v1::WatchRequest WatchFromState(const std::string& ns) {
  v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_resource_version("0");
  return request;
}

class AuthTest : public ::testing::Test {
 protected:
  struct Identity {
    std::string name;
    std::string token;
    std::unique_ptr<kube::RestClient> client;
  };

  // Reviews by the apiserver, with decisions cached for 1 s so that RBAC
  // changes show soon.
  static InProcessServerOptions Reviewed() {
    InProcessServerOptions options;
    options.reviewer = reviewer_;
    options.config.auth.decision_ttl = absl::Seconds(1);
    return options;
  }

  static void SetUpTestSuite() {
    n1_ = new std::string(CreateTestNamespace("authz-n1"));
    n2_ = new std::string(CreateTestNamespace("authz-n2"));
    CreateConfigMap(*n1_, "cm-a", {{"app", "a"}});
    CreateConfigMap(*n2_, "cm-b", {{"app", "b"}});
    // Cluster-scoped RBAC objects are shared with other engineers' tests:
    // named after this run's unique namespace.
    std::string prefix = absl::StrCat("informerd-", *n1_);
    GrantBobClusterRead(prefix);
    CreateRole(*n1_, "reader");
    ApiSend("POST",
            absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", *n1_, "/rolebindings"),
            BindingBody("RoleBinding", "alice", "Role", "reader", "alice"));
    identities_ = new std::vector<Identity>();
    for (auto [name, variable] : {std::pair{"alice", "INFORMERD_ALICE_TOKEN_FILE"},
                                  std::pair{"bob", "INFORMERD_BOB_TOKEN_FILE"},
                                  std::pair{"carol", "INFORMERD_CAROL_TOKEN_FILE"}}) {
      std::string token = ReadFileFromEnv(variable);
      identities_->push_back({name, token, ClientWithToken(token)});
    }
    AwaitApiStatus(*(*identities_)[0].client,
                   absl::StrCat("/api/v1/namespaces/", *n1_, "/configmaps"), 200);
    AwaitApiStatus(*(*identities_)[1].client, "/api/v1/configmaps", 200);

    reviewer_ = new auth::KubeReviewer(&AdminClient());
    InProcessServerOptions options = Reviewed();
    options.config.auth.recheck_interval = absl::Seconds(2);
    server_ = new InProcessServer({config::ResourceConfig{"", "", "configmaps"}}, options);
    server_->WaitSynced();
  }

  static void TearDownTestSuite() {
    DeleteClusterGrant(absl::StrCat("informerd-", *n1_));
    delete server_;
    delete reviewer_;
    delete identities_;
  }

  static std::unique_ptr<grpc::ClientContext> Context(const std::string& token,
                                                      absl::Duration timeout = absl::Seconds(20)) {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    return context;
  }

  static v1::ResourceName ConfigMaps() {
    v1::ResourceName name;
    name.set_resource("configmaps");
    return name;
  }

  static grpc::Status List(const std::string& token, const std::string& ns,
                           v1::ListResponse* response = nullptr) {
    v1::ListRequest request;
    *request.mutable_resource() = ConfigMaps();
    request.set_namespace_(ns);
    v1::ListResponse ignored;
    return server_->stub().List(Context(token).get(), request,
                                response != nullptr ? response : &ignored);
  }

  static grpc::Status Get(const std::string& token, const std::string& ns,
                          const std::string& name) {
    v1::GetRequest request;
    *request.mutable_resource() = ConfigMaps();
    request.set_namespace_(ns);
    request.set_name(name);
    v1::GetResponse response;
    return server_->stub().Get(Context(token).get(), request, &response);
  }

  // Starts a Watch from "0" (the current state first) and returns its
  // status: OK once the first event arrives.
  static grpc::Status WatchStarts(const std::string& token, const std::string& ns) {
    const v1::WatchRequest request = WatchFromState(ns);
    std::unique_ptr<grpc::ClientContext> context = Context(token);
    std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> reader =
        server_->stub().Watch(context.get(), request);
    v1::WatchEvent event;
    if (reader->Read(&event)) {
      context->TryCancel();
      reader->Finish().ok();
      return grpc::Status::OK;
    }
    return reader->Finish();
  }

  static std::string* n1_;
  static std::string* n2_;
  static std::vector<Identity>* identities_;
  static auth::KubeReviewer* reviewer_;
  static InProcessServer* server_;
};

std::string* AuthTest::n1_ = nullptr;
std::string* AuthTest::n2_ = nullptr;
std::vector<AuthTest::Identity>* AuthTest::identities_ = nullptr;
auth::KubeReviewer* AuthTest::reviewer_ = nullptr;
InProcessServer* AuthTest::server_ = nullptr;

grpc::StatusCode Expected(int http_status) {
  return http_status == 200 ? grpc::StatusCode::OK : grpc::StatusCode::PERMISSION_DENIED;
}

TEST_F(AuthTest, EachIdentityGetsWhatTheApiserverGivesIt) {
  struct Case {
    const char* verb;
    std::string ns;
    std::string name;
  };
  std::vector<Case> cases = {{"list", *n1_, ""},    {"list", *n2_, ""},   {"list", "", ""},
                             {"get", *n1_, "cm-a"}, {"get", *n2_, "cm-b"}, {"watch", *n1_, ""},
                             {"watch", *n2_, ""},   {"watch", "", ""}};
  // What the bindings grant; the apiserver is the judge, this checks the
  // fixture means what it says.
  std::map<std::string, int> allowed_counts = {{"alice", 3}, {"bob", 8}, {"carol", 0}};
  for (const Identity& identity : *identities_) {
    int allowed = 0;
    for (const Case& c : cases) {
      std::string collection = c.ns.empty()
                                   ? std::string("/api/v1/configmaps")
                                   : absl::StrCat("/api/v1/namespaces/", c.ns, "/configmaps");
      std::string path = c.name.empty() ? collection : absl::StrCat(collection, "/", c.name);
      bool watch = std::string(c.verb) == "watch";
      if (watch) path += "?watch=1&timeoutSeconds=2";
      int http = ApiStatus(*identity.client, path, watch);
      grpc::Status got = std::string(c.verb) == "list" ? List(identity.token, c.ns)
                         : std::string(c.verb) == "get" ? Get(identity.token, c.ns, c.name)
                                                        : WatchStarts(identity.token, c.ns);
      EXPECT_EQ(got.error_code(), Expected(http))
          << identity.name << " " << c.verb << " in \"" << c.ns << "\": apiserver " << http
          << ", informerd " << got.error_message();
      if (got.ok()) ++allowed;
    }
    EXPECT_EQ(allowed, allowed_counts[identity.name]) << identity.name;
  }
}

TEST_F(AuthTest, ClusterWideDenialNamesWhatIsMissing) {
  grpc::Status status = List((*identities_)[0].token, "");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(status.error_message(),
            "user \"alice\" cannot list configmaps at the cluster scope; set namespace");
}

TEST_F(AuthTest, AllowedListsMatchTheApiserversItems) {
  v1::ListResponse response;
  ASSERT_TRUE(List((*identities_)[0].token, *n1_, &response).ok());
  ASSERT_EQ(response.items_size(), 1);
  EXPECT_NE(response.items(0).json().find("\"cm-a\""), std::string::npos);
}

TEST_F(AuthTest, MissingBadOrMalformedTokensAreUnauthenticated) {
  EXPECT_EQ(List("", *n1_).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(List("not-a-valid-token", *n1_).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(WatchStarts("not-a-valid-token", *n1_).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Get("not-a-valid-token", *n1_, "cm-a").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  v1::ListRequest request;
  *request.mutable_resource() = ConfigMaps();
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Basic YWxpY2U6cHc=");
  v1::ListResponse response;
  EXPECT_EQ(server_->stub().List(&context, request, &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AuthTest, UnconfiguredSecretsAreNotFoundEvenForAuthorizedUsers) {
  v1::ListRequest request;
  request.mutable_resource()->set_resource("secrets");
  std::unique_ptr<grpc::ClientContext> context = Context((*identities_)[1].token);
  v1::ListResponse response;
  grpc::Status status = server_->stub().List(context.get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
}

TEST_F(AuthTest, RevokingTheBindingEndsAnOpenWatch) {
  std::string ns = CreateTestNamespace("authz-revoke");
  CreateConfigMap(ns, "cm", {});
  CreateRole(ns, "reader");
  ApiSend("POST", absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", ns, "/rolebindings"),
          BindingBody("RoleBinding", "alice", "Role", "reader", "alice"));
  const Identity& alice = (*identities_)[0];
  AwaitApiStatus(*alice.client, absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"), 200);

  const v1::WatchRequest request = WatchFromState(ns);
  std::unique_ptr<grpc::ClientContext> context = Context(alice.token, absl::Seconds(45));
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> reader =
      server_->stub().Watch(context.get(), request);
  v1::WatchEvent event;
  ASSERT_TRUE(reader->Read(&event)) << reader->Finish().error_message();

  ApiSend("DELETE",
          absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", ns, "/rolebindings/alice"),
          "");
  absl::Time revoked = absl::Now();
  while (reader->Read(&event)) {
  }
  grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  EXPECT_EQ(status.error_message(),
            absl::StrCat("user \"alice\" cannot watch configmaps in namespace \"", ns, "\""));
  // Re-check every 2 s with 1 s decisions, plus the apiserver's RBAC
  // propagation.
  EXPECT_LT(absl::Now() - revoked, absl::Seconds(15));
}

TEST_F(AuthTest, OversizedNamesNamespacesAndTokensAreInvalid) {
  const std::string& bob = (*identities_)[1].token;
  grpc::Status status = Get(bob, *n1_, std::string(254, 'a'));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "name: longer than 253 characters");
  EXPECT_EQ(Get(bob, std::string(64, 'n'), "cm-a").error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(List(bob, std::string(64, 'n')).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::ListRequest request;
  *request.mutable_resource() = ConfigMaps();
  request.set_continue_token(std::string(4096, 'A'));
  v1::ListResponse response;
  status = server_->stub().List(Context(bob).get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "continue_token: longer than 2048 bytes");
}

// ListResources tells each caller only what it may list cluster-wide, and
// needs a token; a request for an unserved resource learns nothing of the
// served ones, and an oversized resource name is not echoed.
TEST_F(AuthTest, CallersLearnOnlyWhatTheyMayList) {
  auto resources = [](const std::string& token, std::vector<std::string>* names,
                      const std::string& ns = "", int64_t* object_count = nullptr) {
    v1::ListResourcesRequest request;
    request.set_namespace_(ns);
    v1::ListResourcesResponse response;
    grpc::Status status = server_->stub().ListResources(Context(token).get(), request, &response);
    for (const v1::ResourceStatus& resource : response.resources()) {
      names->push_back(resource.resource().resource());
      if (object_count != nullptr) *object_count = resource.object_count();
    }
    return status;
  };
  std::vector<std::string> seen;
  EXPECT_EQ(resources("", &seen).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(resources("not-a-token", &seen).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(seen.empty());
  for (int who : {0, 2}) {  // alice: one namespace only; carol: no RBAC
    std::vector<std::string> names;
    ASSERT_TRUE(resources((*identities_)[who].token, &names).ok());
    EXPECT_TRUE(names.empty()) << (*identities_)[who].name << " sees " << names.front();
  }
  std::vector<std::string> bobs;
  int64_t count = 0;
  ASSERT_TRUE(resources((*identities_)[1].token, &bobs, "", &count).ok());
  EXPECT_EQ(bobs, std::vector<std::string>{"configmaps"});
  EXPECT_GT(count, 0);
  // Alice's Role in n1 shows her configmaps there, without the cluster's count.
  std::vector<std::string> alices;
  count = -1;
  ASSERT_TRUE(resources((*identities_)[0].token, &alices, *n1_, &count).ok());
  EXPECT_EQ(alices, std::vector<std::string>{"configmaps"});
  EXPECT_EQ(count, 0);
  std::vector<std::string> in_n2;
  ASSERT_TRUE(resources((*identities_)[0].token, &in_n2, *n2_).ok());
  EXPECT_TRUE(in_n2.empty());
  EXPECT_EQ(resources((*identities_)[0].token, &in_n2, "Bad_Name").error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  const std::string& carol = (*identities_)[2].token;
  v1::ListRequest request;
  request.mutable_resource()->set_resource("widgets");
  v1::ListResponse ignored;
  grpc::Status status = server_->stub().List(Context(carol).get(), request, &ignored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "resource widgets is not served");
  request.mutable_resource()->set_resource(std::string(5000, 'w'));
  status = server_->stub().List(Context(carol).get(), request, &ignored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "resource.resource: longer than 63 characters");
}

// With mTLS and no token, the certificate's subject is the caller (CN the
// user, O the groups), reviewed like a token's user: a certificate reads
// what its user may, not everything.
TEST_F(AuthTest, ClientCertificatesAreReviewedAsTheirSubjects) {
  MakeCa("auth-ca");
  MakeCert("auth-ca", "auth-server.key", "auth-server.crt");
  MakeCert("auth-ca", "bob.key", "bob.crt", "/O=readers/CN=bob");
  MakeCert("auth-ca", "carol.key", "carol.crt", "/CN=carol");
  InProcessServerOptions options = Reviewed();
  options.config.tls = config::TlsConfig{CertPath("auth-server.crt"), CertPath("auth-server.key"),
                                         CertPath("auth-ca.crt"), absl::Seconds(60)};
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  auto list_as = [&](const std::string& who) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = ReadFile(CertPath("auth-ca.crt"));
    tls.pem_private_key = ReadFile(CertPath(who + ".key"));
    tls.pem_cert_chain = ReadFile(CertPath(who + ".crt"));
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    auto stub = v1::Cache::NewStub(grpc::CreateCustomChannel(
        absl::StrCat("127.0.0.1:", server.port()), grpc::SslCredentials(tls), args));
    v1::ListRequest request;
    *request.mutable_resource() = ConfigMaps();
    v1::ListResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    return stub->List(&context, request, &response);
  };
  grpc::Status bobs = list_as("bob");
  EXPECT_TRUE(bobs.ok()) << bobs.error_message();
  grpc::Status carols = list_as("carol");
  EXPECT_EQ(carols.error_code(), grpc::StatusCode::PERMISSION_DENIED) << carols.error_message();
  EXPECT_NE(carols.error_message().find("user \"carol\""), std::string::npos)
      << carols.error_message();
}

// The admission order: the request's shape first (for anyone), then the
// caller, then what depends on the served resource. A peer without a token
// learns that its request is malformed, but nothing of what is served.
TEST_F(AuthTest, ShapeIsCheckedBeforeTheCallerAndTheResourceAfter) {
  const std::string long_namespace(3000, 'n');
  grpc::Status listed = List("", long_namespace);
  EXPECT_EQ(listed.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << listed.error_message();
  EXPECT_LT(listed.error_message().size(), 400u);
  EXPECT_EQ(Get("", *n1_, std::string(300, 'x')).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(WatchStarts("", long_namespace).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::ListRequest request;
  request.mutable_resource()->set_resource("widgets");
  v1::ListResponse ignored;
  EXPECT_EQ(server_->stub().List(Context("").get(), request, &ignored).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  request.set_resource_version(std::string(5000, 'x'));
  grpc::Status version = server_->stub().List(Context("").get(), request, &ignored);
  EXPECT_EQ(version.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(version.error_message().size(), 200u) << version.error_message();
}

// A continue token is the server's, for one List: a hand-made one, an
// altered one, or one presented with another namespace or selector is
// refused before any page is built.
TEST_F(AuthTest, ContinueTokensCannotBeForgedOrMoved) {
  const std::string& bob = (*identities_)[1].token;
  auto page = [&](const std::string& ns, const std::string& selector, const std::string& token,
                  v1::ListResponse* response) {
    v1::ListRequest request;
    *request.mutable_resource() = ConfigMaps();
    request.set_namespace_(ns);
    request.set_label_selector(selector);
    request.set_limit(1);
    request.set_continue_token(token);
    return server_->stub().List(Context(bob).get(), request, response);
  };
  v1::ListResponse first;
  ASSERT_TRUE(page("", "", "", &first).ok());
  ASSERT_FALSE(first.continue_token().empty()) << "the cluster has more than one configmap";
  const std::string& token = first.continue_token();
  v1::ListResponse second;
  ASSERT_TRUE(page("", "", token, &second).ok());
  ASSERT_EQ(second.items_size(), 1);
  EXPECT_EQ(second.resource_version(), first.resource_version());

  std::string altered = token;
  size_t middle = altered.size() / 2;
  altered[middle] = altered[middle] == 'A' ? 'B' : 'A';
  const std::string key = absl::StrCat(*n1_, "/cm-a");
  for (const std::string& forged :
       {absl::WebSafeBase64Escape(absl::StrCat("i1:", first.resource_version(), ":", key)),
        altered}) {
    v1::ListResponse ignored;
    grpc::Status status = page("", "", forged, &ignored);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << forged;
    EXPECT_EQ(status.error_message().rfind("continue_token: ", 0), 0u) << status.error_message();
  }
  // A token in the current format under another key id is one of another
  // informerd process, as after a restart: the client lists again (410),
  // and no page is built.
  v1::ListResponse ignored;
  grpc::Status foreign = page("", "", absl::WebSafeBase64Escape(absl::StrCat(
      "i2", std::string(24, 'x'), first.resource_version(), ":0:", key)), &ignored);
  EXPECT_EQ(foreign.error_code(), grpc::StatusCode::OUT_OF_RANGE) << foreign.error_message();
  EXPECT_EQ(ignored.items_size(), 0);
  for (auto [ns, selector] : {std::pair{*n1_, std::string()}, std::pair{std::string(), std::string("app=a")}}) {
    v1::ListResponse ignored;
    grpc::Status status = page(ns, selector, token, &ignored);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << ns << " " << selector;
    EXPECT_NE(status.error_message().find("not valid for this request"), std::string::npos)
        << status.error_message();
  }
}

// Validation comes before authorization: a caller with no RBAC at all
// learns its request is malformed, and the oversized field never reaches a
// SubjectAccessReview. A request far past any legitimate size is refused by
// gRPC itself, with an error of bounded size.
TEST_F(AuthTest, MalformedRequestsAreRefusedBeforeAnyReview) {
  const std::string& carol = (*identities_)[2].token;
  const std::string long_namespace(3000, 'n');
  grpc::Status listed = List(carol, long_namespace);
  EXPECT_EQ(listed.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << listed.error_message();
  EXPECT_LT(listed.error_message().size(), 400u);
  grpc::Status got = Get(carol, long_namespace, "cm-a");
  EXPECT_EQ(got.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << got.error_message();
  grpc::Status watched = WatchStarts(carol, long_namespace);
  EXPECT_EQ(watched.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << watched.error_message();
  // Carol's RBAC still decides for well-formed requests.
  EXPECT_EQ(List(carol, *n1_).error_code(), grpc::StatusCode::PERMISSION_DENIED);

  grpc::Status huge = List(carol, std::string(300000, 'n'));
  EXPECT_EQ(huge.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << huge.error_message();
  EXPECT_LT(huge.error_message().size(), 400u);
}

// A fresh namespace with a "seed" ConfigMap, and bob's cluster-wide read,
// visible to his token before the constructor returns and revoked (at the
// latest) when the object goes.
class BobCanRead {
 public:
  explicit BobCanRead(const std::string& namespace_prefix)
      : ns(CreateTestNamespace(namespace_prefix)),
        bob(ReadFileFromEnv("INFORMERD_BOB_TOKEN_FILE")),
        grant_(absl::StrCat("informerd-", ns)) {
    GrantBobClusterRead(grant_);
    CreateConfigMap(ns, "seed", {});
    AwaitApiStatus(*ClientWithToken(bob), absl::StrCat("/api/v1/namespaces/", ns, "/configmaps"),
                   200);
  }
  ~BobCanRead() { Revoke(); }
  void Revoke() {
    if (revoked_) return;
    revoked_ = true;
    DeleteClusterGrant(grant_);
  }

  const std::string ns;
  const std::string bob;

 private:
  const std::string grant_;
  bool revoked_ = false;
};

// A client that does not read: its HTTP/2 windows stay small (no BDP
// probing, 1 KB of lookahead), so the server's writes wait for it.
std::unique_ptr<v1::Cache::Stub> NonReadingClient(int port) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 1024);
  return v1::Cache::NewStub(grpc::CreateCustomChannel(
      absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials(), args));
}

// A WatchList of the namespace's ConfigMaps.
v1::WatchRequest WatchList(const std::string& ns) {
  v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  request.set_send_initial_events(true);
  request.set_allow_bookmarks(true);
  return request;
}

// Unary calls sent at once, each with a bearer token and a deadline; their
// statuses are kept as the answers come. Must outlive the calls' answers.
template <typename Response>
class CallFlood {
 public:
  // Starts one call: `start(context, response, done)` sends it, asynchronously.
  template <typename Start>
  void Send(const std::string& token, absl::Duration timeout, Start start) {
    calls_.push_back(std::make_unique<Call>());
    Call* call = calls_.back().get();
    call->context.AddMetadata("authorization", "Bearer " + token);
    call->context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    start(&call->context, &call->response, [this, call](grpc::Status status) {
      absl::MutexLock lock(&mu_);
      call->status = std::move(status);
      ++answered_;
    });
  }

  // Waits up to `timeout` until at least `count` calls are answered.
  bool WaitForAnswers(int count, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return answered_ >= count; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }

  int answered() {
    absl::MutexLock lock(&mu_);
    return answered_;
  }

  // In the order sent; REQUIRES: every call answered.
  std::vector<grpc::Status> statuses() {
    absl::MutexLock lock(&mu_);
    std::vector<grpc::Status> statuses;
    for (const auto& call : calls_) statuses.push_back(call->status);
    return statuses;
  }

 private:
  struct Call {
    grpc::ClientContext context;
    Response response;
    grpc::Status status;
  };
  std::vector<std::unique_ptr<Call>> calls_;
  absl::Mutex mu_;
  int answered_ ABSL_GUARDED_BY(mu_) = 0;
};

// Limits per caller, told apart by an Authorizer that asks the apiserver
// (or by their address where the test sets none).
class LimitsTest : public ::testing::Test {
 protected:
  const std::string admin_ = ReadFileFromEnv("INFORMERD_ADMIN_TOKEN_FILE");
  auth::KubeReviewer kube_reviewer_{&AdminClient()};
};

TEST_F(LimitsTest, WatchLimitPerIdentityLeavesOthersAlone) {
  BobCanRead grant("authz-limits");
  const std::string& ns = grant.ns;
  const std::string& bob = grant.bob;
  InProcessServerOptions options;
  options.reviewer = &kube_reviewer_;
  options.config.limits.max_watches_per_identity = 2;
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();

  // The current state first, so a first event proves admission.
  const v1::WatchRequest request = WatchFromState(ns);
  auto open = [&](const std::string& token, grpc::ClientContext* context) {
    context->AddMetadata("authorization", "Bearer " + token);
    context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    return server.stub().Watch(context, request);
  };
  grpc::ClientContext first_context, second_context, third_context, admin_context;
  v1::WatchEvent event;
  auto first = open(bob, &first_context);
  ASSERT_TRUE(first->Read(&event)) << first->Finish().error_message();
  auto second = open(bob, &second_context);
  ASSERT_TRUE(second->Read(&event)) << second->Finish().error_message();
  auto third = open(bob, &third_context);
  EXPECT_FALSE(third->Read(&event));
  grpc::Status status = third->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(),
            "too many concurrent Watch streams for \"user:bob\": the limit is 2 per caller; "
            "close some and retry");
  // Another identity is unaffected.
  auto other = open(admin_, &admin_context);
  ASSERT_TRUE(other->Read(&event)) << other->Finish().error_message();
  // And bob's admitted streams keep streaming.
  CreateConfigMap(ns, "after-limit", {});
  ASSERT_TRUE(first->Read(&event));
  EXPECT_EQ(event.type(), v1::WatchEvent::ADDED);
  EXPECT_NE(event.object().json().find("after-limit"), std::string::npos);
  for (grpc::ClientContext* context : {&first_context, &second_context, &admin_context}) {
    context->TryCancel();
  }
}

// Reads that wait for a future version hold a server thread each: a caller
// gets a few, the rest are refused at once, and another caller's reads are
// not delayed behind them.
TEST_F(LimitsTest, WaitingReadsAreCappedPerIdentity) {
  BobCanRead grant("authz-waiting");
  const std::string& ns = grant.ns;
  const std::string& bob = grant.bob;
  InProcessServerOptions options;
  options.reviewer = &kube_reviewer_;
  options.config.read_wait = absl::Seconds(5);
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();

  auto get_request = [&](const std::string& min_version) {
    v1::GetRequest request;
    request.mutable_resource()->set_resource("configmaps");
    request.set_namespace_(ns);
    request.set_name("seed");
    request.set_min_resource_version(min_version);
    return request;
  };
  auto admin_get = [&] {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + admin_);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::GetResponse response;
    absl::Time start = absl::Now();
    grpc::Status status = server.stub().Get(&context, get_request(""), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return absl::Now() - start;
  };
  absl::Duration unflooded = absl::ZeroDuration();
  for (int i = 0; i < 20; ++i) unflooded = std::max(unflooded, admin_get());
  {
    // Bob's token and permission reviewed once, before the flood: this test
    // is about waiting reads, not review load.
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + bob);
    v1::GetResponse response;
    ASSERT_TRUE(server.stub().Get(&context, get_request(""), &response).ok());
  }

  constexpr int kFlood = 400;
  const v1::GetRequest far_future = get_request("999999999999");
  CallFlood<v1::GetResponse> flood;
  for (int i = 0; i < kFlood; ++i) {
    flood.Send(bob, absl::Seconds(30), [&](auto* context, auto* response, auto done) {
      server.stub().async()->Get(context, &far_future, response, std::move(done));
    });
  }
  // All but bob's allowance are refused without waiting: the flood is
  // settled down to the waiting few while they still wait.
  ASSERT_TRUE(flood.WaitForAnswers(kFlood - 8, absl::Seconds(4)))
      << flood.answered() << " of " << kFlood << " answered";
  absl::Duration flooded = absl::ZeroDuration();
  for (int i = 0; i < 20; ++i) flooded = std::max(flooded, admin_get());
  EXPECT_LT(flooded, unflooded * 2 + absl::Milliseconds(100))
      << "unflooded max " << unflooded << ", flooded max " << flooded;
  ASSERT_TRUE(flood.WaitForAnswers(kFlood, absl::Seconds(20)));
  int refused = 0, timed_out = 0;
  for (const grpc::Status& status : flood.statuses()) {
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
      EXPECT_EQ(status.error_message(),
                "too many reads waiting for a resource version for \"user:bob\": the limit is 8 "
                "per caller; close some and retry");
    } else {
      ++timed_out;
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
    }
  }
  EXPECT_EQ(timed_out, 8);
  EXPECT_EQ(refused, kFlood - 8);
}

// Passes every review to the apiserver's and counts the TokenReviews; while
// `broken`, fails them as an unreachable apiserver would.
class CountingReviewer : public auth::Reviewer {
 public:
  explicit CountingReviewer(auth::Reviewer* inner) : inner_(inner) {}
  absl::StatusOr<auth::UserInfo> ReviewToken(std::string_view token) override {
    ++token_reviews;
    if (broken) return absl::UnavailableError("connection refused");
    return inner_->ReviewToken(token);
  }
  absl::StatusOr<bool> ReviewAccess(const auth::UserInfo& user,
                                    const auth::ResourceAttributes& attributes) override {
    if (broken) return absl::UnavailableError("connection refused");
    return inner_->ReviewAccess(user, attributes);
  }
  std::atomic<int> token_reviews{0};
  std::atomic<bool> broken{false};

 private:
  auth::Reviewer* const inner_;
};

// Passes every review to the apiserver's, but holds each TokenReview for a
// token other than `passed` until Release(): an apiserver that answers
// slowly, for everyone not yet cached.
class HoldingReviewer : public auth::Reviewer {
 public:
  HoldingReviewer(auth::Reviewer* inner, std::string passed)
      : inner_(inner), passed_(std::move(passed)) {}
  absl::StatusOr<auth::UserInfo> ReviewToken(std::string_view token) override {
    if (token != passed_) {
      absl::MutexLock lock(&mu_);
      ++holding_;
      mu_.Await(absl::Condition(&released_));
      --holding_;
    }
    return inner_->ReviewToken(token);
  }
  absl::StatusOr<bool> ReviewAccess(const auth::UserInfo& user,
                                    const auth::ResourceAttributes& attributes) override {
    return inner_->ReviewAccess(user, attributes);
  }
  // Waits until `n` reviews are held at once.
  bool AwaitHolding(int n) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return holding_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }
  int holding() {
    absl::MutexLock lock(&mu_);
    return holding_;
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    released_ = true;
  }

 private:
  auth::Reviewer* const inner_;
  const std::string passed_;
  absl::Mutex mu_;
  int holding_ ABSL_GUARDED_BY(mu_) = 0;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
};

int ProcessThreads() {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                        std::filesystem::directory_iterator()));
}

// A Watch's reviews run on the review workers, as a unary call's do: while
// the apiserver sits on TokenReviews, a hundred Watches waiting for theirs
// hold no gRPC thread (the process does not grow a thread per Watch), a
// caller whose answers are cached is served meanwhile, and once the reviews
// answer each waiting Watch gets its own verdict: streaming, or the refusal
// an immediate review would have given (an unserved resource told only to
// an authenticated caller).
TEST_F(LimitsTest, WatchesWaitingForReviewsHoldNoThread) {
  BobCanRead grant("authz-held");
  const std::string& ns = grant.ns;
  const std::string& bob = grant.bob;
  const std::string carol = ReadFileFromEnv("INFORMERD_CAROL_TOKEN_FILE");
  HoldingReviewer reviewer(&kube_reviewer_, bob);
  InProcessServerOptions options;
  options.reviewer = &reviewer;
  options.config.limits.token_reviews.per_identity_per_second = 1000;
  options.config.limits.token_reviews.per_identity_burst = 1000;
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();

  const v1::WatchRequest request = WatchFromState(ns);
  v1::WatchRequest unserved = request;
  unserved.mutable_resource()->set_resource("widgets");
  struct Held {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> reader;
    grpc::StatusCode expected;
  };
  std::vector<std::unique_ptr<Held>> held;
  // On every exit: the workers must not stay blocked for the server's end.
  absl::Cleanup release = [&reviewer] { reviewer.Release(); };
  auto open = [&](const std::string& token, const v1::WatchRequest& what,
                  grpc::StatusCode expected) {
    held.push_back(std::make_unique<Held>());
    Held& watch = *held.back();
    watch.context.AddMetadata("authorization", "Bearer " + token);
    watch.context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    watch.reader = server.stub().Watch(&watch.context, what);
    watch.expected = expected;
  };
  v1::ListRequest list;
  list.mutable_resource()->set_resource("configmaps");
  list.set_namespace_(ns);
  auto bobs_list = [&] {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + bob);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    v1::ListResponse response;
    return server.stub().List(&context, list, &response);
  };
  auto bobs_watch_starts = [&] {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + bob);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    auto reader = server.stub().Watch(&context, request);
    v1::WatchEvent event;
    bool started = reader->Read(&event);
    context.TryCancel();
    reader->Finish();
    return started && event.type() == v1::WatchEvent::ADDED;
  };
  // Bob's token and permissions reviewed and cached.
  ASSERT_TRUE(bobs_list().ok());
  ASSERT_TRUE(bobs_watch_starts());

  const int threads_before = ProcessThreads();
  constexpr int kMadeUp = 96;
  for (int i = 0; i < kMadeUp; ++i) {
    open(absl::StrCat("made-up-token-", i), i % 2 == 0 ? request : unserved,
         grpc::StatusCode::UNAUTHENTICATED);
  }
  open(admin_, request, grpc::StatusCode::OK);
  open(carol, request, grpc::StatusCode::PERMISSION_DENIED);
  open(carol, unserved, grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(reviewer.AwaitHolding(1));

  // Bob, cached, is served while every other caller waits for the apiserver.
  EXPECT_TRUE(bobs_list().ok());
  EXPECT_TRUE(bobs_watch_starts());
  const int threads_while_held = ProcessThreads();
  const int holding = reviewer.holding();
  std::cout << "threads: " << threads_before << " before, " << threads_while_held << " with "
            << held.size() << " Watches waiting for reviews (" << holding
            << " reviews running)\n";
  // A few review workers run the reviews; the rest wait in their queue.
  EXPECT_LT(holding, 16);
  EXPECT_LT(threads_while_held - threads_before, 32);

  reviewer.Release();
  for (const std::unique_ptr<Held>& watch : held) {
    v1::WatchEvent event;
    if (watch->expected == grpc::StatusCode::OK) {
      ASSERT_TRUE(watch->reader->Read(&event)) << watch->reader->Finish().error_message();
      EXPECT_EQ(event.type(), v1::WatchEvent::ADDED);
      watch->context.TryCancel();
      watch->reader->Finish();
      continue;
    }
    EXPECT_FALSE(watch->reader->Read(&event));
    grpc::Status status = watch->reader->Finish();
    EXPECT_EQ(status.error_code(), watch->expected) << status.error_message();
  }
}

// A revocation informerd cannot learn of (its path to the review API
// broken) ends the watch once the re-checks have failed for the grace:
// reviews fail closed.
TEST_F(LimitsTest, AWatchThatCannotBeReauthorizedEndsAfterTheGrace) {
  BobCanRead grant("authz-grace");
  const std::string& ns = grant.ns;
  const std::string& bob = grant.bob;
  CountingReviewer reviewer(&kube_reviewer_);
  InProcessServerOptions options;
  options.reviewer = &reviewer;
  options.config.auth.token_ttl = absl::Seconds(1);
  options.config.auth.decision_ttl = absl::Seconds(1);
  options.config.auth.recheck_interval = absl::Seconds(1);
  options.config.auth.recheck_grace = absl::Seconds(3);
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();

  v1::WatchRequest request = WatchFromState(ns);
  request.set_allow_bookmarks(true);
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + bob);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  auto reader = server.stub().Watch(&context, request);
  v1::WatchEvent event;
  ASSERT_TRUE(reader->Read(&event)) << reader->Finish().error_message();

  reviewer.broken = true;
  grant.Revoke();
  absl::Time broken_at = absl::Now();
  while (reader->Read(&event)) {
  }
  grpc::Status status = reader->Finish();
  absl::Duration took = absl::Now() - broken_at;
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  EXPECT_NE(status.error_message().find("could not be authorized again for 3s"),
            std::string::npos)
      << status.error_message();
  // The grace, plus the cached answers' second and a re-check's interval.
  EXPECT_GE(took, absl::Seconds(3));
  EXPECT_LT(took, absl::Seconds(8)) << took;
}

// An old connection is asked to go away and its streams are cut after the
// grace, so long-lived clients spread again over replicas; the client
// reconnects and carries on.
TEST_F(LimitsTest, OldConnectionsAreClosedAfterTheirGrace) {
  std::string ns = CreateTestNamespace("limits-age");
  CreateConfigMap(ns, "seed", {});
  InProcessServerOptions options;
  options.config.limits.transport.max_connection_age = absl::Seconds(1);
  options.config.limits.transport.max_connection_age_grace = absl::Seconds(1);
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  const v1::WatchRequest request = WatchFromState(ns);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  absl::Time start = absl::Now();
  auto reader = server.stub().Watch(&context, request);
  v1::WatchEvent event;
  ASSERT_TRUE(reader->Read(&event));
  while (reader->Read(&event)) {
  }
  grpc::Status status = reader->Finish();
  absl::Duration lasted = absl::Now() - start;
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  // Age (jittered by up to 10%) plus grace.
  EXPECT_LT(lasted, absl::Seconds(10)) << lasted;
  grpc::ClientContext again;
  again.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  auto second = server.stub().Watch(&again, request);
  EXPECT_TRUE(second->Read(&event)) << "the client reconnects";
  again.TryCancel();
  second->Finish();
}

// A Watch of the namespace's ConfigMaps from "0" on `stub`, admitted once
// its first event arrives; the call ends at `deadline` at the latest.
struct OpenWatch {
  OpenWatch(v1::Cache::Stub* stub, const std::string& ns, absl::Duration deadline) {
    context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
    reader = stub->Watch(&context, WatchFromState(ns));
  }
  bool Started() { return reader->Read(&event); }
  grpc::Status End() {
    context.TryCancel();
    while (reader->Read(&event)) {
    }
    return reader->Finish();
  }
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> reader;
  v1::WatchEvent event;
};

// One connection holds at most max_concurrent_streams RPCs: a third Watch
// on a connection already holding two waits in the client (HTTP/2's
// SETTINGS_MAX_CONCURRENT_STREAMS) until one of them ends, while another
// connection is served at once.
TEST_F(LimitsTest, AConnectionHoldsAtMostMaxConcurrentStreams) {
  std::string ns = CreateTestNamespace("limits-streams");
  CreateConfigMap(ns, "seed", {});
  InProcessServerOptions options;
  options.config.limits.transport.max_concurrent_streams = 2;
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  // The first ends at its deadline, which frees its slot.
  OpenWatch first(&server.stub(), ns, absl::Seconds(5));
  ASSERT_TRUE(first.Started()) << first.End().error_message();
  OpenWatch second(&server.stub(), ns, absl::Seconds(60));
  ASSERT_TRUE(second.Started()) << second.End().error_message();
  // Sent on the open connection before the other connection is even made.
  OpenWatch third(&server.stub(), ns, absl::Seconds(60));
  // A channel of its own: gRPC would otherwise share the first's connection.
  grpc::ChannelArguments own_connection;
  own_connection.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto other = v1::Cache::NewStub(grpc::CreateCustomChannel(
      absl::StrCat("127.0.0.1:", server.port()), grpc::InsecureChannelCredentials(),
      own_connection));
  OpenWatch elsewhere(other.get(), ns, absl::Seconds(60));
  ASSERT_TRUE(elsewhere.Started()) << elsewhere.End().error_message();
  // The server holds first, second and elsewhere; third waits in its client.
  EXPECT_EQ(server.open_watches(), 3u);
  while (first.reader->Read(&first.event)) {
  }
  EXPECT_EQ(first.reader->Finish().error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  // The freed slot is taken by the waiting Watch.
  EXPECT_TRUE(third.Started()) << third.End().error_message();
  for (OpenWatch* watch : {&second, &third, &elsewhere}) watch->End();
}

// A client that pings more often than min_ping_interval while it sends no
// data is disconnected (GOAWAY "too many pings"): keepalive cannot be used
// to keep informerd busy. Its Watch ends UNAVAILABLE, long before its
// deadline.
TEST_F(LimitsTest, AClientPingingTooOftenIsDisconnected) {
  std::string ns = CreateTestNamespace("limits-pings");
  CreateConfigMap(ns, "seed", {});
  InProcessServerOptions options;
  options.config.limits.transport.min_ping_interval = absl::Seconds(10);
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 100);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_HTTP2_MIN_SENT_PING_INTERVAL_WITHOUT_DATA_MS, 100);
  auto pinging = v1::Cache::NewStub(grpc::CreateCustomChannel(
      absl::StrCat("127.0.0.1:", server.port()), grpc::InsecureChannelCredentials(), args));
  OpenWatch watch(pinging.get(), ns, absl::Seconds(60));
  ASSERT_TRUE(watch.Started()) << watch.End().error_message();
  // The namespace stays quiet: no data flows, only the client's pings.
  while (watch.reader->Read(&watch.event)) {
  }
  grpc::Status status = watch.reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  // The server itself carries on: another connection is served.
  OpenWatch polite(&server.stub(), ns, absl::Seconds(60));
  EXPECT_TRUE(polite.Started()) << polite.End().error_message();
  polite.End();
}

// Clients that open WatchLists and never read them hold nothing for long:
// each stream ends once a write has waited stalled_stream_timeout, in its
// initial events.
TEST_F(LimitsTest, StalledWatchesEnd) {
  std::string ns = CreateTestNamespace("limits-stalled");
  const std::string data(4000, 'd');
  constexpr int kObjects = 100;
  for (int i = 0; i < kObjects; ++i) CreateConfigMap(ns, absl::StrCat("cm-", i), {}, data);
  InProcessServerOptions options;
  options.config.stalled_stream_timeout = absl::Seconds(2);
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  std::unique_ptr<v1::Cache::Stub> stub = NonReadingClient(server.port());
  const v1::WatchRequest request = WatchList(ns);
  constexpr int kStreams = 20;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::WatchEvent>>> readers;
  for (int i = 0; i < kStreams; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    contexts.back()->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    readers.push_back(stub->Watch(contexts.back().get(), request));
  }
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (server.open_watches() < kStreams && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));  // polling a condition
  }
  ASSERT_EQ(server.open_watches(), static_cast<size_t>(kStreams));
  absl::Time opened = absl::Now();
  while (server.open_watches() > 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));  // polling a condition
  }
  EXPECT_EQ(server.open_watches(), 0u);
  EXPECT_LT(absl::Now() - opened, absl::Seconds(10));
  for (auto& reader : readers) {
    v1::WatchEvent event;
    int events = 0;
    while (reader->Read(&event)) ++events;
    grpc::Status status = reader->Finish();
    EXPECT_FALSE(status.ok());
    EXPECT_LT(events, kObjects) << "the stream ended before its initial events were all sent";
  }
}

// A client that keeps reading, but too slowly to ever finish its initial
// events, holds its snapshot no longer than initial_events_timeout: each
// read accepts a write well within stalled_stream_timeout, so only the
// initial-events deadline ends it.
TEST_F(LimitsTest, ASlowReaderOfInitialEventsEndsAtTheirDeadline) {
  std::string ns = CreateTestNamespace("limits-trickle");
  const std::string data(4000, 'd');
  constexpr int kObjects = 100;
  for (int i = 0; i < kObjects; ++i) CreateConfigMap(ns, absl::StrCat("cm-", i), {}, data);
  InProcessServerOptions options;
  options.config.stalled_stream_timeout = absl::Seconds(3);
  options.config.initial_events_timeout = absl::Seconds(4);
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  std::unique_ptr<v1::Cache::Stub> stub = NonReadingClient(server.port());
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  auto reader = stub->Watch(&context, WatchList(ns));
  absl::Time opened = absl::Now();
  v1::WatchEvent event;
  int events = 0;
  bool initial_end = false;
  // The attack itself is the pacing: one message every 300 ms would take
  // 30 s to read the 100 objects.
  while (reader->Read(&event)) {
    ++events;
    if (event.initial_events_end()) initial_end = true;
    absl::SleepFor(absl::Milliseconds(300));
  }
  grpc::Status status = reader->Finish();
  EXPECT_FALSE(initial_end);
  EXPECT_LT(events, kObjects);
  // Finish's status races the cancellation that follows it.
  EXPECT_TRUE(status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
              status.error_code() == grpc::StatusCode::CANCELLED)
      << status.error_code() << " " << status.error_message();
  EXPECT_LT(absl::Now() - opened, absl::Seconds(15));
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (server.open_watches() > 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));  // polling a condition
  }
  EXPECT_EQ(server.open_watches(), 0u);
}

// The initial events a caller's streams hold until written are budgeted:
// its first WatchList is admitted whatever its size, a second one while the
// first is unread is refused, and reading the first frees the budget.
TEST_F(LimitsTest, InitialEventsHeldAreBudgetedPerCaller) {
  std::string ns = CreateTestNamespace("limits-initial");
  const std::string data(4000, 'd');
  for (int i = 0; i < 100; ++i) CreateConfigMap(ns, absl::StrCat("cm-", i), {}, data);
  InProcessServerOptions options;
  options.config.limits.max_initial_bytes_per_identity = 100 << 10;  // a quarter of one list
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  std::unique_ptr<v1::Cache::Stub> stub = NonReadingClient(server.port());
  const v1::WatchRequest request = WatchList(ns);
  auto open = [&](grpc::ClientContext* context) {
    context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    return stub->Watch(context, request);
  };
  grpc::ClientContext first_context;
  auto first = open(&first_context);
  absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (server.open_watches() < 1 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));  // polling a condition
  }
  grpc::ClientContext second_context;
  auto second = open(&second_context);
  v1::WatchEvent event;
  EXPECT_FALSE(second->Read(&event));
  grpc::Status refused = second->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("bytes of initial events held"), std::string::npos)
      << refused.error_message();
  // Reading the first to its end-of-initial-events bookmark frees the budget.
  while (first->Read(&event) && !event.initial_events_end()) {
  }
  ASSERT_TRUE(event.initial_events_end());
  grpc::ClientContext third_context;
  auto third = open(&third_context);
  EXPECT_TRUE(third->Read(&event)) << third->Finish().error_message();
  first_context.TryCancel();
  third_context.TryCancel();
}

// A flood of made-up tokens: the TokenReviews it costs the apiserver are
// bounded by the budget of tokens never accepted (the "new" lane), and a
// caller whose token is known is not slowed down.
TEST_F(LimitsTest, AFloodOfBadTokensCostsBoundedReviewsAndDelaysNoOne) {
  BobCanRead grant("authz-flood");
  const std::string& ns = grant.ns;
  const std::string& bob = grant.bob;
  CountingReviewer reviewer(&kube_reviewer_);
  InProcessServerOptions options;
  options.reviewer = &reviewer;
  options.config.limits.token_reviews.per_identity_per_second = 5;
  options.config.limits.token_reviews.per_identity_burst = 20;
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();

  v1::ListRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  auto bobs_slowest_list = [&] {
    absl::Duration slowest = absl::ZeroDuration();
    for (int i = 0; i < 50; ++i) {
      grpc::ClientContext context;
      context.AddMetadata("authorization", "Bearer " + bob);
      v1::ListResponse response;
      absl::Time start = absl::Now();
      grpc::Status status = server.stub().List(&context, request, &response);
      EXPECT_TRUE(status.ok()) << status.error_message();
      slowest = std::max(slowest, absl::Now() - start);
    }
    return slowest;
  };
  bobs_slowest_list();  // bob's token and permission reviewed and cached
  absl::Duration unflooded = bobs_slowest_list();
  const int reviews_before = reviewer.token_reviews.load();

  constexpr int kFlood = 1000;
  CallFlood<v1::ListResponse> flood;
  std::mt19937_64 random(7);
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
  absl::Time flood_start = absl::Now();
  for (int i = 0; i < kFlood; ++i) {
    std::string token(6000, 'x');
    for (char& c : token) c = alphabet[random() % alphabet.size()];
    flood.Send(token, absl::Seconds(60), [&](auto* context, auto* response, auto done) {
      server.stub().async()->List(context, &request, response, std::move(done));
    });
  }
  absl::Duration flooded = bobs_slowest_list();
  ASSERT_TRUE(flood.WaitForAnswers(kFlood, absl::Seconds(60)));
  absl::Duration flood_time = absl::Now() - flood_start;
  int refused = 0, rejected = 0;
  for (const grpc::Status& status : flood.statuses()) {
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
    } else {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
      ++rejected;
    }
  }
  const int reviews = reviewer.token_reviews.load() - reviews_before;
  // The new-token lane's burst, then its rate while the flood lasted.
  const double budget = 20 + 5 * absl::ToDoubleSeconds(flood_time) + 1;
  EXPECT_LE(reviews, budget) << "flood of " << kFlood << " over " << flood_time;
  EXPECT_EQ(rejected, reviews);
  EXPECT_EQ(refused + rejected, kFlood);
  EXPECT_LT(flooded, unflooded * 2 + absl::Milliseconds(50))
      << "bob's slowest List: " << unflooded << " unflooded, " << flooded << " flooded";
  std::cout << "flood: " << kFlood << " bad tokens in " << flood_time << ", " << reviews
            << " TokenReviews, " << refused << " refused before review; bob's slowest of 50 "
            << "Lists " << unflooded << " unflooded, " << flooded << " flooded\n";
}

}  // namespace
}  // namespace informerd::testing
