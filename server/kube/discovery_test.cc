#include "server/kube/discovery.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/kube/fake_api_server.h"

namespace informerd::kube {
namespace {

using ::testing::ElementsAre;

void Serve(FakeApiServer& server, const std::string& path,
           const std::string& json) {
  server.Handle(path, [json](const httplib::Request&,
                             httplib::Response& response) {
    response.status = 200;
    response.set_content(json, "application/json");
  });
}

class DiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Serve(server_, "/api", R"({"kind":"APIVersions","versions":["v1"]})");
    Serve(server_, "/version", R"({"major":"1","minor":"33+","gitVersion":"v1.33.4-gke.1"})");
    Serve(server_, "/api/v1", R"({"kind":"APIResourceList",
      "groupVersion":"v1","resources":[
      {"name":"pods","namespaced":true,"kind":"Pod",
       "verbs":["create","delete","get","list","watch"]},
      {"name":"pods/log","namespaced":true,"kind":"Pod","verbs":["get"]},
      {"name":"nodes","namespaced":false,"kind":"Node",
       "verbs":["get","list","watch"]},
      {"name":"bindings","namespaced":true,"kind":"Binding",
       "verbs":["create"]}]})");
    Serve(server_, "/apis", R"({"kind":"APIGroupList","groups":[
      {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
       "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
      {"name":"example.com","versions":[
         {"groupVersion":"example.com/v2","version":"v2"},
         {"groupVersion":"example.com/v1","version":"v1"}],
       "preferredVersion":{"groupVersion":"example.com/v2","version":"v2"}}]})");
    Serve(server_, "/apis/apps/v1", R"({"resources":[
      {"name":"deployments","namespaced":true,"kind":"Deployment",
       "verbs":["list","watch","get"]}]})");
    Serve(server_, "/apis/example.com/v1", R"({"resources":[
      {"name":"widgets","namespaced":false,"kind":"Widget",
       "verbs":["list","watch"]}]})");
    Serve(server_, "/apis/example.com/v2", R"({"resources":[
      {"name":"widgets","namespaced":true,"kind":"Widget",
       "verbs":["list","watch"]}]})");
    absl::StatusOr<std::unique_ptr<RestClient>> client =
        RestClient::Create(server_.config());
    ASSERT_TRUE(client.ok());
    client_ = *std::move(client);
  }

  FakeApiServer server_;
  std::unique_ptr<RestClient> client_;
};

TEST_F(DiscoveryTest, FindsACoreResource) {
  absl::StatusOr<ResourceInfo> info = Discover(*client_, "", "", "pods");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->group, "");
  EXPECT_EQ(info->version, "v1");
  EXPECT_EQ(info->kind, "Pod");
  EXPECT_TRUE(info->namespaced);
  EXPECT_THAT(info->verbs,
              ElementsAre("create", "delete", "get", "list", "watch"));
  EXPECT_EQ(CollectionPath(*info, ""), "/api/v1/pods");
  EXPECT_EQ(CollectionPath(*info, "kube-system"),
            "/api/v1/namespaces/kube-system/pods");
}

TEST_F(DiscoveryTest, ClusterScopedIgnoresTheNamespace) {
  absl::StatusOr<ResourceInfo> info = Discover(*client_, "", "v1", "nodes");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->namespaced);
  EXPECT_EQ(CollectionPath(*info, "default"), "/api/v1/nodes");
}

TEST_F(DiscoveryTest, UsesThePreferredVersionOfAGroup) {
  absl::StatusOr<ResourceInfo> info =
      Discover(*client_, "example.com", "", "widgets");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->version, "v2");
  EXPECT_TRUE(info->namespaced);
  EXPECT_EQ(CollectionPath(*info, "ns"),
            "/apis/example.com/v2/namespaces/ns/widgets");
}

TEST_F(DiscoveryTest, UsesAnExplicitVersion) {
  absl::StatusOr<ResourceInfo> info =
      Discover(*client_, "example.com", "v1", "widgets");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->version, "v1");
  EXPECT_FALSE(info->namespaced);
  EXPECT_EQ(CollectionPath(*info, ""), "/apis/example.com/v1/widgets");
  EXPECT_EQ(Discover(*client_, "apps", "", "deployments")->kind, "Deployment");
}

TEST_F(DiscoveryTest, UnknownResourcesAreNotFound) {
  absl::StatusOr<ResourceInfo> info = Discover(*client_, "apps", "", "pods");
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(info.status().message(),
            "resource pods.v1.apps not served by the API server");
  EXPECT_EQ(Discover(*client_, "nope.io", "", "x").status().message(),
            "resource x.nope.io not served by the API server");
  EXPECT_EQ(Discover(*client_, "apps", "v9", "deployments").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Discover(*client_, "", "v2", "pods").status().code(),
            absl::StatusCode::kNotFound);
  // A subresource is not a collection.
  EXPECT_EQ(Discover(*client_, "", "", "pods/log").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(DiscoveryTest, ResourcesThatCannotBeWatchedAreRejected) {
  absl::StatusOr<ResourceInfo> info = Discover(*client_, "", "", "bindings");
  EXPECT_EQ(info.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(info.status().message(),
            "resource bindings.v1 cannot be listed and watched "
            "(verbs: create)");
}

TEST_F(DiscoveryTest, ServerErrorsAndGarbageAreReported) {
  server_.Handle("/apis", [](const httplib::Request&,
                             httplib::Response& response) {
    response.status = 503;
    response.set_content("overloaded", "text/plain");
  });
  EXPECT_EQ(Discover(*client_, "apps", "", "deployments").status().code(),
            absl::StatusCode::kUnavailable);
  Serve(server_, "/apis", "[1,2");
  EXPECT_EQ(Discover(*client_, "apps", "", "deployments").status().code(),
            absl::StatusCode::kDataLoss);
  Serve(server_, "/apis", R"({"groups":7})");
  EXPECT_EQ(Discover(*client_, "apps", "", "deployments").status().code(),
            absl::StatusCode::kDataLoss);
}

// Found by discovery_fuzzer: the server's version went into every list and
// watch URL as it was, so "v1/../../x" or a CR LF could reshape the request.
TEST(DiscoverFromTest, RejectsAVersionThatIsNotADnsLabel) {
  const std::vector<std::string> versions = {
      "v1/../../api/v1/secrets", "v1\r\nX: y", "V1", "1v", "v1-", "v1 ", std::string(64, 'v')};
  for (const std::string& bad : versions) {
    auto get = [&](const std::string& path) -> absl::StatusOr<HttpResponse> {
      if (path == "/apis") {
        return HttpResponse{200, {}, R"({"groups":[{"name":"apps","versions":[{"version":")" +
                                         absl::CEscape(bad) + R"("}]}]})"};
      }
      return HttpResponse{200, {}, R"({"resources":[{"name":"deployments",
          "kind":"Deployment","verbs":["list","watch"]}]})"};
    };
    EXPECT_EQ(DiscoverFrom(get, "apps", "", "deployments").status().code(),
              absl::StatusCode::kDataLoss)
        << bad;
  }
}

// DiscoverFrom reads what it is given, asking for the two documents in
// order; no server needed.
TEST(DiscoverFromTest, ReadsTheDocumentsGiven) {
  std::vector<std::string> asked;
  auto get = [&](const std::string& path) -> absl::StatusOr<HttpResponse> {
    asked.push_back(path);
    if (path == "/api") return HttpResponse{200, {}, R"({"versions":["v1"]})"};
    return HttpResponse{200, {}, R"({"resources":[{"name":"configmaps",
        "namespaced":true,"kind":"ConfigMap","verbs":["list","watch"]}]})"};
  };
  absl::StatusOr<ResourceInfo> info = DiscoverFrom(get, "", "", "configmaps");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kind, "ConfigMap");
  EXPECT_EQ(info->version, "v1");
  EXPECT_TRUE(info->namespaced);
  EXPECT_EQ(asked, (std::vector<std::string>{"/api", "/api/v1"}));
  // A failed GET is the answer, unchanged.
  auto refused = [](const std::string&) -> absl::StatusOr<HttpResponse> {
    return absl::UnavailableError("connection refused");
  };
  EXPECT_EQ(DiscoverFrom(refused, "", "", "configmaps").status(),
            absl::UnavailableError("connection refused"));
}

TEST(ServerVersionTest, ReadsMajorAndMinor) {
  absl::StatusOr<ServerVersion> version = ParseServerVersion(
      R"({"major":"1","minor":"37","gitVersion":"v1.37.2","platform":"linux/amd64"})");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(version->major, 1);
  EXPECT_EQ(version->minor, 37);
  EXPECT_TRUE(version->StreamsListEncoding());
}

TEST(ServerVersionTest, AProvidersSuffixIsIgnored) {
  absl::StatusOr<ServerVersion> version = ParseServerVersion(R"({"major":"1","minor":"32+"})");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(version->minor, 32);
  EXPECT_FALSE(version->StreamsListEncoding());
}

TEST(ServerVersionTest, ListEncodingStreamsFrom133) {
  EXPECT_FALSE((ServerVersion{1, 20}).StreamsListEncoding());
  EXPECT_FALSE((ServerVersion{1, 32}).StreamsListEncoding());
  EXPECT_TRUE((ServerVersion{1, 33}).StreamsListEncoding());
  EXPECT_TRUE((ServerVersion{2, 0}).StreamsListEncoding());
}

TEST(ServerVersionTest, BadDocumentsNameWhatIsWrong) {
  for (const char* body : {"", "[]", "{\"major\":\"1\"}", "{\"major\":1,\"minor\":\"37\"}",
                           "{\"major\":\"v1\",\"minor\":\"37\"}", "{\"major\":\"1\",\"minor\":\"\"}"}) {
    SCOPED_TRACE(body);
    absl::StatusOr<ServerVersion> version = ParseServerVersion(body);
    ASSERT_FALSE(version.ok());
    EXPECT_EQ(version.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(version.status().message(), "/version"))
        << version.status();
  }
  EXPECT_TRUE(absl::StrContains(ParseServerVersion("{\"major\":\"1\"}").status().message(),
                                "minor"));
}

TEST_F(DiscoveryTest, GetsTheServersVersion) {
  absl::StatusOr<ServerVersion> version = GetServerVersion(*client_);
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(version->major, 1);
  EXPECT_EQ(version->minor, 33);
}

}  // namespace
}  // namespace informerd::kube
