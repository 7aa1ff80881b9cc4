#include "client/cpp/informerctl/watch_format.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

using informerd::v1::WatchEvent;

WatchEvent MakeEvent(WatchEvent::Type type, const std::string& json) {
  WatchEvent event;
  event.set_type(type);
  event.mutable_object()->set_json(json);
  event.mutable_object()->set_namespace_("ns");
  event.mutable_object()->set_name("cm");
  event.mutable_object()->set_resource_version("10");
  event.set_resource_version("10");
  return event;
}

WatchEvent MakeBookmark(const std::string& version, bool initial_events_end) {
  WatchEvent event;
  event.set_type(WatchEvent::BOOKMARK);
  event.mutable_object()->set_resource_version(version);
  event.set_resource_version(version);
  event.set_initial_events_end(initial_events_end);
  return event;
}

TEST(WatchFormatTest, ObjectEventsInApiServerFormat) {
  WatchLineOptions options;
  EXPECT_EQ(FormatWatchEventJson(MakeEvent(WatchEvent::ADDED, R"({"a":1})"),
                                 options),
            R"({"type":"ADDED","object":{"a":1}})");
  EXPECT_EQ(FormatWatchEventJson(MakeEvent(WatchEvent::MODIFIED, R"({"a":2})"),
                                 options),
            R"({"type":"MODIFIED","object":{"a":2}})");
  EXPECT_EQ(FormatWatchEventJson(MakeEvent(WatchEvent::DELETED, R"({"a":3})"),
                                 options),
            R"({"type":"DELETED","object":{"a":3}})");
}

TEST(WatchFormatTest, FinalStateUnknownAtTopLevelOfDeletes) {
  WatchEvent deleted = MakeEvent(WatchEvent::DELETED, R"({"a":3})");
  deleted.set_final_state_unknown(true);
  EXPECT_EQ(FormatWatchEventJson(deleted, WatchLineOptions()),
            R"({"type":"DELETED","object":{"a":3},"finalStateUnknown":true})");
}

TEST(WatchFormatTest, BookmarksHiddenUnlessAsked) {
  WatchLineOptions hidden;
  EXPECT_EQ(FormatWatchEventJson(MakeBookmark("5", false), hidden), std::nullopt);
  EXPECT_EQ(FormatWatchEventRow(MakeBookmark("5", false), hidden), std::nullopt);

  WatchLineOptions shown;
  shown.show_bookmarks = true;
  EXPECT_EQ(FormatWatchEventJson(MakeBookmark("5", false), shown),
            R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}})");
  shown.kind = "ConfigMap";
  shown.api_version = "v1";
  EXPECT_EQ(FormatWatchEventJson(MakeBookmark("6", true), shown),
            R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1",)"
            R"("metadata":{"resourceVersion":"6","annotations":)"
            R"({"k8s.io/initial-events-end":"true"}}}})");
}

TEST(WatchFormatTest, UnspecifiedTypeIsNotShown) {
  WatchEvent event = MakeEvent(WatchEvent::TYPE_UNSPECIFIED, "{}");
  WatchLineOptions options;
  options.show_bookmarks = true;
  EXPECT_EQ(FormatWatchEventJson(event, options), std::nullopt);
  EXPECT_EQ(FormatWatchEventRow(event, options), std::nullopt);
}

TEST(WatchFormatTest, TableRows) {
  WatchLineOptions options;
  options.with_namespace = true;
  EXPECT_EQ(WatchTableHeader(options),
            "EVENT     NAMESPACE           "
            "NAME                                    RESOURCE-VERSION");
  EXPECT_EQ(FormatWatchEventRow(MakeEvent(WatchEvent::ADDED, "{}"), options),
            "ADDED     ns                  "
            "cm                                      10");
  options.with_namespace = false;
  EXPECT_EQ(FormatWatchEventRow(MakeEvent(WatchEvent::DELETED, "{}"), options),
            "DELETED   cm                                      10");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
