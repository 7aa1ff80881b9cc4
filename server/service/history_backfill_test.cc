#include "server/service/history_backfill.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "rapidjson/document.h"
#include "server/kube/fake_api_server.h"

namespace informerd::service {
namespace {

constexpr char kPods[] = "/api/v1/pods";
constexpr absl::Duration kWait = absl::Seconds(10);
constexpr char kBookmarkAt100[] =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"100"}})";

std::string Status(int code, const std::string& reason, const std::string& message) {
  return absl::StrCat(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")",
                      message, R"(","reason":")", reason, R"(","code":)", code, "}");
}

std::string Pod(const std::string& name, int version) {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", name,
                      R"(","namespace":"ns","uid":"u-)", name, R"(","resourceVersion":")",
                      version, R"("}})");
}

std::string Event(const std::string& type, const std::string& object) {
  return absl::StrCat(R"({"type":")", type, R"(","object":)", object, "}\n");
}

// The answer a Request gets, once.
struct Answer {
  absl::Notification done;
  absl::Status status;
  std::function<void(absl::Status)> Callback() {
    return [this](absl::Status answer) {
      status = std::move(answer);
      done.Notify();
    };
  }
};

// How the fake apiserver answers.
enum class Upstream {
  kExpired,  // every list: 410
  kBroken,   // every list: 500
  kHistory,  // the history below
  kSilent,   // lists never answer
};

// The apiserver's history of namespace ns: at version 50 it held a@40,
// b@45 and c@30; b changed at 60, c was deleted at 70, and nothing changed
// up to 100. The served informer is synced at 100 (a@40, b@60) with no
// history of its own: it started after all that.
class HistoryBackfillTest : public ::testing::Test {
 protected:
  void Serve(Upstream upstream, HistoryBackfillOptions options = {}) {
    server_.Handle(kPods, [this, upstream](const httplib::Request& request,
                                           httplib::Response& response) {
      uint64_t from = 0;
      if (!absl::SimpleAtoi(request.get_param_value("resourceVersion"), &from)) from = 0;
      if (request.has_param("watch")) {
        std::vector<std::string> chunks;
        if (from < 60) chunks.push_back(Event("MODIFIED", Pod("b", 60)));
        if (from < 70) chunks.push_back(Event("DELETED", Pod("c", 70)));
        chunks.push_back(Event("BOOKMARK", kBookmarkAt100));
        server_.ReplyStream(response, chunks, kube::FakeApiServer::StreamEnd::kHang);
        return;
      }
      switch (upstream) {
        case Upstream::kExpired:
          response.status = 410;
          response.set_content(Status(410, "Expired", "too old resource version: 5 (90)"),
                               "application/json");
          return;
        case Upstream::kBroken:
          response.status = 500;
          response.set_content(Status(500, "InternalError", "broken"), "application/json");
          return;
        case Upstream::kSilent:
          server_.ReplyStream(response, {}, kube::FakeApiServer::StreamEnd::kHang);
          return;
        case Upstream::kHistory:
          response.set_content(
              absl::StrCat(R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")",
                           from, R"("},"items":[)", Pod("a", 40), ",", Pod("b", 45), ",",
                           Pod("c", 30), "]}"),
              "application/json");
          return;
      }
    });
    auto client = kube::RestClient::Create(server_.config());
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    target_.OnListStart();
    for (const std::string& pod : {Pod("a", 40), Pod("b", 60)}) {
      rapidjson::Document json;
      json.Parse(pod.c_str());
      target_.OnListItem(json);
    }
    target_.OnListEnd("100");
    kube::ResourceInfo pods;
    pods.version = "v1";
    pods.resource = "pods";
    pods.kind = "Pod";
    pods.namespaced = true;
    kube::ReflectorOptions reflector;
    reflector.backoff.initial = absl::Milliseconds(1);
    reflector.backoff.cap = absl::Milliseconds(10);
    options.run_timeout = absl::Milliseconds(500);
    options.gather = absl::Milliseconds(10);
    backfill_ = std::make_unique<HistoryBackfill>(client_.get(), pods, reflector,
                                                  informer::InformerOptions{}, &target_,
                                                  options);
  }

  // Requests `version` and waits for its answer.
  absl::Status Ask(uint64_t version) {
    // Shared with the callback: a request left unanswered here is answered
    // when backfill_ goes, after this returns.
    auto answer = std::make_shared<Answer>();
    backfill_->Request(version, [answer, done = answer->Callback()](absl::Status status) {
      done(std::move(status));
    });
    if (!answer->done.WaitForNotificationWithTimeout(kWait)) {
      return absl::DeadlineExceededError(absl::StrCat("no answer for version ", version));
    }
    return answer->status;
  }

  size_t ListRequests() const {
    size_t lists = 0;
    for (const kube::RecordedRequest& request : server_.requests()) {
      if (request.params.count("watch") == 0) ++lists;
    }
    return lists;
  }

  kube::FakeApiServer server_;
  std::unique_ptr<kube::RestClient> client_;
  informer::Informer target_{informer::InformerOptions{}};
  std::unique_ptr<HistoryBackfill> backfill_;
};

TEST_F(HistoryBackfillTest, AVersionTheHistoryHoldsNeedsNoRun) {
  Serve(Upstream::kBroken);
  const absl::Status answer = Ask(100);
  EXPECT_TRUE(answer.ok()) << answer;
  EXPECT_EQ(backfill_->runs(), 0u);
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(HistoryBackfillTest, TheRunHoldsOnlyWhatChangedAndGivesTheApiserversEvents) {
  Serve(Upstream::kHistory);
  const absl::Status answer = Ask(50);
  ASSERT_TRUE(answer.ok()) << answer;
  EXPECT_EQ(target_.stats().oldest_resource_version, 50u);
  absl::StatusOr<std::vector<cache::Event>> events = target_.EventsBetween(50, 100);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].type, cache::EventType::kModified);
  EXPECT_EQ((*events)[0].object->key(), "ns/b");
  ASSERT_NE((*events)[0].previous, nullptr);
  EXPECT_EQ((*events)[0].previous->resource_version_number(), 45u);
  EXPECT_EQ((*events)[1].type, cache::EventType::kDeleted);
  EXPECT_EQ((*events)[1].object->key(), "ns/c");
  // a is at 40 in the served cache too: unchanged, not held.
  EXPECT_EQ(backfill_->stats().last_run_skipped, 1u);
  EXPECT_EQ(backfill_->stats().last_run_kept, 2u);
  const std::vector<kube::RecordedRequest> requests = server_.requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0].Param("resourceVersion"), "50");
  EXPECT_EQ(requests[0].Param("resourceVersionMatch"), "Exact");
}

// Issue 26, finding 1: a caller asks for one version before the oldest,
// then one older, and so on; each used to cost a LIST of the whole
// resource and a second copy of it.
TEST_F(HistoryBackfillTest, SteppingBackOneVersionAtATimeCostsOneRunPerWindow) {
  Serve(Upstream::kHistory);
  ASSERT_TRUE(Ask(99).ok());
  const size_t lists = ListRequests();
  EXPECT_EQ(lists, 1u);
  for (uint64_t version = 98; version > 90; --version) {
    const absl::Status answer = Ask(version);
    EXPECT_EQ(answer.code(), absl::StatusCode::kOutOfRange) << answer;
    EXPECT_NE(answer.message().find("too old resource version"), std::string::npos) << answer;
  }
  EXPECT_EQ(backfill_->runs(), 1u);
  EXPECT_EQ(backfill_->stats().refused, 8u);
  EXPECT_EQ(ListRequests(), lists);
  EXPECT_EQ(target_.stats().oldest_resource_version, 99u);
}

TEST_F(HistoryBackfillTest, AnOlderVersionRunsAgainOnceTheWindowHasPassed) {
  HistoryBackfillOptions options;
  options.window = absl::ZeroDuration();
  Serve(Upstream::kHistory, options);
  ASSERT_TRUE(Ask(90).ok());
  ASSERT_TRUE(Ask(50).ok());
  EXPECT_EQ(backfill_->runs(), 2u);
  EXPECT_EQ(target_.stats().oldest_resource_version, 50u);
}

TEST_F(HistoryBackfillTest, RequestsArrivingTogetherShareOneRunFromTheOldest) {
  HistoryBackfillOptions options;
  Serve(Upstream::kHistory, options);
  Answer newer, older;
  backfill_->Request(90, newer.Callback());
  backfill_->Request(50, older.Callback());
  ASSERT_TRUE(newer.done.WaitForNotificationWithTimeout(kWait));
  ASSERT_TRUE(older.done.WaitForNotificationWithTimeout(kWait));
  EXPECT_TRUE(newer.status.ok()) << newer.status;
  EXPECT_TRUE(older.status.ok()) << older.status;
  EXPECT_EQ(backfill_->runs(), 1u);
  EXPECT_EQ(ListRequests(), 1u);
}

TEST_F(HistoryBackfillTest, CompactedVersionIsOutOfRangeAndStaysRefusedWithoutAsking) {
  HistoryBackfillOptions options;
  options.window = absl::ZeroDuration();  // only the 410 is remembered
  Serve(Upstream::kExpired, options);
  const absl::Status first = Ask(50);
  EXPECT_EQ(first.code(), absl::StatusCode::kOutOfRange) << first;
  EXPECT_NE(first.message().find("too old resource version: 50"), std::string::npos) << first;
  const size_t lists = ListRequests();
  ASSERT_GT(lists, 0u);
  const absl::Status older = Ask(40);
  EXPECT_EQ(older.code(), absl::StatusCode::kOutOfRange) << older;
  EXPECT_EQ(ListRequests(), lists) << "a refused version is not asked again";
  EXPECT_EQ(backfill_->runs(), 1u);
  EXPECT_EQ(backfill_->failures(), 0u) << "a 410 is an answer, not a failure";
  EXPECT_EQ(target_.stats().oldest_resource_version, 100u);
}

TEST_F(HistoryBackfillTest, AFailedRunIsRememberedNotRetried) {
  HistoryBackfillOptions options;
  options.window = absl::ZeroDuration();  // only the failure is remembered
  Serve(Upstream::kBroken, options);
  const absl::Status answer = Ask(50);
  EXPECT_EQ(answer.code(), absl::StatusCode::kUnavailable) << answer;
  EXPECT_EQ(backfill_->pending(), 0u);
  EXPECT_EQ(backfill_->failures(), 1u);
  EXPECT_EQ(target_.stats().oldest_resource_version, 100u);
  const size_t lists = ListRequests();
  for (uint64_t version : {50, 60, 99}) {
    const absl::Status again = Ask(version);
    EXPECT_EQ(again.code(), absl::StatusCode::kOutOfRange) << again;
    EXPECT_NE(again.message().find("failed"), std::string::npos) << again;
  }
  EXPECT_EQ(ListRequests(), lists);
  EXPECT_EQ(backfill_->runs(), 1u);
}

TEST_F(HistoryBackfillTest, ARunNobodyWaitsForStopsAndStillCountsAgainstItsWindow) {
  Serve(Upstream::kSilent);
  std::atomic<bool> wanted{true};
  std::atomic<bool> answered{false};
  backfill_->Request(
      50, [&answered](absl::Status) { answered = true; }, [&wanted] { return wanted.load(); });
  ASSERT_TRUE(server_.WaitForRequests(kPods, 1, kWait));
  wanted = false;
  const absl::Time deadline = absl::Now() + kWait;
  while (backfill_->stats().abandoned == 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(backfill_->stats().abandoned, 1u);
  EXPECT_EQ(backfill_->pending(), 0u);
  EXPECT_FALSE(answered.load());
  const absl::Status older = Ask(40);
  EXPECT_EQ(older.code(), absl::StatusCode::kOutOfRange) << older;
  EXPECT_EQ(backfill_->runs(), 1u);
}

TEST_F(HistoryBackfillTest, PendingRequestsAreAnsweredWhenItStops) {
  Serve(Upstream::kBroken);
  Answer answer;
  backfill_->Request(50, answer.Callback());
  backfill_.reset();
  ASSERT_TRUE(answer.done.HasBeenNotified());
  EXPECT_EQ(answer.status.code(), absl::StatusCode::kUnavailable) << answer.status;
}

}  // namespace
}  // namespace informerd::service
