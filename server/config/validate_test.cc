#include "server/config/validate.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Config Serving(const char* resource = "configmaps") {
  Config config;
  config.resources.push_back(ResourceConfig{"", "", resource});
  return config;
}

Placement Loopback() {
  Placement placement;
  placement.grpc_address = "127.0.0.1:0";
  placement.cluster.server = "https://127.0.0.1:6443";
  placement.cluster.ca_pem = "CA";
  return placement;
}

// The status' message when refused; "" when accepted.
std::string Refusal(const Config& config, const Placement& placement = Loopback()) {
  absl::StatusOr<std::vector<std::string>> verdict = Validate(config, placement);
  return verdict.ok() ? "" : std::string(verdict.status().message());
}

std::vector<std::string> Warnings(const Config& config, const Placement& placement = Loopback()) {
  absl::StatusOr<std::vector<std::string>> verdict = Validate(config, placement);
  EXPECT_TRUE(verdict.ok()) << verdict.status();
  return verdict.ok() ? *verdict : std::vector<std::string>{};
}

TEST(Validate, ASafeConfigurationRunsWithoutWarnings) {
  EXPECT_THAT(Warnings(Serving()), IsEmpty());
}

TEST(Validate, RefusesIncoherentCombinationsNamingTheFlag) {
  EXPECT_THAT(Refusal(Config{}), HasSubstr("nothing to serve"));

  Config audiences = Serving();
  audiences.auth.token_audiences = {"informerd"};
  EXPECT_THAT(Refusal(audiences), HasSubstr("--token-audiences: needs --auth-mode=kubernetes"));
  audiences.auth.mode = AuthMode::kKubernetes;
  EXPECT_EQ(Refusal(audiences), "");

  Config http_tls = Serving();
  http_tls.tls.http = true;
  EXPECT_THAT(Refusal(http_tls), HasSubstr("--http-tls: needs --tls-cert-file"));

  Config upstream_files = Serving();
  upstream_files.upstream.ca_file = "/ca.pem";
  EXPECT_THAT(Refusal(upstream_files), HasSubstr("--upstream-ca-file"));
}

TEST(Validate, RefusesAnOpenListenerUnlessAccepted) {
  Placement open = Loopback();
  open.grpc_address = "0.0.0.0:50051";
  Config config = Serving();
  EXPECT_THAT(Refusal(config, open), HasSubstr("--allow-unauthenticated"));
  config.auth.allow_unauthenticated = true;
  EXPECT_THAT(Refusal(config, open), HasSubstr("--allow-unproxied"));
  config.auth.allow_unproxied = true;
  EXPECT_THAT(Warnings(config, open),
              ElementsAre(HasSubstr("reads every served object (allowed by"),
                          HasSubstr("no proxy bounding HTTP/2 abuse (allowed by")));
  config.auth.behind_proxy = true;
  EXPECT_THAT(Warnings(config, open),
              ElementsAre(HasSubstr("reads every served object (allowed by")));

  Config tokens = Serving();
  tokens.auth.mode = AuthMode::kKubernetes;
  EXPECT_THAT(Refusal(tokens, open), HasSubstr("--allow-plaintext-tokens"));
  tokens.auth.allow_plaintext_tokens = true;
  tokens.auth.behind_proxy = true;
  EXPECT_THAT(Warnings(tokens, open), ElementsAre(HasSubstr("in clear text (allowed by")));
  // On loopback the flags accept nothing, so nothing is warned of.
  EXPECT_THAT(Warnings(tokens), IsEmpty());
}

TEST(Validate, TheKubernetesApiPortLeavesLoopbackOnlyWithTlsAndAuthentication) {
  Placement open = Loopback();
  open.kube_api_address = "10.0.0.5:6444";
  Config config = Serving();
  config.auth.mode = AuthMode::kKubernetes;
  EXPECT_THAT(Refusal(config, open), HasSubstr("--kube-api-address: 10.0.0.5:6444 is not a loopback address and the port would serve plain HTTP"));
  config.tls.cert_file = "/tls.crt";
  config.tls.key_file = "/tls.key";
  EXPECT_THAT(Warnings(config, open), IsEmpty());
  Config anyone = config;
  anyone.auth.mode = AuthMode::kNone;
  EXPECT_THAT(Refusal(anyone, open), HasSubstr("--auth-mode is none"));
  Placement loopback = Loopback();
  loopback.kube_api_address = "127.0.0.1:6444";
  EXPECT_THAT(Warnings(Serving(), loopback), IsEmpty());
}

TEST(Validate, RefusesAPlaintextUpstreamOnAnotherHostUnlessAccepted) {
  Config leaf = Serving();
  leaf.upstream.url = "grpc://root.example:50051";
  EXPECT_THAT(Refusal(leaf), HasSubstr("refusing the upstream informerd"));
  leaf.allow_insecure_upstream = true;
  EXPECT_THAT(Warnings(leaf), ElementsAre(HasSubstr("plaintext upstream grpc://root.example")));
  leaf.allow_insecure_upstream = false;
  leaf.upstream.url = "grpc://127.0.0.1:50051";
  EXPECT_THAT(Warnings(leaf), IsEmpty());
  leaf.upstream.url = "grpcs://root.example:50051";
  EXPECT_THAT(Warnings(leaf), IsEmpty());
}

TEST(Validate, RefusesAnInsecureApiserverConnectionWhereOneIsUsed) {
  Placement plain = Loopback();
  plain.cluster.server = "http://127.0.0.1:8080";
  Config config = Serving();
  EXPECT_THAT(Refusal(config, plain), HasSubstr("refusing the API server connection"));
  config.allow_insecure_upstream = true;
  EXPECT_THAT(Warnings(config, plain), ElementsAre(HasSubstr("--allow-insecure-upstream")));

  // A leaf without reviews never talks to the apiserver.
  Config leaf = Serving();
  leaf.upstream.url = "grpc://127.0.0.1:50051";
  EXPECT_THAT(Warnings(leaf, plain), IsEmpty());
  leaf.auth.mode = AuthMode::kKubernetes;
  EXPECT_THAT(Refusal(leaf, plain), HasSubstr("refusing the API server connection"));

  // A connection the caller supplies itself is not described here.
  Placement injected = Loopback();
  injected.cluster = {};
  EXPECT_THAT(Warnings(Serving(), injected), IsEmpty());
}

TEST(Validate, WarnsOfEachSensitiveResourceServed) {
  Config config = Serving("secrets");
  EXPECT_THAT(Warnings(config), ElementsAre(HasSubstr("secrets because the configuration names it, "
                                                      "to every caller")));
  config.auth.mode = AuthMode::kKubernetes;
  EXPECT_THAT(Warnings(config), ElementsAre(::testing::Not(HasSubstr("every caller"))));
}

}  // namespace
}  // namespace informerd::config
