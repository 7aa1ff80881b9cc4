// TLS on the gRPC port (tls::MakeServerCredentials): clients that do not
// trust the server's CA are refused, mTLS refuses clients without a
// certificate, and a rotated certificate reaches new connections while an
// open Watch keeps streaming.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <grpcpp/grpcpp.h>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/tls/server_credentials.h"
#include "tests/certificates/test_certificates.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

std::string Path(const std::string& name) { return CertPath(name); }
std::string Read(const std::string& path) { return ReadFile(path); }

std::unique_ptr<v1::Cache::Stub> Stub(int port, const std::string& ca,
                                      const std::string& client_key = "",
                                      const std::string& client_cert = "") {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = Read(Path(ca + ".crt"));
  if (!client_key.empty()) {
    options.pem_private_key = Read(Path(client_key));
    options.pem_cert_chain = Read(Path(client_cert));
  }
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  // A fresh connection per stub, so each sees the current certificate.
  args.SetInt("grpc.use_local_subchannel_pool", 1);
  return v1::Cache::NewStub(grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                                      grpc::SslCredentials(options), args));
}

grpc::Status ListResources(v1::Cache::Stub& stub) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::ListResourcesResponse response;
  return stub.ListResources(&context, v1::ListResourcesRequest(), &response);
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    MakeCa("ca1");
    MakeCa("ca2");
    MakeCert("ca1", "server.key", "server.crt");
    MakeCert("ca1", "client.key", "client.crt");
  }
};

TEST_F(TlsTest, RefusesClientsThatDoNotTrustTheServer) {
  InProcessServerOptions options;
  options.config.tls =
      config::TlsConfig{Path("server.crt"), Path("server.key"), "", absl::Seconds(1)};
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  EXPECT_TRUE(ListResources(*Stub(server.port(), "ca1")).ok());
  EXPECT_EQ(ListResources(*Stub(server.port(), "ca2")).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // Plaintext to a TLS port fails too.
  EXPECT_FALSE(ListResources(server.stub()).ok());
}

TEST_F(TlsTest, MutualTlsRefusesClientsWithoutACertificate) {
  InProcessServerOptions options;
  options.config.tls =
      config::TlsConfig{Path("server.crt"), Path("server.key"), Path("ca1.crt"), absl::Seconds(1)};
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  EXPECT_FALSE(ListResources(*Stub(server.port(), "ca1")).ok());
  grpc::Status with_cert =
      ListResources(*Stub(server.port(), "ca1", "client.key", "client.crt"));
  EXPECT_TRUE(with_cert.ok()) << with_cert.error_message();
}

TEST_F(TlsTest, RejectsIncompleteSettings) {
  EXPECT_EQ(tls::MakeServerCredentials({Path("server.crt"), "", "", absl::Seconds(1)})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(tls::MakeServerCredentials({"", "", Path("ca1.crt"), absl::Seconds(1)})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(tls::MakeServerCredentials({Path("missing.crt"), Path("server.key"), "",
                                        absl::Seconds(1)})
                .status()
                .message(),
            absl::StrCat("--tls-cert-file: cannot read ", Path("missing.crt")));
}

TEST_F(TlsTest, RotatedCertificateReachesNewConnectionsWhileStreamsContinue) {
  // A copy the test rotates; the key stays, so replacing the one certificate
  // file is atomic.
  std::filesystem::copy_file(Path("server.crt"), Path("rotating.crt"),
                             std::filesystem::copy_options::overwrite_existing);
  InProcessServerOptions options;
  options.config.tls =
      config::TlsConfig{Path("rotating.crt"), Path("server.key"), "", absl::Seconds(1)};
  InProcessServer server({config::ResourceConfig{"", "", "configmaps"}}, options);
  server.WaitSynced();
  std::string ns = CreateTestNamespace("tls-rotate");

  std::unique_ptr<v1::Cache::Stub> old_stub = Stub(server.port(), "ca1");
  v1::WatchRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> watch = old_stub->Watch(&context, request);
  CreateConfigMap(ns, "before", {});
  v1::WatchEvent event;
  ASSERT_TRUE(watch->Read(&event)) << watch->Finish().error_message();

  MakeCert("ca2", "server.key", "next.crt");
  std::filesystem::rename(Path("next.crt"), Path("rotating.crt"));
  // The provider re-reads every second: new connections soon trust ca2.
  absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (!ListResources(*Stub(server.port(), "ca2")).ok()) {
    ASSERT_LT(absl::Now(), deadline) << "the rotated certificate was never served";
  }
  EXPECT_FALSE(ListResources(*Stub(server.port(), "ca1")).ok());

  CreateConfigMap(ns, "after", {});
  ASSERT_TRUE(watch->Read(&event)) << watch->Finish().error_message();
  EXPECT_NE(event.object().json().find("\"after\""), std::string::npos);
  context.TryCancel();
}

}  // namespace
}  // namespace informerd::testing
