#include "server/kube/reflector.h"

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "server/kube/fake_api_server.h"
#include "server/kube/recording_sink.h"

namespace informerd::kube {
namespace {

using ::testing::ElementsAre;
using StreamEnd = FakeApiServer::StreamEnd;

constexpr absl::Duration kWait = absl::Seconds(10);
constexpr char kPods[] = "/api/v1/pods";

std::string Name(const rapidjson::Value& object) {
  return object["metadata"]["name"].GetString();
}

// The name, and whether managedFields reached the sink.
std::string NameAndManaged(const rapidjson::Value& object) {
  auto metadata = object.FindMember("metadata");
  const bool managed = metadata != object.MemberEnd() && metadata->value.IsObject() &&
                       metadata->value.HasMember("managedFields");
  return Name(object) + (managed ? " with managedFields" : "");
}

// Records every sink call as a line, e.g. "item a" or "end 10", and keeps
// the last watch event's string "data".
class DataRecordingSink : public RecordingSink {
 public:
  DataRecordingSink() : RecordingSink(NameAndManaged) {}

  void OnWatchEvent(WatchEventType type, rapidjson::Value& object) override {
    auto data = object.FindMember("data");
    if (data != object.MemberEnd() && data->value.IsString()) {
      absl::MutexLock lock(&mu_);
      last_data_ = data->value.GetString();
    }
    RecordingSink::OnWatchEvent(type, object);
  }

  std::string last_data() const {
    absl::MutexLock lock(&mu_);
    return last_data_;
  }

 private:
  mutable absl::Mutex mu_;
  std::string last_data_ ABSL_GUARDED_BY(mu_);
};

std::string Pod(const std::string& name, const std::string& rv) {
  return absl::StrCat(R"({"metadata":{"name":")", name,
                      R"(","resourceVersion":")", rv, R"("}})");
}

std::string Page(const std::vector<std::string>& items, const std::string& rv,
                 const std::string& continue_token = "") {
  std::string json = R"({"kind":"PodList","apiVersion":"v1","metadata":{)";
  absl::StrAppend(&json, R"("resourceVersion":")", rv, "\"");
  if (!continue_token.empty()) {
    absl::StrAppend(&json, R"(,"continue":")", continue_token, "\"");
  }
  absl::StrAppend(&json, R"(},"items":[)");
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StrAppend(&json, i == 0 ? "" : ",", items[i]);
  }
  return json + "]}";
}

std::string Event(const std::string& type, const std::string& object) {
  return absl::StrCat(R"({"type":")", type, R"(","object":)", object, "}\n");
}

std::string Status(int code, const std::string& reason,
                   const std::string& message) {
  return absl::StrCat(
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")",
      message, R"(","reason":")", reason, R"(","code":)", code, "}");
}

using Reply = std::function<void(httplib::Response&)>;

// Serves /api/v1/pods from two scripts, one reply per request: lists and
// watches. An exhausted list script fails with 500; an exhausted watch
// script leaves the watch open and silent.
class ReflectorTest : public ::testing::Test {
 protected:
  ReflectorTest() {
    server_.Handle(kPods, [this](const httplib::Request& request,
                                 httplib::Response& response) {
      Reply reply;
      {
        absl::MutexLock lock(&mu_);
        std::deque<Reply>& script =
            request.has_param("watch") ? watches_ : lists_;
        if (!script.empty()) {
          reply = std::move(script.front());
          script.pop_front();
        }
      }
      if (reply) {
        reply(response);
      } else if (request.has_param("watch")) {
        server_.ReplyStream(response, {}, StreamEnd::kHang);
      } else {
        Json(response, 500, Status(500, "InternalError", "script ended"));
      }
    });
    auto client = RestClient::Create(server_.config());
    EXPECT_TRUE(client.ok());
    client_ = *std::move(client);
    options_.backoff.initial = absl::Milliseconds(1);
    options_.backoff.cap = absl::Milliseconds(10);
    // Most tests script the paged LIST path; the streaming-list tests turn
    // this back on.
    options_.streaming_list = false;
  }

  ~ReflectorTest() override {
    if (reflector_ != nullptr) reflector_->Stop();
  }

  static void Json(httplib::Response& response, int status,
                   const std::string& body) {
    response.status = status;
    response.set_content(body, "application/json");
  }

  void AddList(int status, std::string body) {
    absl::MutexLock lock(&mu_);
    lists_.push_back([status, body](httplib::Response& response) {
      Json(response, status, body);
    });
  }
  void AddListReply(Reply reply) {
    absl::MutexLock lock(&mu_);
    lists_.push_back(std::move(reply));
  }
  void AddWatch(std::vector<std::string> chunks, StreamEnd end) {
    absl::MutexLock lock(&mu_);
    watches_.push_back([this, chunks, end](httplib::Response& response) {
      server_.ReplyStream(response, chunks, end);
    });
  }
  void AddWatchReply(Reply reply) {
    absl::MutexLock lock(&mu_);
    watches_.push_back(std::move(reply));
  }

  void StartReflector() {
    ResourceInfo pods;
    pods.version = "v1";
    pods.resource = "pods";
    pods.kind = "Pod";
    pods.namespaced = true;
    reflector_ = std::make_unique<Reflector>(client_.get(), pods, options_,
                                             &sink_);
    reflector_->Start();
  }

  std::vector<RecordedRequest> Requests(bool watch) const {
    std::vector<RecordedRequest> selected;
    for (const RecordedRequest& request : server_.requests()) {
      if (request.params.count("watch") == (watch ? 1u : 0u)) {
        selected.push_back(request);
      }
    }
    return selected;
  }

  // Waits for `count` watch requests; a new watch means the previous one
  // has been fully handled.
  bool WaitForWatches(size_t count) {
    const absl::Time deadline = absl::Now() + kWait;
    while (absl::Now() < deadline) {
      if (Requests(/*watch=*/true).size() >= count) return true;
      server_.WaitForRequests(kPods, server_.requests().size() + 1,
                              absl::Milliseconds(100));
    }
    return false;
  }

  // The script outlives server_, whose handler threads read it until the
  // server's destructor joins them.
  absl::Mutex mu_;
  std::deque<Reply> lists_ ABSL_GUARDED_BY(mu_);
  std::deque<Reply> watches_ ABSL_GUARDED_BY(mu_);

  FakeApiServer server_;
  std::unique_ptr<RestClient> client_;
  ReflectorOptions options_;
  DataRecordingSink sink_;
  std::unique_ptr<Reflector> reflector_;
};

TEST_F(ReflectorTest, ManagedFieldsAreCutFromListsOnlyWhenAsked) {
  auto pod = [](const std::string& name) {
    return absl::StrCat(R"({"metadata":{"name":")", name,
                        R"(","resourceVersion":"5","managedFields":[{"manager":"m"}]}})");
  };
  for (const char* watched : {"b", "c"}) {
    AddList(200, Page({pod("a")}, "10"));
    AddWatch({Event("ADDED", pod(watched))}, StreamEnd::kHang);
  }
  options_.cut_managed_fields_from_lists = true;
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("added b with managedFields"));
  reflector_->Stop();
  options_.cut_managed_fields_from_lists = false;
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("added c with managedFields"));
  EXPECT_THAT(sink_.lines(),
              ElementsAre("start", "item a", "end 10", "added b with managedFields", "start",
                          "item a with managedFields", "end 10", "added c with managedFields"));
}

TEST_F(ReflectorTest, PagedListThenWatchEventsReachTheSink) {
  options_.label_selector = "app in (web)";
  AddList(200, Page({Pod("a", "5"), Pod("b", "6")}, "10", "c+1/="));
  AddList(200, Page({Pod("c", "7")}, "10"));
  AddWatch({Event("ADDED", Pod("d", "11")), Event("MODIFIED", Pod("a", "12")),
            Event("DELETED", Pod("b", "13")),
            Event("BOOKMARK", R"({"metadata":{"resourceVersion":"14"}})")},
           StreamEnd::kHang);
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("bookmark 14"));
  EXPECT_TRUE(reflector_->synced());
  EXPECT_THAT(sink_.lines(),
              ElementsAre("start", "item a", "item b", "item c", "end 10",
                          "added d", "modified a", "deleted b",
                          "bookmark 14"));

  const std::vector<RecordedRequest> lists = Requests(/*watch=*/false);
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0].Param("limit"), "500");
  // The first list may come from the watch cache, as client-go's does; its
  // later pages carry only the continue token.
  EXPECT_EQ(lists[0].Param("resourceVersion"), "0");
  EXPECT_EQ(lists[0].params.count("continue"), 0u);
  EXPECT_EQ(lists[1].params.count("resourceVersion"), 0u);
  EXPECT_EQ(lists[0].Param("labelSelector"), "app in (web)");
  EXPECT_EQ(lists[1].Param("continue"), "c+1/=");
  const std::vector<RecordedRequest> watches = Requests(/*watch=*/true);
  ASSERT_EQ(watches.size(), 1u);
  EXPECT_EQ(watches[0].Param("resourceVersion"), "10");
  EXPECT_EQ(watches[0].Param("allowWatchBookmarks"), "true");
  EXPECT_EQ(watches[0].Param("labelSelector"), "app in (web)");
  int timeout = 0;
  ASSERT_TRUE(absl::SimpleAtoi(watches[0].Param("timeoutSeconds"), &timeout));
  EXPECT_GE(timeout, 300);
  EXPECT_LE(timeout, 600);

  const ReflectorStats& stats = reflector_->stats();
  EXPECT_EQ(stats.lists.load(), 1u);
  EXPECT_EQ(stats.list_pages.load(), 2u);
  EXPECT_EQ(stats.events.load(), 3u);
  EXPECT_EQ(stats.bookmarks.load(), 1u);
}

std::string InitialEventsEnd(const std::string& rv) {
  return Event("BOOKMARK", absl::StrCat(R"({"kind":"Pod","apiVersion":"v1","metadata":{)"
                                        R"("resourceVersion":")",
                                        rv, R"(","annotations":{"k8s.io/initial-events-end":"true"}}})"));
}

TEST_F(ReflectorTest, StreamingListThenWatchEventsReachTheSink) {
  options_.streaming_list = true;
  options_.label_selector = "app in (web)";
  AddWatch({Event("ADDED", Pod("a", "5")), Event("ADDED", Pod("b", "6")),
            // A bookmark without the annotation is progress only.
            Event("BOOKMARK", R"({"metadata":{"resourceVersion":"9"}})"),
            InitialEventsEnd("10"), Event("ADDED", Pod("c", "11")),
            Event("BOOKMARK", R"({"metadata":{"resourceVersion":"12"}})")},
           StreamEnd::kHang);
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("bookmark 12"));
  EXPECT_TRUE(reflector_->synced());
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "item a", "item b", "end 10", "added c",
                                         "bookmark 12"));
  EXPECT_TRUE(Requests(/*watch=*/false).empty());
  const std::vector<RecordedRequest> watches = Requests(/*watch=*/true);
  ASSERT_EQ(watches.size(), 1u);
  EXPECT_EQ(watches[0].Param("sendInitialEvents"), "true");
  EXPECT_EQ(watches[0].Param("resourceVersionMatch"), "NotOlderThan");
  EXPECT_EQ(watches[0].params.count("resourceVersion"), 1u);
  EXPECT_EQ(watches[0].Param("resourceVersion"), "");
  EXPECT_EQ(watches[0].Param("allowWatchBookmarks"), "true");
  EXPECT_EQ(watches[0].Param("labelSelector"), "app in (web)");
  const ReflectorStats& stats = reflector_->stats();
  EXPECT_EQ(stats.lists.load(), 1u);
  EXPECT_EQ(stats.streamed_lists.load(), 1u);
  EXPECT_EQ(stats.list_pages.load(), 0u);
  EXPECT_EQ(stats.events.load(), 1u);
}

TEST_F(ReflectorTest, RefusedStreamingListFallsBackToPagedListsForGood) {
  options_.streaming_list = true;
  AddWatchReply([](httplib::Response& response) {
    Json(response, 422,
         Status(422, "Invalid", "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: "
                                "Forbidden: resourceVersionMatch is forbidden for watch"));
  });
  AddList(200, Page({Pod("a", "5")}, "10"));
  AddWatch({Event("ERROR", Status(410, "Expired", "too old resource version: 10 (30)"))},
           StreamEnd::kClose);
  AddList(200, Page({Pod("a", "5")}, "30"));
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("end 30"));
  ASSERT_TRUE(WaitForWatches(3));
  EXPECT_THAT(sink_.lines(),
              ElementsAre("start", "start", "item a", "end 10", "start", "item a", "end 30"));
  const std::vector<RecordedRequest> watches = Requests(/*watch=*/true);
  EXPECT_EQ(watches[0].Param("sendInitialEvents"), "true");
  for (size_t i = 1; i < watches.size(); ++i) {
    EXPECT_EQ(watches[i].params.count("sendInitialEvents"), 0u) << "watch " << i;
  }
  EXPECT_EQ(watches[2].Param("resourceVersion"), "30");
  EXPECT_EQ(Requests(/*watch=*/false).size(), 2u);
  EXPECT_EQ(reflector_->stats().streaming_list_refused.load(), 1u);
  EXPECT_EQ(reflector_->stats().streamed_lists.load(), 0u);
}

TEST_F(ReflectorTest, StreamingListBrokenBeforeItsEndIsFollowedByOnePagedList) {
  options_.streaming_list = true;
  AddWatch({Event("ADDED", Pod("a", "5"))}, StreamEnd::kCut);
  AddList(200, Page({Pod("a", "5"), Pod("b", "6")}, "10"));
  AddWatch({Event("ERROR", Status(410, "Expired", "too old"))}, StreamEnd::kClose);
  // The relist after that tries streaming again.
  AddWatch({Event("ADDED", Pod("b", "6")), InitialEventsEnd("20")}, StreamEnd::kHang);
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("end 20"));
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "item a", "start", "item a", "item b",
                                         "end 10", "start", "item b", "end 20"));
  const std::vector<RecordedRequest> watches = Requests(/*watch=*/true);
  ASSERT_EQ(watches.size(), 3u);
  EXPECT_EQ(watches[0].Param("sendInitialEvents"), "true");
  EXPECT_EQ(watches[1].params.count("sendInitialEvents"), 0u);
  EXPECT_EQ(watches[1].Param("resourceVersion"), "10");
  EXPECT_EQ(watches[2].Param("sendInitialEvents"), "true");
  EXPECT_EQ(Requests(/*watch=*/false).size(), 1u);
  const ReflectorStats& stats = reflector_->stats();
  EXPECT_EQ(stats.streaming_list_broken.load(), 1u);
  EXPECT_EQ(stats.streaming_list_refused.load(), 0u);
  EXPECT_EQ(stats.relists.load(), 1u);
  EXPECT_EQ(stats.lists.load(), 2u);
  EXPECT_EQ(stats.streamed_lists.load(), 1u);
}

TEST_F(ReflectorTest, ExpiredContinueTokenRestartsTheList) {
  AddList(200, Page({Pod("a", "5")}, "10", "old"));
  AddList(410, Status(410, "Expired", "continue token too old"));
  AddList(200, Page({Pod("a", "5")}, "20", "new"));
  AddList(200, Page({Pod("b", "6")}, "20"));
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("end 20"));
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "item a", "start", "item a",
                                         "item b", "end 20"));
  const std::vector<RecordedRequest> lists = Requests(/*watch=*/false);
  ASSERT_EQ(lists.size(), 4u);
  EXPECT_EQ(lists[2].params.count("continue"), 0u);
  EXPECT_EQ(lists[3].Param("continue"), "new");
  EXPECT_EQ(reflector_->stats().list_restarts.load(), 1u);
  ASSERT_TRUE(WaitForWatches(1));
  EXPECT_EQ(Requests(/*watch=*/true)[0].Param("resourceVersion"), "20");
}

TEST_F(ReflectorTest, ExactVersionListsThatStateThenWatchesFromIt) {
  options_.list_exact_version = "7";
  AddList(200, Page({Pod("a", "5")}, "7", "more"));
  AddList(200, Page({Pod("b", "6")}, "7"));
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("end 7"));
  const std::vector<RecordedRequest> lists = Requests(/*watch=*/false);
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0].Param("resourceVersion"), "7");
  EXPECT_EQ(lists[0].Param("resourceVersionMatch"), "Exact");
  EXPECT_EQ(lists[1].Param("continue"), "more");
  EXPECT_EQ(lists[1].params.count("resourceVersionMatch"), 0u);
  ASSERT_TRUE(WaitForWatches(1));
  EXPECT_EQ(Requests(/*watch=*/true)[0].Param("resourceVersion"), "7");
}

TEST_F(ReflectorTest, CompactedExactVersionCountsAsExpired) {
  options_.list_exact_version = "7";
  for (int i = 0; i < 3; ++i) {
    AddList(410, Status(410, "Expired", "too old resource version: 7 (30)"));
  }
  StartReflector();
  // A second request means the first answer was handled.
  ASSERT_TRUE(server_.WaitForRequests(kPods, 2, kWait));
  EXPECT_GE(reflector_->stats().expired_410.load(), 1u);
  EXPECT_EQ(reflector_->stats().http_errors.load(), 0u);
  EXPECT_FALSE(reflector_->synced());
}

TEST_F(ReflectorTest, ExpiredWatchRelists) {
  AddList(200, Page({Pod("a", "5")}, "10"));
  AddWatch({Event("ADDED", Pod("x", "11")),
            Event("ERROR", Status(410, "Expired",
                                  "too old resource version: 11 (40)"))},
           StreamEnd::kClose);
  AddList(200, Page({Pod("a", "5"), Pod("x", "11")}, "40"));
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("end 40"));
  EXPECT_THAT(sink_.lines(),
              ElementsAre("start", "item a", "end 10", "added x", "start",
                          "item a", "item x", "end 40"));
  ASSERT_TRUE(WaitForWatches(2));
  EXPECT_EQ(Requests(/*watch=*/true)[1].Param("resourceVersion"), "40");
  EXPECT_EQ(reflector_->stats().relists.load(), 1u);
  EXPECT_EQ(reflector_->stats().expired_410.load(), 1u);
}

TEST_F(ReflectorTest, Http410OnWatchRelists) {
  AddList(200, Page({}, "10"));
  AddWatchReply([](httplib::Response& response) {
    Json(response, 410, Status(410, "Gone", "too old"));
  });
  AddList(200, Page({}, "50"));
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("end 50"));
  EXPECT_EQ(reflector_->stats().relists.load(), 1u);
}

TEST_F(ReflectorTest, CutConnectionResumesFromTheLastResourceVersion) {
  AddList(200, Page({}, "10"));
  AddWatch({Event("ADDED", Pod("a", "11")),
            R"({"type":"ADDED","object":{"metadata":{"na)"},
           StreamEnd::kCut);
  StartReflector();
  ASSERT_TRUE(WaitForWatches(2));
  EXPECT_EQ(Requests(/*watch=*/true)[1].Param("resourceVersion"), "11");
  EXPECT_EQ(Requests(/*watch=*/false).size(), 1u);
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "end 10", "added a"));
  EXPECT_GE(reflector_->stats().transport_errors.load(), 1u);
}

TEST_F(ReflectorTest, NormalWatchEndRewatchesWithoutRelisting) {
  AddList(200, Page({}, "10"));
  AddWatch({Event("ADDED", Pod("a", "11")),
            Event("BOOKMARK", R"({"metadata":{"resourceVersion":"15"}})")},
           StreamEnd::kClose);
  StartReflector();
  ASSERT_TRUE(WaitForWatches(2));
  EXPECT_EQ(Requests(/*watch=*/true)[1].Param("resourceVersion"), "15");
  EXPECT_EQ(Requests(/*watch=*/false).size(), 1u);
  EXPECT_EQ(reflector_->stats().relists.load(), 0u);
}

TEST_F(ReflectorTest, ThrottlingAndServerErrorsAreRetried) {
  absl::Mutex times_mu;
  std::vector<absl::Time> list_times;
  auto timed = [&](int status, std::string body, std::string retry_after) {
    AddListReply([&, status, body, retry_after](httplib::Response& response) {
      {
        absl::MutexLock lock(&times_mu);
        list_times.push_back(absl::Now());
      }
      if (!retry_after.empty()) response.set_header("Retry-After", retry_after);
      Json(response, status, body);
    });
  };
  timed(500, Status(500, "InternalError", "etcd"), "");
  timed(429, Status(429, "TooManyRequests", "slow down"), "1");
  timed(200, Page({Pod("a", "5")}, "10"), "");
  AddWatchReply([](httplib::Response& response) {
    Json(response, 503, "unavailable");
  });
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("end 10"));
  ASSERT_TRUE(WaitForWatches(2));
  EXPECT_EQ(Requests(/*watch=*/true)[1].Param("resourceVersion"), "10");
  {
    absl::MutexLock lock(&times_mu);
    ASSERT_EQ(list_times.size(), 3u);
    EXPECT_GE(list_times[2] - list_times[1], absl::Milliseconds(950));
  }
  const ReflectorStats& stats = reflector_->stats();
  EXPECT_EQ(stats.throttled.load(), 1u);
  EXPECT_EQ(stats.http_errors.load(), 2u);
  EXPECT_EQ(stats.lists.load(), 1u);
}

TEST_F(ReflectorTest, MalformedJsonNeverReachesTheSink) {
  AddList(200, "{\"kind\":\"PodList\",\"items\":[");  // truncated page
  AddList(200, R"({"metadata":{"resourceVersion":"10"},"items":[)" +
                   Pod("a", "5") + R"(,{"metadata":{}},7]})");
  AddWatch({"this is not json\n", Event("ADDED", Pod("never", "99"))},
           StreamEnd::kClose);
  AddWatch({R"({"type":"ADDED","object":[1,2]})"
            "\n"},
           StreamEnd::kClose);
  AddWatch({Event("ADDED", R"({"metadata":{"resourceVersion":"12"}})"),
            Event("SURPRISE", Pod("s", "13")), Event("ADDED", Pod("ok", "14")),
            R"({"type":"MODIFIED","object":{"metadata":{"name":"tr)"},
           StreamEnd::kClose);
  StartReflector();
  ASSERT_TRUE(WaitForWatches(4));
  // Items stream to the sink as they arrive, so the truncated first page had
  // begun a list; the retry abandons it with a new start, as the sink's
  // contract says.
  EXPECT_THAT(sink_.lines(),
              ElementsAre("start", "start", "item a", "end 10", "added ok"));
  const std::vector<RecordedRequest> watches = Requests(/*watch=*/true);
  EXPECT_EQ(watches[1].Param("resourceVersion"), "10");
  EXPECT_EQ(watches[2].Param("resourceVersion"), "10");
  EXPECT_EQ(watches[3].Param("resourceVersion"), "14");
  const ReflectorStats& stats = reflector_->stats();
  EXPECT_EQ(stats.decode_errors.load(), 4u);  // page, 2 frames, truncation
  EXPECT_EQ(stats.rejected_objects.load(), 3u);
}

// Issue 26: nothing bounded nesting, and RapidJSON recurses once per level;
// an object a million levels deep overflowed the reflector's stack.
TEST_F(ReflectorTest, ObjectsNestedAMillionLevelsAreRefusedNotACrash) {
  auto deep = [](const std::string& name, const std::string& rv) {
    return absl::StrCat(R"({"metadata":{"name":")", name, R"(","resourceVersion":")", rv,
                        R"("},"spec":)", std::string(1000000, '['), std::string(1000000, ']'),
                        "}");
  };
  AddList(200, Page({deep("deep", "7")}, "10"));
  AddList(200, Page({Pod("a", "5")}, "10"));
  AddWatch({Event("ADDED", deep("deeper", "11"))}, StreamEnd::kClose);
  AddWatch({Event("ADDED", Pod("ok", "12"))}, StreamEnd::kHang);
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("added ok"));
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "start", "item a", "end 10", "added ok"));
  EXPECT_EQ(reflector_->stats().decode_errors.load(), 2u);
}

TEST_F(ReflectorTest, OversizeFrameIsDropped) {
  options_.max_frame_bytes = 1000;
  AddList(200, Page({}, "10"));
  AddWatch({Event("ADDED", absl::StrCat(R"({"metadata":{"name":"big",)",
                                        R"("resourceVersion":"11"},"data":")",
                                        std::string(2000, 'x'), "\"}"))},
           StreamEnd::kClose);
  StartReflector();
  ASSERT_TRUE(WaitForWatches(2));
  EXPECT_EQ(Requests(/*watch=*/true)[1].Param("resourceVersion"), "10");
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "end 10"));
  EXPECT_EQ(reflector_->stats().decode_errors.load(), 1u);
}

TEST_F(ReflectorTest, HugeObjectIsDeliveredIntact) {
  std::string data(5 << 20, ' ');
  for (size_t i = 0; i < data.size(); ++i) data[i] = 'a' + (i * 7919) % 26;
  AddList(200, Page({}, "10"));
  AddWatch({Event("ADDED",
                  absl::StrCat(R"({"metadata":{"name":"huge",)",
                               R"("resourceVersion":"11"},"data":")", data,
                               "\"}")),
            Event("ADDED", Pod("after", "12"))},
           StreamEnd::kHang);
  StartReflector();
  ASSERT_TRUE(sink_.WaitFor("added after"));
  EXPECT_THAT(sink_.lines(),
              ElementsAre("start", "end 10", "added huge", "added after"));
  EXPECT_TRUE(sink_.last_data() == data);
}

TEST_F(ReflectorTest, StopInterruptsASilentWatchPromptly) {
  AddList(200, Page({}, "10"));
  StartReflector();
  ASSERT_TRUE(WaitForWatches(1));
  ASSERT_TRUE(sink_.WaitFor("end 10"));
  const absl::Time start = absl::Now();
  reflector_->Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST_F(ReflectorTest, StopInterruptsABackoff) {
  options_.backoff.initial = absl::Hours(1);
  options_.backoff.cap = absl::Hours(1);
  StartReflector();  // every list fails: the reflector backs off for an hour
  ASSERT_TRUE(server_.WaitForRequests(kPods, 1, kWait));
  const absl::Time start = absl::Now();
  reflector_->Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_FALSE(reflector_->synced());
}

}  // namespace
}  // namespace informerd::kube
