#include "server/service/history_backfill.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "rapidjson/document.h"
#include "server/kube/fake_api_server.h"

namespace informerd::service {
namespace {

constexpr char kPods[] = "/api/v1/pods";
constexpr absl::Duration kWait = absl::Seconds(10);

std::string Status(int code, const std::string& reason, const std::string& message) {
  return absl::StrCat(R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")",
                      message, R"(","reason":")", reason, R"(","code":)", code, "}");
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

// A served informer synced at version 100 and a backfill against a fake
// apiserver whose every list answers `list_status`.
class HistoryBackfillTest : public ::testing::Test {
 protected:
  void Serve(int list_status) {
    server_.Handle(kPods, [list_status](const httplib::Request& request,
                                        httplib::Response& response) {
      response.status = list_status;
      response.set_content(list_status == 410
                               ? Status(410, "Expired", "too old resource version: 5 (90)")
                               : Status(500, "InternalError", "broken"),
                           "application/json");
    });
    auto client = kube::RestClient::Create(server_.config());
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    target_.OnListStart();
    target_.OnListEnd("100");
    kube::ResourceInfo pods;
    pods.version = "v1";
    pods.resource = "pods";
    pods.kind = "Pod";
    pods.namespaced = true;
    kube::ReflectorOptions reflector;
    reflector.backoff.initial = absl::Milliseconds(1);
    reflector.backoff.cap = absl::Milliseconds(10);
    HistoryBackfillOptions options;
    options.run_timeout = absl::Milliseconds(300);
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
  Serve(500);
  const absl::Status answer = Ask(100);
  EXPECT_TRUE(answer.ok()) << answer;
  EXPECT_EQ(backfill_->runs(), 0u);
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(HistoryBackfillTest, CompactedVersionIsOutOfRangeAndStaysRefusedWithoutAsking) {
  Serve(410);
  const absl::Status first = Ask(50);
  EXPECT_EQ(first.code(), absl::StatusCode::kOutOfRange) << first;
  EXPECT_NE(first.message().find("too old resource version: 50"), std::string::npos) << first;
  const std::vector<kube::RecordedRequest> requests = server_.requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0].Param("resourceVersion"), "50");
  EXPECT_EQ(requests[0].Param("resourceVersionMatch"), "Exact");

  const size_t lists = ListRequests();
  const absl::Status older = Ask(40);
  EXPECT_EQ(older.code(), absl::StatusCode::kOutOfRange) << older;
  EXPECT_EQ(ListRequests(), lists) << "a refused version is not asked again";
  EXPECT_EQ(backfill_->runs(), 1u);
  EXPECT_EQ(backfill_->failures(), 0u) << "a 410 is an answer, not a failure";
  EXPECT_EQ(target_.stats().oldest_resource_version, 100u);
}

TEST_F(HistoryBackfillTest, AFailingServerEndsTheRunUnavailableAtItsTimeout) {
  Serve(500);
  const absl::Status answer = Ask(50);
  EXPECT_EQ(answer.code(), absl::StatusCode::kUnavailable) << answer;
  EXPECT_EQ(backfill_->pending(), 0u);
  EXPECT_EQ(backfill_->failures(), 1u);
  EXPECT_EQ(target_.stats().oldest_resource_version, 100u);
}

TEST_F(HistoryBackfillTest, PendingRequestsAreAnsweredWhenItStops) {
  Serve(500);
  Answer answer;
  backfill_->Request(50, answer.Callback());
  backfill_.reset();
  ASSERT_TRUE(answer.done.HasBeenNotified());
  EXPECT_EQ(answer.status.code(), absl::StatusCode::kUnavailable) << answer.status;
}

}  // namespace
}  // namespace informerd::service
