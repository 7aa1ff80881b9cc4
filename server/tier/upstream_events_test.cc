// UpstreamEvents against messages no honest root sends (issue 26). The
// reader's handling of the streams around them (retry, resume) is
// //tests/integration:tier_reader_test.
#include "server/tier/upstream_events.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/json/json_members.h"
#include "server/kube/recording_sink.h"

namespace informerd::tier {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1000000);
constexpr char kWhat[] = "watch configmaps on the upstream informerd grpc://root:8081";

std::string NameAndVersion(const rapidjson::Value& object) {
  return absl::StrCat(std::string(json::MetadataString(object, "name")), " ",
                      std::string(json::MetadataString(object, "resourceVersion")));
}

v1::WatchEvent Message(v1::WatchEvent::Type type, const std::string& version,
                       const std::string& json = "", bool initial_events_end = false) {
  v1::WatchEvent event;
  event.set_type(type);
  event.set_resource_version(version);
  event.set_initial_events_end(initial_events_end);
  event.mutable_object()->set_resource_version(version);
  event.mutable_object()->set_json(json);
  return event;
}

std::string ConfigMap(const std::string& name, const std::string& version) {
  return absl::StrCat(R"({"metadata":{"name":")", name, R"(","resourceVersion":")", version,
                      R"("}})");
}

class UpstreamEventsTest : public ::testing::Test {
 protected:
  UpstreamEventsTest() : sink_(NameAndVersion), events_(kWhat, &sink_, &stats_) {}

  // Lists `a` at 5, ending at 10.
  void List() {
    events_.StartWatch(true);
    ASSERT_TRUE(Handle(Message(v1::WatchEvent::ADDED, "5", ConfigMap("a", "5"))).ok());
    ASSERT_TRUE(Handle(Message(v1::WatchEvent::BOOKMARK, "10", "", true)).ok());
  }

  absl::Status Handle(v1::WatchEvent event, absl::Duration after = absl::ZeroDuration()) {
    bool relist = false;
    return events_.Handle(&event, kStart + after, &relist);
  }

  kube::RecordingSink sink_;
  kube::ReflectorStats stats_;
  UpstreamEvents events_;
};

TEST_F(UpstreamEventsTest, AnObjectNestedAMillionLevelsIsRefused) {
  List();
  const std::string deep = absl::StrCat(R"({"metadata":{"name":"a","resourceVersion":"11"},"data":)",
                                        std::string(1000000, '['), "]}");
  absl::Status status = Handle(Message(v1::WatchEvent::MODIFIED, "11", deep));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr(kWhat));
  EXPECT_THAT(status.message(), HasSubstr("nested deeper than 20000 levels"));
  EXPECT_EQ(events_.last_version(), "10");
}

TEST_F(UpstreamEventsTest, ABookmarkAtTheLargestVersionIsRefused) {
  List();
  absl::Status status = Handle(Message(v1::WatchEvent::BOOKMARK, "18446744073709551615"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            absl::StrCat(kWhat, ": a bookmark at \"18446744073709551615\" is not an etcd "
                                "revision (a decimal in 1..9223372036854775807)"));
  EXPECT_EQ(events_.last_version(), "10");
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "item a 5", "end 10"));
}

TEST_F(UpstreamEventsTest, AVersionFarBeyondWhatTheClusterCanHaveWrittenIsRefused) {
  List();
  // A second later, the burst of a million allows 1,000,010 at most (the
  // bucket is full; the second's 100,000 writes are less).
  EXPECT_THAT(Handle(Message(v1::WatchEvent::BOOKMARK, "1000000000000"), absl::Seconds(1))
                  .message(),
              HasSubstr(absl::StrCat(kWhat, ": a bookmark at 1000000000000 is 999999999990 "
                                            "ahead of 10")));
  EXPECT_THAT(Handle(Message(v1::WatchEvent::ADDED, "1000000000000",
                             ConfigMap("b", "1000000000000")),
                     absl::Seconds(1))
                  .message(),
              HasSubstr(absl::StrCat(kWhat, ": an event at 1000000000000")));
  EXPECT_FALSE(Handle(Message(v1::WatchEvent::BOOKMARK, "1000011"), absl::Seconds(1)).ok());
  EXPECT_TRUE(Handle(Message(v1::WatchEvent::BOOKMARK, "1000010"), absl::Seconds(1)).ok());
  EXPECT_THAT(sink_.lines(), ElementsAre("start", "item a 5", "end 10", "bookmark 1000010"));
}

TEST_F(UpstreamEventsTest, AnObjectWhoseVersionIsNotItsMessagesIsRefused) {
  List();
  v1::WatchEvent event = Message(v1::WatchEvent::MODIFIED, "11", ConfigMap("a", "18446744073709551615"));
  absl::Status status = Handle(event);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(),
            absl::StrCat(kWhat, ": an object's metadata.resourceVersion \"18446744073709551615\" "
                                "is not its message's \"11\""));
}

TEST_F(UpstreamEventsTest, AListItemNewerThanItsListIsRefused) {
  events_.StartWatch(true);
  ASSERT_TRUE(Handle(Message(v1::WatchEvent::ADDED, "50", ConfigMap("a", "50"))).ok());
  absl::Status status = Handle(Message(v1::WatchEvent::BOOKMARK, "10", "", true));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(),
            absl::StrCat(kWhat, ": the list at 10 holds an item at 50, newer than the list"));
  EXPECT_TRUE(events_.awaiting_initial_events_end());
  EXPECT_FALSE(events_.synced());
}

}  // namespace
}  // namespace informerd::tier
