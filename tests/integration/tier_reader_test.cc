// InformerdReader (server/tier) against a scripted fake root (fake_root.h):
// the faults a leaf must ride out (a broken stream, a root that is not
// ready, OUT_OF_RANGE, the root's relist batch, Stop during a Watch, a lying
// root). The happy path against a real root is tier_test.cc. No control
// plane is needed.
#include "server/tier/informerd_reader.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "server/informer/informer.h"
#include "server/kube/recording_sink.h"
#include "tests/integration/fake_root.h"
#include "tests/integration/informerd_process.h"

namespace informerd::tier {
namespace {

using ::testing::ElementsAre;
using testing::Added;
using testing::Bookmark;
using testing::Event;
using testing::FakeRoot;
using testing::kEndlessObjectBytes;
using testing::ProcStatusKiB;
using testing::Script;

constexpr absl::Duration kWait = absl::Seconds(10);

// Records every sink call as a line, e.g. "item a 5" or "end 10".
class RecordingSink : public kube::RecordingSink {
 public:
  RecordingSink() : kube::RecordingSink(NameAndVersion) {}

 private:
  static std::string NameAndVersion(const rapidjson::Value& object) {
    const rapidjson::Value& metadata = object["metadata"];
    return absl::StrCat(metadata["name"].GetString(), " ",
                        metadata["resourceVersion"].GetString());
  }
};

InformerdReaderOptions FastOptions() {
  InformerdReaderOptions options;
  options.backoff.initial = absl::Milliseconds(10);
  options.backoff.cap = absl::Milliseconds(50);
  options.namespace_ = "ns";
  options.label_selector = "app=x";
  return options;
}

v1::ResourceName ConfigMaps() {
  v1::ResourceName name;
  name.set_version("v1");
  name.set_resource("configmaps");
  return name;
}

// A reader of the root's ConfigMaps, started, and the sink it feeds.
class Reading {
 public:
  explicit Reading(FakeRoot& root, InformerdReaderOptions options = FastOptions())
      : reader_(root.Channel(), ConfigMaps(), std::move(options), &sink_) {
    reader_.Start();
  }

  // Waits for the sink to record `line` (false if it never does), then
  // stops the reader.
  bool StopAfter(const std::string& line) {
    const bool seen = sink_.WaitFor(line);
    reader_.Stop();
    return seen;
  }

  InformerdReader& reader() { return reader_; }
  RecordingSink& sink() { return sink_; }
  std::vector<std::string> lines() { return sink_.lines(); }
  const kube::ReflectorStats& stats() { return reader_.stats(); }

 private:
  RecordingSink sink_;
  InformerdReader reader_;
};

TEST(InformerdReaderTest, ListsByInitialEventsThenResumesABrokenStreamFromTheLastVersion) {
  FakeRoot root;
  root.Add({{Added("a", "5"), Added("b", "7"), Bookmark("9", true),
             Event(v1::WatchEvent::MODIFIED, "a", "11", "11"), Bookmark("12")},
            grpc::Status(grpc::StatusCode::UNAVAILABLE, "root draining")});
  root.Add({{Event(v1::WatchEvent::DELETED, "b", "13", "13")}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.sink().WaitFor("deleted b 13"));
  EXPECT_TRUE(reading.reader().synced());
  reading.reader().Stop();
  EXPECT_THAT(reading.lines(), ElementsAre("start", "item a 5", "item b 7", "end 9",
                                           "modified a 11", "bookmark 12", "deleted b 13"));
  std::vector<v1::WatchRequest> requests = root.Requests(2);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_TRUE(requests[0].send_initial_events());
  EXPECT_TRUE(requests[0].allow_bookmarks());
  EXPECT_EQ(requests[0].resource_version(), "");
  EXPECT_EQ(requests[0].namespace_(), "ns");
  EXPECT_EQ(requests[0].label_selector(), "app=x");
  EXPECT_EQ(requests[0].resource().resource(), "configmaps");
  EXPECT_FALSE(requests[1].send_initial_events());
  EXPECT_EQ(requests[1].resource_version(), "12");
  EXPECT_EQ(reading.stats().transport_errors.load(), 1u);
  EXPECT_EQ(reading.stats().lists.load(), 1u);
}

TEST(InformerdReaderTest, RetriesARootThatIsNotReadyAndAStreamBrokenBeforeItsEnd) {
  FakeRoot root;
  root.Add({{}, grpc::Status(grpc::StatusCode::UNAVAILABLE, "not synced yet")});
  root.Add({{Added("a", "5")}, grpc::Status(grpc::StatusCode::UNAVAILABLE, "cut")});
  root.Add({{Added("a", "5"), Bookmark("6", true)}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.StopAfter("end 6"));
  // The partial list is abandoned by the next OnListStart.
  EXPECT_THAT(reading.lines(),
              ElementsAre("start", "start", "item a 5", "start", "item a 5", "end 6"));
  std::vector<v1::WatchRequest> requests = root.Requests(3);
  for (const v1::WatchRequest& request : requests) EXPECT_TRUE(request.send_initial_events());
}

TEST(InformerdReaderTest, OutOfRangeGetsTheStateAgain) {
  FakeRoot root;
  root.Add({{Added("a", "5"), Bookmark("6", true)},
            grpc::Status(grpc::StatusCode::UNAVAILABLE, "root restarting")});
  root.Add({{}, grpc::Status(grpc::StatusCode::OUT_OF_RANGE, "too old resource version: 6 (20)")});
  root.Add({{Added("a", "15"), Bookmark("20", true)}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.StopAfter("end 20"));
  EXPECT_THAT(reading.lines(),
              ElementsAre("start", "item a 5", "end 6", "start", "item a 15", "end 20"));
  std::vector<v1::WatchRequest> requests = root.Requests(3);
  EXPECT_EQ(requests[1].resource_version(), "6");
  // Not older than what the leaf has.
  EXPECT_TRUE(requests[2].send_initial_events());
  EXPECT_EQ(requests[2].resource_version(), "6");
  EXPECT_EQ(reading.stats().expired_410.load(), 1u);
  EXPECT_EQ(reading.stats().relists.load(), 1u);
}

TEST(InformerdReaderTest, TheRootsRelistBatchGetsTheStateAgain) {
  FakeRoot root;
  // The root relisted at 30 from 10: its batch's first events carry 10.
  root.Add({{Added("a", "5"), Added("b", "6"), Bookmark("10", true),
             Event(v1::WatchEvent::DELETED, "a", "5", "10", /*final_state_unknown=*/true),
             Event(v1::WatchEvent::MODIFIED, "b", "25", "30")},
            grpc::Status::OK, true});
  root.Add({{Added("b", "25"), Bookmark("30", true)}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.StopAfter("end 30"));
  // None of the batch reaches the sink as an event: the second list does.
  EXPECT_THAT(reading.lines(), ElementsAre("start", "item a 5", "item b 6", "end 10", "start",
                                           "item b 25", "end 30"));
  EXPECT_EQ(reading.stats().relists.load(), 1u);
}

TEST(InformerdReaderTest, AModifiedWhoseVersionIsNotItsObjectsIsABatch) {
  FakeRoot root;
  root.Add({{Bookmark("10", true), Event(v1::WatchEvent::MODIFIED, "b", "25", "10")},
            grpc::Status::OK, true});
  root.Add({{Added("b", "25"), Bookmark("30", true)}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.StopAfter("end 30"));
  EXPECT_THAT(reading.lines(), ElementsAre("start", "end 10", "start", "item b 25", "end 30"));
}

TEST(InformerdReaderTest, StopEndsAWatchInProgressAndSendsTheToken) {
  FakeRoot root;
  root.Add({{Bookmark("3", true)}, grpc::Status::OK, true});
  InformerdReaderOptions options = FastOptions();
  options.call_setup = [](grpc::ClientContext* context) {
    context->AddMetadata("authorization", "Bearer leaf-token");
    return absl::OkStatus();
  };
  Reading reading(root, options);
  ASSERT_TRUE(reading.sink().WaitFor("end 3"));
  const absl::Time start = absl::Now();
  reading.reader().Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_THAT(root.Authorizations(), ElementsAre("Bearer leaf-token"));
}

TEST(InformerdReaderTest, ACallSetupFailureIsRetried) {
  FakeRoot root;
  root.Add({{Bookmark("3", true)}, grpc::Status::OK, true});
  InformerdReaderOptions options = FastOptions();
  auto failures = std::make_shared<std::atomic<int>>(2);
  options.call_setup = [failures](grpc::ClientContext*) {
    if (failures->fetch_sub(1) > 0) return absl::FailedPreconditionError("token file missing");
    return absl::OkStatus();
  };
  Reading reading(root, options);
  ASSERT_TRUE(reading.StopAfter("end 3"));
  EXPECT_EQ(root.Requests(1).size(), 1u);
}

// Issue 26: a lying root. What it sends is refused, the stream is retried
// from the last version taken, and the sink never sees the lie.
TEST(InformerdReaderTest, AnObjectNestedAMillionLevelsIsRefusedNotACrash) {
  FakeRoot root;
  v1::WatchEvent deep = Event(v1::WatchEvent::MODIFIED, "a", "11", "11");
  deep.mutable_object()->set_json(
      absl::StrCat(R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":"11"},"data":)",
                   std::string(1000000, '['), std::string(1000000, ']'), "}"));
  root.Add({{Added("a", "5"), Bookmark("9", true), deep}, grpc::Status::OK, true});
  root.Add({{Event(v1::WatchEvent::MODIFIED, "a", "12", "12")}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.StopAfter("modified a 12"));
  EXPECT_THAT(reading.lines(), ElementsAre("start", "item a 5", "end 9", "modified a 12"));
  std::vector<v1::WatchRequest> requests = root.Requests(2);
  EXPECT_FALSE(requests[1].send_initial_events());
  EXPECT_EQ(requests[1].resource_version(), "9");
  EXPECT_EQ(reading.stats().decode_errors.load(), 1u);
}

TEST(InformerdReaderTest, ABookmarkNoRootCanHaveReachedIsRefused) {
  FakeRoot root;
  // 2^64-1 is no etcd revision; 10^12 is more than a cluster writes in the
  // moments since 9.
  root.Add({{Added("a", "5"), Bookmark("9", true), Bookmark("18446744073709551615")},
            grpc::Status::OK, true});
  root.Add({{Bookmark("1000000000000")}, grpc::Status::OK, true});
  root.Add({{Bookmark("12")}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.StopAfter("bookmark 12"));
  EXPECT_THAT(reading.lines(), ElementsAre("start", "item a 5", "end 9", "bookmark 12"));
  std::vector<v1::WatchRequest> requests = root.Requests(3);
  EXPECT_EQ(requests[1].resource_version(), "9");
  EXPECT_EQ(requests[2].resource_version(), "9");
  EXPECT_EQ(reading.stats().decode_errors.load(), 2u);
}

TEST(InformerdReaderTest, AnObjectWhoseVersionIsNotItsMessagesIsRefused) {
  FakeRoot root;
  v1::WatchEvent lying = Event(v1::WatchEvent::MODIFIED, "a", "11", "11");
  lying.mutable_object()->set_json(
      R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":"18446744073709551615"}})");
  root.Add({{Added("a", "5"), Bookmark("9", true), lying}, grpc::Status::OK, true});
  root.Add({{Event(v1::WatchEvent::MODIFIED, "a", "12", "12")}, grpc::Status::OK, true});
  Reading reading(root);
  ASSERT_TRUE(reading.StopAfter("modified a 12"));
  EXPECT_THAT(reading.lines(), ElementsAre("start", "item a 5", "end 9", "modified a 12"));
}

// An Informer (the leaf's cache), and what reached it: the most items one
// list held before its end or its abandonment, and the lists that ended.
class CountingInformerSink : public kube::ListWatchSink {
 public:
  CountingInformerSink() : informer_(informer::InformerOptions{}) {}

  void OnListStart() override {
    informer_.OnListStart();
    absl::MutexLock lock(&mu_);
    items_ = 0;
  }
  void OnListItem(rapidjson::Value& object) override {
    informer_.OnListItem(object);
    absl::MutexLock lock(&mu_);
    max_items_ = std::max(max_items_, ++items_);
  }
  void OnListEnd(std::string_view resource_version) override {
    informer_.OnListEnd(resource_version);
    absl::MutexLock lock(&mu_);
    ++ended_;
  }
  void OnWatchEvent(kube::WatchEventType type, rapidjson::Value& object) override {
    informer_.OnWatchEvent(type, object);
  }
  void OnBookmark(std::string_view resource_version) override {
    informer_.OnBookmark(resource_version);
  }

  // Waits up to `timeout` for a list to end.
  bool WaitForListEnd(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto ended = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return ended_ > 0; };
    return mu_.AwaitWithTimeout(absl::Condition(&ended), timeout);
  }
  size_t max_items() {
    absl::MutexLock lock(&mu_);
    return max_items_;
  }
  informer::Informer& informer() { return informer_; }

 private:
  informer::Informer informer_;
  absl::Mutex mu_;
  size_t items_ ABSL_GUARDED_BY(mu_) = 0;
  size_t max_items_ ABSL_GUARDED_BY(mu_) = 0;
  int ended_ ABSL_GUARDED_BY(mu_) = 0;
};

// A line of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 if absent.
// Issue 38 item 5: a lying root streams 64 KiB ADDED objects and never the
// initial-events-end bookmark. The leaf holds at most its bound of that
// list, drops it with an error naming the root and the bound, and asks
// again (backoff); three such lists later the root answers honestly and the
// leaf syncs. Its peak RSS stays within the bound and gRPC's buffers, where
// without the bound it took each endless stream (here capped at 128 MiB).
TEST(InformerdReaderTest, AnEndlessInitialListIsCutAtItsBoundAndListedAgain) {
  constexpr uint64_t kBoundBytes = 4 << 20;
  constexpr size_t kEndlessCap = 128 << 20;
  FakeRoot root;
  for (int i = 0; i < 3; ++i) {
    root.Add({{}, grpc::Status(grpc::StatusCode::UNAVAILABLE, "endless list sent"), false,
              kEndlessCap});
  }
  root.Add({{Added("a", "5"), Bookmark("6", true)}, grpc::Status::OK, true});
  InformerdReaderOptions options = FastOptions();
  options.upstream = "grpc://lying-root.example:8443";
  options.pending_lists =
      std::make_shared<PendingListBudget>(PendingListBounds{1'000'000, kBoundBytes, "set"});
  std::shared_ptr<PendingListBudget> budget = options.pending_lists;

  // The peak from here on (Linux: 5 resets VmHWM to the current RSS).
  ASSERT_TRUE(static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5"));
  const int64_t rss_before_kib = ProcStatusKiB(0, "VmRSS");
  ASSERT_GT(rss_before_kib, 0);
  CountingInformerSink sink;
  ::testing::internal::CaptureStderr();
  {
    InformerdReader reader(root.Channel(), ConfigMaps(), options, &sink);
    reader.Start();
    const bool synced = sink.WaitForListEnd(absl::Seconds(60));
    reader.Stop();
    const std::string log = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(synced) << "the leaf never took the honest list after the endless ones";
    const int64_t peak_growth_kib = ProcStatusKiB(0, "VmHWM") - rss_before_kib;
    std::printf("endless lists: max %zu items in one list, peak RSS +%lld KiB, %llu cut\n",
                sink.max_items(), static_cast<long long>(peak_growth_kib),
                static_cast<unsigned long long>(reader.stats().lists_too_large.load()));
    // Each item costs its JSON and kPendingItemOverhead against the bound.
    const size_t max_items = kBoundBytes / (kEndlessObjectBytes + kPendingItemOverhead) + 1;
    EXPECT_LE(sink.max_items(), max_items) << "a list held more than its bound";
    EXPECT_EQ(reader.stats().lists_too_large.load(), 3u);
    EXPECT_EQ(reader.stats().lists.load(), 1u);
    EXPECT_TRUE(reader.synced());
    EXPECT_EQ(sink.informer().stats().objects, 1u);
    // The bound, gRPC's buffers (both ends are in this process) and the
    // allocator's slack; a single unbounded endless stream is 128 MiB.
    EXPECT_LT(peak_growth_kib, 64 << 10) << "peak RSS grew past the bound";
    EXPECT_NE(log.find("grpc://lying-root.example:8443"), std::string::npos) << log;
    EXPECT_NE(log.find("the bound of 4194304 bytes for all pending initial lists"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("without its initial-events-end bookmark"), std::string::npos) << log;
    std::vector<v1::WatchRequest> requests = root.Requests(4);
    for (const v1::WatchRequest& request : requests) EXPECT_TRUE(request.send_initial_events());
  }
  // Every pending byte given back once the reader is gone.
  EXPECT_EQ(budget->held(), 0u);
}

TEST(InformerdReaderTest, AListPastItsItemBoundIsCutNamingIt) {
  FakeRoot root;
  root.Add({{Added("a", "5"), Added("b", "6"), Added("c", "7")},
            grpc::Status(grpc::StatusCode::UNAVAILABLE, "not reached"), true});
  root.Add({{Added("a", "5"), Added("b", "6"), Bookmark("8", true)}, grpc::Status::OK, true});
  InformerdReaderOptions options = FastOptions();
  options.pending_lists =
      std::make_shared<PendingListBudget>(PendingListBounds{2, uint64_t{1} << 30, "set"});
  ::testing::internal::CaptureStderr();
  Reading reading(root, options);
  const bool seen = reading.StopAfter("end 8");
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(seen);
  // The cut list is dropped at once (the second "start").
  EXPECT_THAT(reading.lines(), ElementsAre("start", "item a 5", "item b 6", "start", "start",
                                           "item a 5", "item b 6", "end 8"));
  EXPECT_EQ(reading.stats().lists_too_large.load(), 1u);
  EXPECT_NE(log.find("its bound of 2 items (upstreamListMaxItems)"), std::string::npos) << log;
}

}  // namespace
}  // namespace informerd::tier
