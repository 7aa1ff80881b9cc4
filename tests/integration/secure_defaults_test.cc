// The informerd binary refuses the combinations that would expose the
// cluster, with an error naming the flag that accepts the risk, and starts
// when that flag is given or the listener is loopback:
//   --auth-mode=none on an address other hosts can reach
//     (--allow-unauthenticated);
//   --auth-mode=kubernetes over plaintext on such an address
//     (--allow-plaintext-tokens);
//   an http:// API server or insecure-skip-tls-verify in the kubeconfig
//     (--allow-insecure-upstream).
#include <fstream>
#include <thread>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "tests/certificates/test_certificates.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

using ::testing::HasSubstr;

// informerd's exit code for a refused configuration (main's Fatal).
constexpr int kRefused = 1;

// Flags for a small informerd on free ports; `grpc_host` is the gRPC
// listener's host. The HTTP port is always loopback, for /readyz.
struct Ports {
  int grpc = FreeLoopbackPort();
  int http = FreeLoopbackPort();
};

std::vector<std::string> Flags(const Ports& ports, const std::string& grpc_host,
                               std::vector<std::string> more) {
  std::vector<std::string> flags = {"--resources=namespaces",
                                    absl::StrCat("--grpc-address=", grpc_host, ":", ports.grpc),
                                    absl::StrCat("--http-address=127.0.0.1:", ports.http)};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

bool Ready(const Ports& ports) { return HttpGet(ports.http, "/readyz") == "200 ok\n"; }

std::string EnvOrDie(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    ADD_FAILURE() << name << " is not set; eval \"$(hack/control-plane.sh env)\"";
    return "";
  }
  return value;
}

// A kubeconfig for the admin token with the given cluster entry lines.
std::string WriteKubeconfig(const std::string& name, const std::string& cluster_lines) {
  std::string path = CertPath(name);
  std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                      << cluster_lines << "users:\n- name: u\n  user:\n    token: "
                      << ReadFileFromEnv("INFORMERD_ADMIN_TOKEN_FILE")
                      << "\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                      << "current-context: x\n";
  return path;
}

grpc::Status ListResources(const std::shared_ptr<grpc::Channel>& channel,
                           const std::string& token) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  v1::ListResourcesResponse response;
  return v1::Cache::NewStub(channel)->ListResources(&context, v1::ListResourcesRequest(),
                                                   &response);
}

std::shared_ptr<grpc::Channel> Plaintext(const Ports& ports) {
  return grpc::CreateChannel(absl::StrCat("127.0.0.1:", ports.grpc),
                             grpc::InsecureChannelCredentials());
}

// Refused before it listens or talks to the API server.
void ExpectRefused(InformerdProcess& informerd, const std::string& reason,
                   const std::string& flag) {
  EXPECT_EQ(informerd.WaitForExit(absl::Seconds(20)), kRefused) << informerd.Log();
  EXPECT_THAT(informerd.Log(), HasSubstr(reason));
  EXPECT_THAT(informerd.Log(), HasSubstr(flag));
}

void ExpectServesThenDrains(InformerdProcess& informerd, const Ports& ports) {
  EXPECT_TRUE(Eventually([&] { return Ready(ports); }, absl::Seconds(60)))
      << HttpGet(ports.http, "/readyz") << "\n"
      << informerd.Log();
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

TEST(SecureDefaults, AuthNoneOnAllInterfacesIsRefused) {
  Ports ports;
  InformerdProcess informerd(Flags(ports, "0.0.0.0", {}), "none-open.log");
  ExpectRefused(informerd, "refusing to serve without authentication", "--allow-unauthenticated");
  EXPECT_THAT(informerd.Log(), HasSubstr(absl::StrCat("0.0.0.0:", ports.grpc)));
}

// TLS encrypts, but still lets every caller read.
TEST(SecureDefaults, AuthNoneWithTlsOnAllInterfacesIsRefused) {
  MakeCa("none-ca");
  MakeCert("none-ca", "none.key", "none.crt");
  Ports ports;
  InformerdProcess informerd(Flags(ports, "0.0.0.0",
                                   {"--tls-cert-file=" + CertPath("none.crt"),
                                    "--tls-key-file=" + CertPath("none.key")}),
                             "none-tls-open.log");
  ExpectRefused(informerd, "refusing to serve without authentication", "--allow-unauthenticated");
}

TEST(SecureDefaults, AuthNoneOnAllInterfacesWithAllowUnauthenticatedServes) {
  Ports ports;
  InformerdProcess informerd(
      Flags(ports, "0.0.0.0", {"--allow-unauthenticated", "--allow-unproxied"}),
                             "none-allowed.log");
  ASSERT_TRUE(Eventually([&] { return Ready(ports); }, absl::Seconds(60))) << informerd.Log();
  EXPECT_TRUE(ListResources(Plaintext(ports), "").ok());
  EXPECT_THAT(informerd.Log(), HasSubstr("allowed by --allow-unauthenticated"));
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

TEST(SecureDefaults, AuthNoneOnLoopbackServesWithoutFlags) {
  for (const char* host : {"127.0.0.1", "localhost"}) {
    Ports ports;
    InformerdProcess informerd(Flags(ports, host, {}), absl::StrCat("none-", host, ".log"));
    ExpectServesThenDrains(informerd, ports);
  }
}

// The default --grpc-address is loopback, so with the default --auth-mode
// (none) the binary starts: the README's first command keeps working.
// (Read from --helpfull: starting on the default port could collide.)
TEST(SecureDefaults, DefaultGrpcAddressIsLoopback) {
  InformerdProcess informerd({"--helpfull"}, "helpfull.log");
  informerd.WaitForExit(absl::Seconds(20));
  EXPECT_THAT(informerd.Log(), HasSubstr("default: \"127.0.0.1:50051\""));
}

// The status of one call to gRPC server reflection: a message, then the
// client's half-close, so the method's type (a bidi stream) does not matter.
grpc::StatusCode CallReflection(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  grpc::CompletionQueue queue;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
  grpc::Status status;
  auto call = stub.PrepareUnaryCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", request, &queue);
  call->StartCall();
  call->Finish(&response, &status, nullptr);
  void* tag = nullptr;
  bool ok = false;
  queue.Next(&tag, &ok);
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
  return status.error_code();
}

// Reflection would answer without a token, so informerd does not serve it
// (grpcurl reads proto/informerd/v1/informerd.proto instead): a default
// install tells a peer without a token nothing, not even its schema.
TEST(SecureDefaults, ReflectionIsNotServed) {
  Ports ports;
  InformerdProcess informerd(Flags(ports, "127.0.0.1", {}), "reflection.log");
  ASSERT_TRUE(Eventually([&] { return Ready(ports); }, absl::Seconds(30))) << informerd.Log();
  EXPECT_EQ(CallReflection(Plaintext(ports)), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

TEST(SecureDefaults, TokensOverPlaintextOnAllInterfacesAreRefused) {
  Ports ports;
  InformerdProcess informerd(Flags(ports, "0.0.0.0", {"--auth-mode=kubernetes"}),
                             "tokens-plaintext.log");
  ExpectRefused(informerd, "refusing to take bearer tokens over plaintext",
                "--allow-plaintext-tokens");
}

// --allow-unauthenticated is not the flag for this risk.
TEST(SecureDefaults, AllowUnauthenticatedDoesNotAllowPlaintextTokens) {
  Ports ports;
  InformerdProcess informerd(
      Flags(ports, "0.0.0.0", {"--auth-mode=kubernetes", "--allow-unauthenticated"}),
      "tokens-plaintext-wrong-flag.log");
  ExpectRefused(informerd, "refusing to take bearer tokens over plaintext",
                "--allow-plaintext-tokens");
}

TEST(SecureDefaults, TokensOverPlaintextWithAllowPlaintextTokensServe) {
  Ports ports;
  InformerdProcess informerd(
      Flags(ports, "0.0.0.0",
            {"--auth-mode=kubernetes", "--allow-plaintext-tokens", "--behind-proxy"}),
      "tokens-plaintext-allowed.log");
  ASSERT_TRUE(Eventually([&] { return Ready(ports); }, absl::Seconds(60))) << informerd.Log();
  EXPECT_TRUE(ListResources(Plaintext(ports), ReadFileFromEnv("INFORMERD_ALICE_TOKEN_FILE")).ok());
  EXPECT_EQ(ListResources(Plaintext(ports), "").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(informerd.Log(), HasSubstr("allowed by --allow-plaintext-tokens"));
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

// Tokens over TLS, and still no proxy to bound HTTP/2 abuse.
TEST(SecureDefaults, TokensOverTlsOnAllInterfacesWithNoProxyAreRefused) {
  MakeCa("unproxied-ca");
  MakeCert("unproxied-ca", "unproxied.key", "unproxied.crt");
  Ports ports;
  InformerdProcess informerd(Flags(ports, "0.0.0.0",
                                   {"--auth-mode=kubernetes",
                                    "--tls-cert-file=" + CertPath("unproxied.crt"),
                                    "--tls-key-file=" + CertPath("unproxied.key")}),
                             "tokens-tls-unproxied.log");
  ExpectRefused(informerd, "refusing to face clients without a proxy", "--behind-proxy");
  EXPECT_THAT(informerd.Log(), HasSubstr("--allow-unproxied"));
}

// The secure combination: a token over TLS, with a proxy in front.
TEST(SecureDefaults, TokensOverTlsOnAllInterfacesBehindAProxyServe) {
  MakeCa("tokens-ca");
  MakeCert("tokens-ca", "tokens.key", "tokens.crt");
  Ports ports;
  InformerdProcess informerd(Flags(ports, "0.0.0.0",
                                   {"--auth-mode=kubernetes", "--behind-proxy",
                                    "--tls-cert-file=" + CertPath("tokens.crt"),
                                    "--tls-key-file=" + CertPath("tokens.key")}),
                             "tokens-tls.log");
  ASSERT_TRUE(Eventually([&] { return Ready(ports); }, absl::Seconds(60))) << informerd.Log();
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = ReadFile(CertPath("tokens-ca.crt"));
  auto channel =
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", ports.grpc), grpc::SslCredentials(tls));
  EXPECT_TRUE(ListResources(channel, ReadFileFromEnv("INFORMERD_ALICE_TOKEN_FILE")).ok());
  EXPECT_EQ(ListResources(channel, "").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ListResources(Plaintext(ports), ReadFileFromEnv("INFORMERD_ALICE_TOKEN_FILE"))
                .error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

TEST(SecureDefaults, InsecureSkipTlsVerifyUpstreamIsRefused) {
  std::string kubeconfig = WriteKubeconfig(
      "skip-verify.kubeconfig", absl::StrCat("    server: ", EnvOrDie("INFORMERD_APISERVER_URL"),
                                             "\n    insecure-skip-tls-verify: true\n"));
  Ports ports;
  InformerdProcess informerd(Flags(ports, "127.0.0.1", {"--kubeconfig=" + kubeconfig}),
                             "skip-verify.log");
  ExpectRefused(informerd, "insecure-skip-tls-verify is set", "--allow-insecure-upstream");
}

TEST(SecureDefaults, InsecureSkipTlsVerifyUpstreamWithFlagServesAndWarns) {
  std::string kubeconfig = WriteKubeconfig(
      "skip-verify-allowed.kubeconfig",
      absl::StrCat("    server: ", EnvOrDie("INFORMERD_APISERVER_URL"),
                   "\n    insecure-skip-tls-verify: true\n"));
  Ports ports;
  InformerdProcess informerd(
      Flags(ports, "127.0.0.1", {"--kubeconfig=" + kubeconfig, "--allow-insecure-upstream"}),
      "skip-verify-allowed.log");
  ExpectServesThenDrains(informerd, ports);
  EXPECT_THAT(informerd.Log(), HasSubstr("allowed by --allow-insecure-upstream"));
}

TEST(SecureDefaults, PlainHttpUpstreamIsRefused) {
  std::string kubeconfig =
      WriteKubeconfig("http.kubeconfig", "    server: http://127.0.0.1:1\n");
  Ports ports;
  InformerdProcess informerd(Flags(ports, "127.0.0.1", {"--kubeconfig=" + kubeconfig}),
                             "http.log");
  ExpectRefused(informerd, "is plain http", "--allow-insecure-upstream");
}

// Allowed, informerd talks to the http:// server: a stand-in that answers
// every request 404 (so the resource waits, as for a CRD not installed yet)
// sees discovery arrive.
TEST(SecureDefaults, PlainHttpUpstreamWithFlagConnectsAndWarns) {
  httplib::Server upstream;
  absl::Mutex mu;
  std::vector<std::string> paths;
  upstream.Get(".*", [&](const httplib::Request& request, httplib::Response& response) {
    absl::MutexLock lock(&mu);
    paths.push_back(request.path);
    response.status = 404;
  });
  int upstream_port = upstream.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { upstream.listen_after_bind(); });
  std::string kubeconfig = WriteKubeconfig(
      "http-allowed.kubeconfig", absl::StrCat("    server: http://127.0.0.1:", upstream_port, "\n"));
  Ports ports;
  InformerdProcess informerd(
      Flags(ports, "127.0.0.1", {"--kubeconfig=" + kubeconfig, "--allow-insecure-upstream"}),
      "http-allowed.log");
  EXPECT_TRUE(Eventually(
      [&] {
        absl::MutexLock lock(&mu);
        return !paths.empty();
      },
      absl::Seconds(30)))
      << informerd.Log();
  EXPECT_TRUE(Eventually([&] { return HttpGet(ports.http, "/healthz").find("200") == 0; },
                         absl::Seconds(30)))
      << informerd.Log();
  EXPECT_THAT(informerd.Log(), HasSubstr("is plain http"));
  EXPECT_THAT(informerd.Log(), HasSubstr("allowed by --allow-insecure-upstream"));
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
  upstream.stop();
  serving.join();
}

}  // namespace
}  // namespace informerd::testing
