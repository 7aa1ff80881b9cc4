// The history-backfill attack (issue 26, finding 1) on the informerd binary
// against the real apiserver: a caller that may watch one (empty) namespace
// resumes a Watch of pods from one version before the oldest informerd can
// resume from, then one before the new oldest, and so on. informerd serves
// a few thousand pods; each backfill run LISTs all of them from the
// apiserver at an exact version. The bound: at most one extra full LIST per
// backfill window (a minute) and informerd's RSS within 1.2x of its steady
// state, at its peak and after. Read from outside, by bench/backfill_attack
// (the apiserver's apiserver_request_total for LISTs of pods, which no other
// test lists, and /proc for RSS).
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "bench/backfill_attack.h"
#include "gtest/gtest.h"
#include "tests/integration/informerd_process.h"
#include "tests/integration/live_cluster.h"

namespace informerd::testing {
namespace {

constexpr int kPods = 2500;
constexpr int kRounds = 6;
// A namespace of its own, kept between runs: the loader only completes it.
constexpr char kPodNamespace[] = "backfill-flood-pods";

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// Loads the pods with bench/bulk_loader (the bench's fixture pods, about
// 12 KB each as served); true on success.
bool LoadPods() {
  const std::string loader = absl::StrCat(Env("TEST_SRCDIR"), "/informerd/bench/bulk_loader");
  const std::string command = absl::StrCat(
      "'", loader, "' --apiserver_url='", Env("INFORMERD_APISERVER_URL"), "' --ca_file='",
      Env("INFORMERD_CA_FILE"), "' --token_file='", Env("INFORMERD_ADMIN_TOKEN_FILE"),
      "' --namespace_=", kPodNamespace, " --resource=pods --count=", kPods,
      " --concurrency=4 >'", Env("TEST_TMPDIR"), "/bulk_loader.log' 2>&1");
  return std::system(command.c_str()) == 0;
}

bench::ApiserverTarget Apiserver() {
  bench::ApiserverTarget target;
  target.url = Env("INFORMERD_APISERVER_URL");
  target.ca_file = Env("INFORMERD_CA_FILE");
  std::ifstream file(Env("INFORMERD_ADMIN_TOKEN_FILE"));
  std::stringstream token;
  token << file.rdbuf();
  target.token = std::string(absl::StripAsciiWhitespace(token.str()));
  return target;
}

TEST(BackfillFlood, SteppingBackOneVersionAtATimeCostsOneListAndNoMemory) {
  ASSERT_TRUE(LoadPods()) << "bench/bulk_loader failed; see bulk_loader.log in the test's outputs";
  const std::string attacker = CreateTestNamespace("backfill-attacker");
  const int grpc_port = FreeLoopbackPort();
  const int http_port = FreeLoopbackPort();
  InformerdProcess informerd(
      {"--kubeconfig=" + Env("KUBECONFIG"), "--resources=pods",
       absl::StrCat("--grpc_address=127.0.0.1:", grpc_port),
       absl::StrCat("--http_address=127.0.0.1:", http_port), "--log_level=warning"},
      "informerd.log");
  ASSERT_TRUE(Eventually([&] { return HttpGet(http_port, "/readyz").rfind("200", 0) == 0; },
                         absl::Seconds(120)))
      << informerd.Log();

  bench::BackfillAttackOptions options;
  options.target = absl::StrCat("127.0.0.1:", grpc_port);
  options.resource = "pods";
  options.namespace_ = attacker;
  options.rounds = kRounds;
  options.informerd_pid = informerd.pid();
  options.apiserver = Apiserver();
  absl::StatusOr<bench::BackfillAttackResult> result = bench::RunBackfillAttack(options);
  ASSERT_TRUE(result.ok()) << result.status() << "\n" << informerd.Log();
  std::cout << result->Summary() << std::endl;
  ::testing::Test::RecordProperty("summary", result->Summary());

  ASSERT_GE(result->objects, static_cast<size_t>(kPods));
  EXPECT_EQ(result->rounds, kRounds);
  // The first resume may be served by one run; every later one is
  // refused at once, as the apiserver refuses a version it no longer has.
  EXPECT_LE(result->resumed, 1) << result->Summary();
  EXPECT_EQ(result->refusals["OUT_OF_RANGE"], kRounds - result->resumed) << result->Summary();
  EXPECT_LE(result->extra_full_lists_per_window(), 1.0) << result->Summary();
  EXPECT_LE(result->rss_peak_ratio(), 1.2) << result->Summary();
  EXPECT_LE(result->rss_after_ratio(), 1.2) << result->Summary();
  EXPECT_EQ(informerd.Stop(), 0) << informerd.Log();
}

}  // namespace
}  // namespace informerd::testing
