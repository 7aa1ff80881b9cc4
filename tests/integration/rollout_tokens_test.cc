// A rollout's reconnects under a flood of made-up tokens (issue 38, item 6),
// black-box against the real apiserver: three informerd binaries just
// started (empty caches, as after a rollout), each with --auth-mode=kubernetes
// and --token-audiences, and 300 service accounts created by the test, each
// with a token for informerd's audience (TokenRequest API). While a flooder
// sends 250 made-up tokens a second to every replica (half JWT-shaped,
// naming the apiserver's issuer and signing key with a random signature;
// half random opaque strings), every account Lists once through its
// replica, retrying a refusal as client-go's reflector does (backoff from
// 0.8 s, doubling, up to 30 s).
//
// Asserts: every client is served within 10 s of the start; no JWT-shaped
// made-up token is ever answered RESOURCE_EXHAUSTED (they are refused
// UNAUTHENTICATED before any budget or review); and the TokenReviews sent
// are the clients' plus at most the new lane's budget. Prints one line,
//   rollout-tokens replicas=3 clients=300 served=.. max_s=.. p50_s=..
//     token_reviews=.. flood_sent=.. flood_s=.. jwt_codes=.. opaque_codes=..
// where token_reviews counts what the replicas sent the apiserver
// (informerd_apiserver_reviews_total{kind="TokenReview"}).
#include <algorithm>
#include <array>
#include <iostream>
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

constexpr int kReplicas = 3;
constexpr int kClients = 300;
constexpr int kFloodPerReplicaPerSecond = 250;
constexpr char kAudience[] = "informerd-rollout-test";
constexpr absl::Duration kBound = absl::Seconds(10);
// How long a client keeps trying before the test gives up on it (past the
// bound, so a failure says by how much).
constexpr absl::Duration kGiveUp = absl::Seconds(45);

std::string WebSafe(const std::string& bytes) {
  std::string out;
  absl::WebSafeBase64Escape(bytes, &out);
  return out;
}

// informerd_apiserver_reviews_total{kind="TokenReview",...} summed.
double TokenReviews(int http_port) {
  const std::string answer = HttpGet(http_port, "/metrics");
  double total = 0;
  for (absl::string_view line : absl::StrSplit(answer, '\n')) {
    if (!absl::StartsWith(line, "informerd_apiserver_reviews_total{") ||
        !absl::StrContains(line, "kind=\"TokenReview\"")) {
      continue;
    }
    double value = 0;
    const size_t space = line.rfind(' ');
    if (space != absl::string_view::npos && absl::SimpleAtod(line.substr(space + 1), &value)) {
      total += value;
    }
  }
  return total;
}

// The JSON of a JWT's first (header) part.
std::string JwtHeader(const std::string& token) {
  std::string header;
  absl::WebSafeBase64Unescape(token.substr(0, token.find('.')), &header);
  return header;
}

struct Replica {
  int grpc = FreeLoopbackPort();
  int http = FreeLoopbackPort();
  std::unique_ptr<InformerdProcess> process;
  std::unique_ptr<v1::Cache::Stub> stub;
};

// One flood call's state, owned by the Flood until it is destroyed.
struct FloodCall {
  grpc::ClientContext context;
  v1::ListResponse response;
  bool jwt = false;
};

// Sends `per_second` made-up tokens a second to each stub until Stop(),
// skipping a call due while 2048 are in flight; counts answers by kind and
// code.
class Flood {
 public:
  Flood(std::vector<v1::Cache::Stub*> stubs, int per_second, v1::ListRequest request,
        std::string issuer, std::string kid, std::string ns)
      : stubs_(std::move(stubs)), request_(std::move(request)) {
    pacer_ = std::thread([this, per_second, issuer, kid, ns] {
      std::mt19937_64 random(38);
      const int rate = per_second * static_cast<int>(stubs_.size());
      const absl::Time start = absl::Now();
      for (int64_t i = 0; !stopping_.load(); ++i) {
        const absl::Time due = start + absl::Seconds(1) * i / rate;
        if (absl::Now() < due) absl::SleepFor(due - absl::Now());  // pacing
        if (running_.load() >= 2048) continue;
        const bool jwt = i % 2 == 0;
        std::string token;
        if (jwt) {
          std::string signature(256, '\0');
          for (char& c : signature) c = static_cast<char>(random());
          const int64_t now = absl::ToUnixSeconds(absl::Now());
          token = absl::StrCat(
              WebSafe(absl::StrCat(R"({"alg":"RS256","kid":")", kid, R"("})")), ".",
              WebSafe(absl::StrCat(R"({"iss":")", issuer, R"(","sub":"system:serviceaccount:)", ns,
                                   ":made-up-", random() % 1000000, R"(","aud":[")", kAudience,
                                   R"("],"exp":)", now + 3600, R"(,"nbf":)", now - 10, "}")),
              ".", WebSafe(signature));
        } else {
          token = absl::StrCat(absl::Hex(random(), absl::kZeroPad16),
                               absl::Hex(random(), absl::kZeroPad16));
        }
        Start(stubs_[i % stubs_.size()], jwt, token);
      }
    });
  }
  ~Flood() { Stop(); }

  void Stop() {
    stopping_ = true;
    if (pacer_.joinable()) pacer_.join();
    EXPECT_TRUE(Eventually([&] { return running_.load() == 0; }, absl::Seconds(30)))
        << "flood calls unanswered past their deadline";
  }
  int64_t sent() const { return static_cast<int64_t>(calls_.size()); }
  int64_t count(bool jwt, grpc::StatusCode code) const { return codes_[jwt][code].load(); }
  std::string Codes(bool jwt) const {
    std::string text;
    for (size_t code = 0; code < codes_[jwt].size(); ++code) {
      if (codes_[jwt][code].load() > 0) {
        absl::StrAppend(&text, text.empty() ? "" : ",", code, ":", codes_[jwt][code].load());
      }
    }
    return text;
  }

 private:
  void Start(v1::Cache::Stub* stub, bool jwt, const std::string& token) {
    calls_.push_back(std::make_unique<FloodCall>());
    FloodCall* call = calls_.back().get();
    call->jwt = jwt;
    call->context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    call->context.AddMetadata("authorization", "Bearer " + token);
    ++running_;
    stub->async()->List(&call->context, &request_, &call->response,
                        [this, jwt](grpc::Status status) {
                          ++codes_[jwt][std::min<size_t>(status.error_code(), 16)];
                          --running_;
                        });
  }

  const std::vector<v1::Cache::Stub*> stubs_;
  const v1::ListRequest request_;
  std::vector<std::unique_ptr<FloodCall>> calls_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> running_{0};
  std::array<std::array<std::atomic<int64_t>, 17>, 2> codes_{};
  std::thread pacer_;
};

TEST(RolloutTokensTest, EveryClientIsServedWithinTenSecondsWhileMadeUpTokensFlood) {
  const std::string ns = CreateTestNamespace("rollout");
  CreateConfigMap(ns, "cm", {});
  ApiSend("POST", absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", ns, "/roles"),
          R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
              "metadata":{"name":"reader"},
              "rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["list"]}]})");
  ApiSend("POST",
          absl::StrCat("/apis/rbac.authorization.k8s.io/v1/namespaces/", ns, "/rolebindings"),
          absl::StrCat(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
              "metadata":{"name":"reader"},
              "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"},
              "subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io",
                           "name":"system:serviceaccounts:)",
                       ns, R"("}]})"));
  // Distinct service accounts, each with a token for informerd.
  std::vector<std::string> tokens;
  for (int i = 0; i < kClients; ++i) {
    const std::string name = absl::StrCat("client-", i);
    ApiSend("POST", absl::StrCat("/api/v1/namespaces/", ns, "/serviceaccounts"),
            absl::StrCat(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":")",
                         name, R"("}})"));
    rapidjson::Document answer = ApiSend(
        "POST", absl::StrCat("/api/v1/namespaces/", ns, "/serviceaccounts/", name, "/token"),
        absl::StrCat(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)",
                     R"("spec":{"expirationSeconds":3600,"audiences":[")", kAudience, R"("]}})"));
    tokens.push_back(answer["status"]["token"].GetString());
  }
  // The binding has reached the apiserver's authorizer once an account's
  // own token (for the apiserver) lists.
  {
    rapidjson::Document answer = ApiSend(
        "POST", absl::StrCat("/api/v1/namespaces/", ns, "/serviceaccounts/client-0/token"),
        R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",
            "spec":{"expirationSeconds":3600}})");
    std::unique_ptr<kube::RestClient> client =
        ClientWithToken(answer["status"]["token"].GetString());
    const std::string path = absl::StrCat("/api/v1/namespaces/", ns, "/configmaps");
    ASSERT_TRUE(Eventually([&] { return client->Get(path)->status == 200; }, absl::Seconds(30)));
  }
  // What the flood's JWT-shaped tokens imitate: the real issuer and key id.
  rapidjson::Document discovery = ApiGet("/.well-known/openid-configuration");
  const std::string issuer = discovery["issuer"].GetString();
  rapidjson::Document header;
  header.Parse(JwtHeader(tokens[0]).c_str());
  ASSERT_TRUE(header.IsObject() && header.HasMember("kid")) << JwtHeader(tokens[0]);
  const std::string kid = header["kid"].GetString();

  // The rollout: new replicas, nothing cached.
  std::vector<Replica> replicas(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    Replica& replica = replicas[r];
    replica.process = std::make_unique<InformerdProcess>(
        std::vector<std::string>{"--resources=configmaps", "--auth-mode=kubernetes",
                                 absl::StrCat("--token-audiences=", kAudience),
                                 absl::StrCat("--grpc-address=127.0.0.1:", replica.grpc),
                                 absl::StrCat("--http-address=127.0.0.1:", replica.http)},
        absl::StrCat("rollout-replica-", r, ".log"));
  }
  for (Replica& replica : replicas) {
    ASSERT_TRUE(Eventually([&] { return HttpGet(replica.http, "/readyz") == "200 ok\n"; },
                           absl::Seconds(60)))
        << replica.process->Log();
    replica.stub = v1::Cache::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", replica.grpc), grpc::InsecureChannelCredentials()));
  }
  double reviews_before = 0;
  for (const Replica& replica : replicas) reviews_before += TokenReviews(replica.http);

  v1::ListRequest request;
  request.mutable_resource()->set_resource("configmaps");
  request.set_namespace_(ns);
  std::vector<v1::Cache::Stub*> stubs;
  for (Replica& replica : replicas) stubs.push_back(replica.stub.get());
  const absl::Time flood_start = absl::Now();
  Flood flood(stubs, kFloodPerReplicaPerSecond, request, issuer, kid, ns);
  // The flood arrives first: whatever budget it can spend, it has.
  absl::SleepFor(absl::Seconds(2));  // the flood's head start, not synchronisation

  const absl::Time start = absl::Now();
  std::vector<absl::Duration> served(kClients, absl::InfiniteDuration());
  std::vector<std::string> last_error(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      absl::Duration backoff = absl::Milliseconds(800);
      while (absl::Now() - start < kGiveUp) {
        grpc::ClientContext context;
        context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
        context.AddMetadata("authorization", "Bearer " + tokens[i]);
        v1::ListResponse response;
        grpc::Status status = replicas[i % kReplicas].stub->List(&context, request, &response);
        if (status.ok() && response.items_size() == 1) {
          served[i] = absl::Now() - start;
          return;
        }
        last_error[i] = absl::StrCat(status.error_code(), ": ", status.error_message());
        absl::SleepFor(backoff);  // the reflector's backoff
        backoff = std::min(2 * backoff, absl::Seconds(30));
      }
    });
  }
  for (std::thread& client : clients) client.join();
  flood.Stop();
  const double flood_seconds = absl::ToDoubleSeconds(absl::Now() - flood_start);

  double reviews = -reviews_before;
  for (const Replica& replica : replicas) reviews += TokenReviews(replica.http);
  std::vector<absl::Duration> sorted = served;
  std::sort(sorted.begin(), sorted.end());
  const int served_count = static_cast<int>(
      std::count_if(served.begin(), served.end(),
                    [](absl::Duration d) { return d != absl::InfiniteDuration(); }));
  std::cout << "rollout-tokens replicas=" << kReplicas << " clients=" << kClients
            << " served=" << served_count
            << " max_s=" << absl::ToDoubleSeconds(sorted.back())
            << " p50_s=" << absl::ToDoubleSeconds(sorted[kClients / 2])
            << " token_reviews=" << reviews << " flood_sent=" << flood.sent()
            << " flood_s=" << flood_seconds
            << " jwt_codes=" << flood.Codes(true) << " opaque_codes=" << flood.Codes(false)
            << std::endl;

  for (int i = 0; i < kClients; ++i) {
    EXPECT_LE(served[i], kBound) << "client-" << i << " last refused: " << last_error[i];
  }
  EXPECT_EQ(flood.count(true, grpc::StatusCode::RESOURCE_EXHAUSTED), 0)
      << "made-up JWTs spent a review budget";
  EXPECT_EQ(flood.count(true, grpc::StatusCode::OK), 0);
  // One review per client (then cached), and the opaque tokens' within the
  // new lane's budget (a burst of 100, then 50/s, per replica): none for a
  // JWT-shaped one.
  EXPECT_LE(reviews, kClients + kReplicas * (100 + 50 * flood_seconds) + 10);
  EXPECT_EQ(flood.count(false, grpc::StatusCode::OK), 0);
  for (Replica& replica : replicas) {
    EXPECT_EQ(replica.process->Stop(), 0) << replica.process->Log();
  }
}

}  // namespace
}  // namespace informerd::testing
