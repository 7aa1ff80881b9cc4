#include "server/config/config.h"

#include <gtest/gtest.h>

namespace informerd::config {
namespace {

TEST(Config, ParsesEveryKey) {
  absl::StatusOr<Config> config = ParseConfig(R"(
resources:
  - resource: pods
    fieldIndexes: [spec.nodeName]
    stripManagedFields: false
  - resource: deployments
    group: apps
    version: v1
    namespace: prod
    labelSelector: team=a
history:
  windowSeconds: 30
  minEvents: 10
  maxEvents: 1000
historyBackfill: false
readWaitSeconds: 5
bookmarkIntervalSeconds: 30
maxPageBytes: 100000
listSnapshotMaxAgeSeconds: 60
stalledStreamSeconds: 30
initialEventsSeconds: 45
)", "test.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->resources.size(), 2u);
  EXPECT_EQ(config->resources[0].field_indexes, std::vector<std::string>{"spec.nodeName"});
  EXPECT_FALSE(config->resources[0].strip_managed_fields);
  EXPECT_EQ(config->resources[1].group, "apps");
  EXPECT_EQ(config->resources[1].namespace_, "prod");
  EXPECT_EQ(config->history.max_events, 1000u);
  EXPECT_FALSE(config->history_backfill);
  EXPECT_EQ(config->read_wait, absl::Seconds(5));
  EXPECT_EQ(config->list_snapshot_max_age, absl::Seconds(60));
  EXPECT_EQ(config->stalled_stream_timeout, absl::Seconds(30));
  EXPECT_EQ(config->initial_events_timeout, absl::Seconds(45));
}

TEST(Config, ParsesSecurityKeys) {
  absl::StatusOr<Config> config = ParseConfig(R"(
authMode: kubernetes
authTokenCacheSeconds: 20
authDecisionCacheSeconds: 5
authCacheSize: 50
authRecheckSeconds: 15
authRecheckGraceSeconds: 45
authReviewTimeoutSeconds: 2
sensitiveResources: [tokens.example.com]
tls:
  certFile: /tls/tls.crt
  keyFile: /tls/tls.key
  clientCaFile: /tls/ca.crt
  refreshSeconds: 10
limits:
  maxWatches: 500
  maxWatchesPerIdentity: 5
  maxLists: 40
  maxListsPerIdentity: 4
  maxWaitingReads: 20
  maxInitialBytes: 1000000
  maxInitialBytesPerIdentity: 1000
  maxWaitingReadsPerIdentity: 2
  requestsPerSecond: 900
  requestBurst: 1800
  requestsPerSecondPerIdentity: 30
  requestBurstPerIdentity: 60
  tokenReviewsPerSecond: 20
  maxConcurrentStreamsPerConnection: 100
  maxConnectionIdleSeconds: 60
  maxConnectionAgeSeconds: 600
  maxConnectionAgeGraceSeconds: 30
  minClientPingIntervalSeconds: 20
  grpcMemoryQuotaBytes: 268435456
  tokenReviewBurst: 40
  tokenReviewsPerSecondPerLane: 2
  tokenReviewBurstPerLane: 4
  maxReviewsPerIdentity: 3
)", "test.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->auth.mode, AuthMode::kKubernetes);
  EXPECT_EQ(config->auth.token_ttl, absl::Seconds(20));
  EXPECT_EQ(config->auth.decision_ttl, absl::Seconds(5));
  EXPECT_EQ(config->auth.cache_size, 50u);
  EXPECT_EQ(config->auth.recheck_interval, absl::Seconds(15));
  EXPECT_EQ(config->auth.recheck_grace, absl::Seconds(45));
  EXPECT_EQ(config->auth.review_timeout, absl::Seconds(2));
  EXPECT_EQ(config->tls.cert_file, "/tls/tls.crt");
  EXPECT_EQ(config->tls.key_file, "/tls/tls.key");
  EXPECT_EQ(config->tls.client_ca_file, "/tls/ca.crt");
  EXPECT_EQ(config->tls.refresh_interval, absl::Seconds(10));
  EXPECT_EQ(config->limits.max_watches, 500u);
  EXPECT_EQ(config->limits.max_watches_per_identity, 5u);
  EXPECT_EQ(config->limits.max_waiting_reads, 20u);
  EXPECT_EQ(config->limits.max_initial_bytes, 1000000u);
  EXPECT_EQ(config->limits.max_initial_bytes_per_identity, 1000u);
  EXPECT_EQ(config->limits.max_waiting_reads_per_identity, 2u);
  EXPECT_EQ(config->limits.max_lists, 40u);
  EXPECT_EQ(config->limits.max_lists_per_identity, 4u);
  EXPECT_EQ(config->limits.rates.total_per_second, 900);
  EXPECT_EQ(config->limits.rates.total_burst, 1800);
  EXPECT_EQ(config->limits.rates.per_identity_per_second, 30);
  EXPECT_EQ(config->limits.rates.per_identity_burst, 60);
  EXPECT_EQ(config->limits.token_reviews.total_per_second, 20);
  EXPECT_EQ(config->limits.token_reviews.total_burst, 40);
  EXPECT_EQ(config->limits.token_reviews.per_identity_per_second, 2);
  EXPECT_EQ(config->limits.token_reviews.per_identity_burst, 4);
  EXPECT_EQ(config->limits.token_reviews.what, "TokenReview");
  EXPECT_EQ(config->limits.max_reviews_per_identity, 3u);
  EXPECT_EQ(config->limits.transport.max_concurrent_streams, 100u);
  EXPECT_EQ(config->limits.transport.max_connection_idle, absl::Seconds(60));
  EXPECT_EQ(config->limits.transport.max_connection_age, absl::Seconds(600));
  EXPECT_EQ(config->limits.transport.max_connection_age_grace, absl::Seconds(30));
  EXPECT_EQ(config->limits.transport.min_ping_interval, absl::Seconds(20));
  EXPECT_EQ(config->limits.transport.memory_quota_bytes, 268435456u);
  EXPECT_TRUE(IsSensitive(*config, ResourceConfig{"example.com", "", "tokens"}));
  // Secrets stay sensitive whatever the list says.
  EXPECT_TRUE(IsSensitive(*config, ResourceConfig{"", "", "secrets"}));
  EXPECT_FALSE(IsSensitive(*config, ResourceConfig{"", "", "configmaps"}));
}

TEST(Config, SecurityDefaults) {
  Config config;
  EXPECT_EQ(config.auth.mode, AuthMode::kNone);
  EXPECT_EQ(config.auth.recheck_interval, absl::Seconds(60));
  EXPECT_TRUE(config.tls.cert_file.empty());
  EXPECT_TRUE(IsSensitive(config, ResourceConfig{"", "", "secrets"}));
}

TEST(Config, AuthMode) {
  EXPECT_EQ(*ParseAuthMode("none"), AuthMode::kNone);
  EXPECT_EQ(*ParseAuthMode("kubernetes"), AuthMode::kKubernetes);
  EXPECT_EQ(ParseAuthMode("rbac").status().message(),
            "\"rbac\" is not an auth mode; use none or kubernetes");
  absl::StatusOr<Config> config = ParseConfig("authMode: rbac\n", "f.yaml");
  EXPECT_EQ(config.status().message(),
            "config f.yaml: authMode: \"rbac\" is not an auth mode; use none or kubernetes");
  config = ParseConfig("limits:\n  maxWatches: 0\n", "f.yaml");
  EXPECT_EQ(config.status().message(),
            "config f.yaml: limits.maxWatches: must be between 1 and 1000000");
  config = ParseConfig("tls:\n  cert: x\n", "f.yaml");
  EXPECT_EQ(config.status().message(), "config f.yaml: tls.cert: unknown key");
}

TEST(Config, ErrorsNameTheFileKeyAndReason) {
  struct Case {
    const char* yaml;
    const char* message;
  } cases[] = {
      {"resourcez: []", "config t.yaml: resourcez: unknown key"},
      {"limits: {tokenReviewsPerSecondPerAddress: 5}",
       "limits.tokenReviewsPerSecondPerAddress: no longer supported: TokenReviews are budgeted "
       "per lane"},
      {"limits: {maxReviewsPerIdentity: 0}", "limits.maxReviewsPerIdentity: must be between 1"},
      {"resources: [{resource: pods, fieldIndex: [a]}]", "resources[0].fieldIndex: unknown key"},
      {"resources: [{group: apps}]", "resources[0].resource: required"},
      {"resources: [{resource: pods, fieldIndexes: a}]", "resources[0].fieldIndexes: must be a list of strings"},
      {"resources: [{resource: pods, stripManagedFields: maybe}]", "must be true or false"},
      {"history: {minEvents: 0}", "history.minEvents: must be between 1 and"},
      {"history: {minEvents: 10, maxEvents: 5}", "history.minEvents: must not exceed"},
      {"readWaitSeconds: soon", "readWaitSeconds: must be a whole number"},
      {"resources: [pods", "config t.yaml: line"},
      {"", "empty file"},
      {"- a", "must be a mapping"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Config> config = ParseConfig(c.yaml, "t.yaml");
    ASSERT_FALSE(config.ok()) << c.yaml;
    EXPECT_NE(config.status().message().find(c.message), absl::string_view::npos)
        << config.status() << " for " << c.yaml;
  }
}

TEST(Config, ResourceList) {
  absl::StatusOr<std::vector<ResourceConfig>> list =
      ParseResourceList("configmaps, deployments.apps,csr.certificates.k8s.io");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[1].group, "apps");
  EXPECT_EQ((*list)[2].resource, "csr");
  EXPECT_EQ((*list)[2].group, "certificates.k8s.io");
  EXPECT_FALSE(ParseResourceList("pods.").ok());
  EXPECT_FALSE(ParseResourceList(".apps").ok());
}

TEST(Config, LoopbackAddresses) {
  for (const char* address : {"127.0.0.1:50051", "127.8.9.1:1", "localhost:50051",
                              "LocalHost:1", "[::1]:50051", "[::ffff:127.0.0.1]:1",
                              "unix:/run/informerd.sock", "unix-abstract:informerd"}) {
    EXPECT_TRUE(IsLoopbackAddress(address)) << address;
  }
  for (const char* address : {"0.0.0.0:50051", "[::]:50051", ":50051", "10.0.0.1:50051",
                              "128.0.0.1:1", "informerd.example:50051", "localhost.evil:1",
                              "[::2]:1", "127.0.0.1", "[::1", "", "vsock:3:50051"}) {
    EXPECT_FALSE(IsLoopbackAddress(address)) << address;
  }
}

TEST(Config, CheckListenerRefusesOpenListeners) {
  Config open;  // auth none, plaintext
  EXPECT_TRUE(CheckListener(open, "127.0.0.1:50051").ok());
  absl::Status refused = CheckListener(open, "0.0.0.0:50051");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("--allow-unauthenticated"), absl::string_view::npos)
      << refused;
  EXPECT_NE(refused.message().find("0.0.0.0:50051"), absl::string_view::npos) << refused;
  // TLS alone does not restrict who reads.
  open.tls.cert_file = "tls.crt";
  EXPECT_FALSE(CheckListener(open, "[::]:50051").ok());
  open.auth.allow_unauthenticated = true;
  open.auth.allow_unproxied = true;
  EXPECT_TRUE(CheckListener(open, "[::]:50051").ok());

  Config tokens;
  tokens.auth.mode = AuthMode::kKubernetes;
  EXPECT_TRUE(CheckListener(tokens, "[::1]:50051").ok());
  refused = CheckListener(tokens, ":50051");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("--allow-plaintext-tokens"), absl::string_view::npos)
      << refused;
  // The other flag does not stand in for this one.
  tokens.auth.allow_unauthenticated = true;
  EXPECT_FALSE(CheckListener(tokens, ":50051").ok());
  tokens.auth.allow_plaintext_tokens = true;
  tokens.auth.behind_proxy = true;
  EXPECT_TRUE(CheckListener(tokens, ":50051").ok());
  tokens.auth.allow_plaintext_tokens = false;
  tokens.tls.cert_file = "tls.crt";
  EXPECT_TRUE(CheckListener(tokens, "0.0.0.0:50051").ok());
}

TEST(Config, CheckListenerRefusesAnOpenListenerWithNoProxyInFront) {
  Config secure;  // tokens over TLS: safe but for HTTP/2 abuse
  secure.auth.mode = AuthMode::kKubernetes;
  secure.tls.cert_file = "tls.crt";
  EXPECT_TRUE(CheckListener(secure, "127.0.0.1:50051").ok());
  absl::Status refused = CheckListener(secure, "0.0.0.0:50051");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("refusing to face clients without a proxy"),
            absl::string_view::npos)
      << refused;
  EXPECT_NE(refused.message().find("--behind-proxy"), absl::string_view::npos) << refused;
  EXPECT_NE(refused.message().find("--allow-unproxied"), absl::string_view::npos) << refused;
  secure.auth.behind_proxy = true;
  EXPECT_TRUE(CheckListener(secure, "0.0.0.0:50051").ok());
  secure.auth.behind_proxy = false;
  secure.auth.allow_unproxied = true;
  EXPECT_TRUE(CheckListener(secure, "0.0.0.0:50051").ok());
}

TEST(Config, ParsesTheUpstreamKeys) {
  absl::StatusOr<Config> config = ParseConfig(R"(
resources: [{resource: pods}]
upstream: grpcs://informerd-root.informerd.svc:50051
upstreamCaFile: /etc/root/ca.crt
upstreamCertFile: /etc/leaf/tls.crt
upstreamKeyFile: /etc/leaf/tls.key
upstreamTokenFile: /var/run/secrets/tokens/informerd
upstreamListMaxItems: 200000
upstreamListMaxBytes: 1073741824
)", "leaf.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->upstream.list_max_items, 200000u);
  EXPECT_EQ(config->upstream.list_max_bytes, uint64_t{1} << 30);
  EXPECT_EQ(config->upstream.url, "grpcs://informerd-root.informerd.svc:50051");
  EXPECT_EQ(config->upstream.ca_file, "/etc/root/ca.crt");
  EXPECT_EQ(config->upstream.cert_file, "/etc/leaf/tls.crt");
  EXPECT_EQ(config->upstream.key_file, "/etc/leaf/tls.key");
  EXPECT_EQ(config->upstream.token_file, "/var/run/secrets/tokens/informerd");
  EXPECT_TRUE(CheckUpstream(config->upstream).ok());

  absl::StatusOr<Config> defaults = ParseConfig("upstream: grpc://127.0.0.1:50051\n", "leaf.yaml");
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->upstream.list_max_items, 1000000u);
  EXPECT_EQ(defaults->upstream.list_max_bytes, 0u);  // from the memory limit
  absl::StatusOr<Config> no_items = ParseConfig("upstreamListMaxItems: 0\n", "leaf.yaml");
  ASSERT_FALSE(no_items.ok());
  EXPECT_NE(no_items.status().message().find("upstreamListMaxItems"), std::string::npos)
      << no_items.status();

  absl::StatusOr<Config> bad = ParseConfig("upstream: http://root:50051\n", "leaf.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "config leaf.yaml: upstream: \"http://root:50051\" is not grpc://HOST:PORT "
            "(plaintext) or grpcs://HOST:PORT (TLS)");
}

TEST(Config, UpstreamUrls) {
  absl::StatusOr<UpstreamAddress> plain = ParseUpstreamUrl("grpc://127.0.0.1:50051");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->target, "127.0.0.1:50051");
  EXPECT_FALSE(plain->tls);
  EXPECT_TRUE(plain->loopback);
  absl::StatusOr<UpstreamAddress> tls = ParseUpstreamUrl("grpcs://root.example:443");
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_EQ(tls->target, "root.example:443");
  EXPECT_TRUE(tls->tls);
  EXPECT_FALSE(tls->loopback);
  absl::StatusOr<UpstreamAddress> v6 = ParseUpstreamUrl("grpc://[::1]:50051");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->target, "[::1]:50051");
  EXPECT_TRUE(v6->loopback);

  for (const char* url : {"root:50051", "https://root:50051", "grpc://root", "grpc://:50051",
                          "grpc://root:0", "grpc://root:70000", "grpc://root:50051/v1",
                          "grpc://root:port", "grpc://[::1]", "grpc://user@root:1"}) {
    EXPECT_EQ(ParseUpstreamUrl(url).status().code(), absl::StatusCode::kInvalidArgument) << url;
  }
  EXPECT_EQ(ParseUpstreamUrl("grpc://root").status().message(),
            "\"grpc://root\" needs a port between 1 and 65535 (e.g. grpc://root:50051)");
}

TEST(Config, UpstreamErrorsNameTheFlag) {
  UpstreamConfig upstream;
  upstream.token_file = "/token";
  EXPECT_EQ(CheckUpstream(upstream).message(),
            "--upstream-token-file (upstreamTokenFile): needs --upstream (upstream), an upstream "
            "informerd");
  upstream.url = "grpc://127.0.0.1:1";
  EXPECT_TRUE(CheckUpstream(upstream).ok());
  upstream.ca_file = "/ca";
  EXPECT_EQ(CheckUpstream(upstream).message(),
            "--upstream-ca-file (upstreamCaFile): needs a TLS upstream "
            "(--upstream=grpcs://HOST:PORT)");
  upstream.url = "grpcs://root:1";
  upstream.cert_file = "/cert";
  EXPECT_EQ(CheckUpstream(upstream).message(),
            "--upstream-cert-file (upstreamCertFile): needs --upstream-key-file");
  upstream.url = "grpc:/root:1";
  EXPECT_EQ(CheckUpstream(upstream).message(),
            "--upstream (upstream): \"grpc:/root:1\" is not grpc://HOST:PORT (plaintext) or "
            "grpcs://HOST:PORT (TLS)");
}

}  // namespace
}  // namespace informerd::config
