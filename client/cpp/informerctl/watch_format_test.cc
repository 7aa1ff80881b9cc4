#include "client/cpp/informerctl/watch_format.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

using informerd::v1::WatchEvent;

constexpr char kConfigMap[] =
    R"({"metadata":{"creationTimestamp":"2026-01-02T10:00:00Z"},"data":{"a":"1","b":"2"}})";

absl::Time Now() {
  return absl::FromUnixSeconds(1767348005);  // 2026-01-02T10:00:05Z
}

informerd::v1::ResourceName ConfigMaps() {
  informerd::v1::ResourceName resource;
  resource.set_resource("configmaps");
  return resource;
}

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
  EXPECT_EQ(WatchTable(ConfigMaps(), hidden, false).Row(MakeBookmark("5", false), Now()),
            std::nullopt);

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
  EXPECT_EQ(WatchTable(ConfigMaps(), options, false).Row(event, Now()), std::nullopt);
}

TEST(WatchFormatTest, TableRowsHaveAnEventColumnAndTheTypesColumns) {
  WatchLineOptions options;
  options.with_namespace = true;
  WatchTable table(ConfigMaps(), options, /*wide=*/false);
  EXPECT_EQ(table.Header(), "EVENT   NAMESPACE   NAME   DATA   AGE");
  EXPECT_EQ(table.Row(MakeEvent(WatchEvent::ADDED, kConfigMap), Now()),
            "ADDED   ns          cm     2      5s");
  EXPECT_EQ(table.Row(MakeEvent(WatchEvent::DELETED, kConfigMap), Now()),
            "DELETED   ns          cm     2      5s");
}

TEST(WatchFormatTest, ShownBookmarkRowNamesItsVersion) {
  WatchLineOptions options;
  options.show_bookmarks = true;
  WatchTable table(ConfigMaps(), options, /*wide=*/false);
  table.Header();
  EXPECT_EQ(table.Row(MakeBookmark("7", false), Now()),
            "BOOKMARK   (resource version 7)");
}

TEST(WatchFormatTest, WideTableOfPods) {
  informerd::v1::ResourceName pods;
  pods.set_resource("pods");
  WatchTable table(pods, WatchLineOptions(), /*wide=*/true);
  EXPECT_EQ(table.Header(),
            "EVENT   NAME   READY   STATUS   RESTARTS   AGE   IP    NODE   "
            "NOMINATED NODE   READINESS GATES");
  EXPECT_EQ(table.Row(MakeEvent(WatchEvent::ADDED,
                                R"({"metadata":{"creationTimestamp":"2026-01-02T10:00:00Z"},)"
                                R"("spec":{"containers":[{"name":"c"}]},"status":{"phase":"Pending"}})"),
                      Now()),
            "ADDED   cm     0/1     Pending   0          5s    <none>   <none>   "
            "<none>           <none>");
  // Cells wider than the header widen their column from then on.
  EXPECT_EQ(table.Row(MakeEvent(WatchEvent::DELETED, "{}"), Now()),
            "DELETED   cm     0/0               0          <unknown>   <none>   <none>   "
            "<none>           <none>");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
