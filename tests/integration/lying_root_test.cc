// The informerd binary as a tier's leaf of a lying root (fake_root.h): the
// root streams its initial list of 64 KiB ConfigMaps and never ends it.
// The leaf must hold at most its bound (--upstream-list-max-bytes), say so
// naming the root, count it, and sync once the root answers honestly: the
// same assembly as production (flags, InformerdUpstream's shared budget,
// the reader, the Informer), seen from outside through its log, /readyz,
// /metrics and /proc/PID/status.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/fake_root.h"
#include "tests/integration/informerd_process.h"

namespace informerd::testing {
namespace {

// A line of /proc/PID/status in KiB ("VmHWM"); -1 if absent.
TEST(LyingRootTest, AnEndlessInitialListCostsTheLeafItsBoundAndTheLeafSyncsAfter) {
  constexpr uint64_t kBoundBytes = 16 << 20;
  // Per endless stream, for the fake's sake: without the bound the leaf
  // takes all of it.
  constexpr size_t kEndlessCap = 256 << 20;
  FakeRoot root;
  for (int i = 0; i < 2; ++i) {
    root.Add({{}, grpc::Status(grpc::StatusCode::UNAVAILABLE, "endless list sent"), false,
              kEndlessCap});
  }
  root.Add({{Added("a", "5"), Bookmark("6", true)}, grpc::Status::OK, true});
  const std::string root_url = absl::StrCat("grpc://127.0.0.1:", root.port());
  const int leaf_http = FreeLoopbackPort();
  InformerdProcess leaf({"--resources=configmaps", absl::StrCat("--upstream=", root_url),
                         absl::StrCat("--upstream-list-max-bytes=", kBoundBytes),
                         absl::StrCat("--grpc-address=127.0.0.1:", FreeLoopbackPort()),
                         absl::StrCat("--http-address=127.0.0.1:", leaf_http)},
                        "lying-root-leaf.log");
  ASSERT_TRUE(Eventually([&] { return HttpGet(leaf_http, "/readyz") == "200 ok\n"; },
                         absl::Seconds(60)))
      << HttpGet(leaf_http, "/readyz") << "\nleaf:\n" << leaf.Log().substr(0, 20000);
  const int64_t peak_kib = ProcStatusKiB(leaf.pid(), "VmHWM");
  const std::string metrics = HttpGet(leaf_http, "/metrics");
  const std::string log = leaf.Log();
  std::printf("leaf peak RSS %lld KiB against a bound of %llu KiB of pending lists\n",
              static_cast<long long>(peak_kib),
              static_cast<unsigned long long>(kBoundBytes >> 10));
  ASSERT_GT(peak_kib, 0);
  // The bound, the leaf's own ~30 MiB, gRPC's buffers and the allocator's
  // slack; one unbounded endless stream alone is 256 MiB.
  EXPECT_LT(peak_kib, 128 << 10) << "the leaf's peak RSS grew past its bound";
  EXPECT_NE(log.find(absl::StrCat("watch configmaps on the upstream informerd ", root_url,
                                  ": the initial list passed the bound of ", kBoundBytes,
                                  " bytes")),
            std::string::npos)
      << log.substr(0, 20000);
  EXPECT_NE(metrics.find("informerd_upstream_decode_errors_total{resource=\"configmaps\"} 2"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("informerd_upstream_lists_too_large_total{resource=\"configmaps\"} 2"),
            std::string::npos)
      << metrics;
  EXPECT_EQ(root.Requests(3).size(), 3u);
  EXPECT_EQ(leaf.Stop(), 0) << log.substr(0, 20000);
}

}  // namespace
}  // namespace informerd::testing
