#include "server/kube/kubeconfig.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd::kube {
namespace {

using ::testing::HasSubstr;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::string(std::getenv("TEST_TMPDIR")) + "/" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("mkdir -p " + dir_).c_str()), 0);
  }

  std::string Write(const std::string& name, const std::string& contents) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << contents;
    return path;
  }

  absl::Status LoadError(const std::string& yaml) {
    const std::string path = Write("config", yaml);
    absl::StatusOr<ClusterConfig> config = LoadKubeconfig(path);
    EXPECT_FALSE(config.ok());
    return config.status();
  }

  std::string dir_;
};

constexpr char kValid[] = R"(
apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
clusters:
- name: prod-cluster
  cluster:
    server: https://prod.example:6443
    certificate-authority: ca.crt
- name: dev-cluster
  cluster:
    server: https://dev.example:6443/
    certificate-authority-data: Q0EtUEVN
    insecure-skip-tls-verify: true
users:
- name: prod-user
  user:
    tokenFile: token
- name: dev-user
  user:
    token: s3cret
    client-certificate-data: Q0VSVA==
    client-key: keys/client.key
)";

TEST_F(KubeconfigTest, ReadsTheCurrentContext) {
  ASSERT_EQ(std::system(("mkdir -p " + dir_ + "/keys").c_str()), 0);
  Write("keys/client.key", "KEY");
  const std::string path = Write("config", kValid);
  absl::StatusOr<ClusterConfig> config = LoadKubeconfig(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://dev.example:6443");
  EXPECT_EQ(config->ca_pem, "CA-PEM");
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->token, "s3cret");
  EXPECT_EQ(config->client_cert_pem, "CERT");
  EXPECT_EQ(config->client_key_pem, "KEY");
  EXPECT_EQ(config->token_file, "");
}

TEST_F(KubeconfigTest, ReadsANamedContextWithRelativeFiles) {
  Write("ca.crt", "PROD-CA");
  const std::string path = Write("config", kValid);
  absl::StatusOr<ClusterConfig> config = LoadKubeconfig(path, "prod");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://prod.example:6443");
  EXPECT_EQ(config->ca_pem, "PROD-CA");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->token_file, dir_ + "/token");
  EXPECT_EQ(config->token, "");
}

TEST_F(KubeconfigTest, MissingFile) {
  absl::StatusOr<ClusterConfig> config = LoadKubeconfig(dir_ + "/nope");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(),
              HasSubstr("kubeconfig " + dir_ + "/nope: cannot read"));
}

TEST_F(KubeconfigTest, InvalidYaml) {
  EXPECT_THAT(LoadError("a: [unclosed").message(), HasSubstr("invalid YAML"));
  EXPECT_THAT(LoadError("just a string").message(),
              HasSubstr("not a YAML mapping"));
}

TEST_F(KubeconfigTest, NoCurrentContext) {
  EXPECT_THAT(LoadError("clusters: []").message(),
              HasSubstr("current-context: not set"));
}

TEST_F(KubeconfigTest, UnknownContext) {
  const std::string path = Write("config", kValid);
  absl::StatusOr<ClusterConfig> config = LoadKubeconfig(path, "staging");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "kubeconfig " + path + ": contexts: no entry named \"staging\"");
}

TEST_F(KubeconfigTest, InvalidBase64NamesTheField) {
  const absl::Status status = LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {client-certificate-data: Q0VSVA==, client-key-data: "!!notbase64"}}]
)");
  EXPECT_EQ(status.message(), "kubeconfig " + dir_ +
                                  "/config: users[0].user.client-key-data: "
                                  "invalid base64");
}

TEST_F(KubeconfigTest, WrongShapesNameTheField) {
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: [1, 2]}}]
)").message(),
              HasSubstr("clusters[0].cluster.server: must be a string"));
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: {c: 1}
)").message(),
              HasSubstr("contexts: must be a list"));
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "https://h", insecure-skip-tls-verify: maybe}}]
)").message(),
              HasSubstr("clusters[0].cluster.insecure-skip-tls-verify: must be "
                        "true or false"));
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "ftp://h"}}]
)").message(),
              HasSubstr("clusters[0].cluster.server: must be an http(s) URL"));
  // Found by kubeconfig_fuzzer: stripping trailing slashes ate the scheme's,
  // turning "https://" into the server "https:".
  for (const char* server : {"https://", "http:///"}) {
    EXPECT_THAT(LoadError(absl::StrCat(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: ")", server, R"("}}]
)")).message(),
                HasSubstr("clusters[0].cluster.server: \"" + std::string(server) +
                          "\" names no host"));
  }
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {}}]
)").message(),
              HasSubstr("clusters[0].cluster.server: missing"));
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: "k"}]
)").message(),
              HasSubstr("contexts[0].context: missing or not a mapping"));
}

TEST_F(KubeconfigTest, MissingReferencedFileNamesTheField) {
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "https://h", certificate-authority: /no/ca.crt}}]
)").message(),
              HasSubstr("clusters[0].cluster.certificate-authority: cannot "
                        "read /no/ca.crt"));
}

TEST_F(KubeconfigTest, UnsupportedAndIncompleteCredentials) {
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {command: aws}}}]
)").message(),
              HasSubstr("users[0].user.exec: not supported"));
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]
)").message(),
              HasSubstr("users[0].user: client-certificate and client-key"));
  EXPECT_THAT(LoadError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: nobody}}]
clusters: [{name: k, cluster: {server: "https://h"}}]
users: []
)").message(),
              HasSubstr("users: no entry named \"nobody\""));
}

TEST_F(KubeconfigTest, InClusterConfig) {
  Write("token", "tok\n");
  Write("ca.crt", "CLUSTER-CA");
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  absl::StatusOr<ClusterConfig> config = LoadInClusterConfig(dir_);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://10.0.0.1:443");
  EXPECT_EQ(config->token_file, dir_ + "/token");
  EXPECT_EQ(config->ca_pem, "CLUSTER-CA");

  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  config = LoadInClusterConfig(dir_);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://[fd00::1]:443");

  config = LoadInClusterConfig(dir_ + "/missing");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("in-cluster config: token"));

  unsetenv("KUBERNETES_SERVICE_HOST");
  config = LoadInClusterConfig(dir_);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(InsecureTransport, NamesWhatIsInsecure) {
  ClusterConfig config;
  config.server = "https://api.example:6443";
  EXPECT_EQ(InsecureTransport(config), "");
  config.insecure_skip_tls_verify = true;
  EXPECT_THAT(InsecureTransport(config), HasSubstr("insecure-skip-tls-verify"));
  config.insecure_skip_tls_verify = false;
  config.server = "http://api.example:8080";
  EXPECT_THAT(InsecureTransport(config), HasSubstr("http://api.example:8080 is plain http"));
}

// ParseKubeconfig reads text, and the files it names through the reader
// given, relative to the named file's directory; no file system needed.
TEST(ParseKubeconfigTest, ReadsReferencedFilesThroughTheReader) {
  std::vector<std::string> read;
  auto reader = [&](const std::string& path) -> absl::StatusOr<std::string> {
    read.push_back(path);
    if (path == "/etc/kube/ca.crt") return std::string("CA");
    return absl::NotFoundError("gone");
  };
  absl::StatusOr<ClusterConfig> config = ParseKubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "http://h:1/", certificate-authority: ca.crt}}]
)",
                                                         "/etc/kube/config", "", reader);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "http://h:1");
  EXPECT_EQ(config->ca_pem, "CA");
  EXPECT_EQ(read, std::vector<std::string>{"/etc/kube/ca.crt"});

  absl::StatusOr<ClusterConfig> missing = ParseKubeconfig(R"(
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "http://h", certificate-authority: /x}}]
)",
                                                          "/etc/kube/config", "c", reader);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("clusters[0].cluster.certificate-authority: gone"));
}

}  // namespace
}  // namespace informerd::kube
