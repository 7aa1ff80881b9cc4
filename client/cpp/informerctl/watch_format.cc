#include "client/cpp/informerctl/watch_format.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cpp/informerctl/columns.h"
#include "client/cpp/informerctl/json_text.h"

namespace informerd {
namespace informerctl {

namespace {

using informerd::v1::WatchEvent;

// nullptr for types that are not shown.
const char* TypeName(WatchEvent::Type type) {
  switch (type) {
    case WatchEvent::ADDED:
      return "ADDED";
    case WatchEvent::MODIFIED:
      return "MODIFIED";
    case WatchEvent::DELETED:
      return "DELETED";
    case WatchEvent::BOOKMARK:
      return "BOOKMARK";
    default:
      return nullptr;
  }
}

bool Shown(const WatchEvent& event, const WatchLineOptions& options) {
  if (TypeName(event.type()) == nullptr) return false;
  return event.type() != WatchEvent::BOOKMARK || options.show_bookmarks;
}

const std::string& EventVersion(const WatchEvent& event) {
  if (!event.resource_version().empty()) return event.resource_version();
  return event.object().resource_version();
}

std::string BookmarkObjectJson(const WatchEvent& event,
                               const WatchLineOptions& options) {
  std::string json = "{";
  if (!options.kind.empty()) {
    absl::StrAppend(&json, "\"kind\":", JsonString(options.kind), ",");
  }
  if (!options.api_version.empty()) {
    absl::StrAppend(&json, "\"apiVersion\":", JsonString(options.api_version),
                    ",");
  }
  absl::StrAppend(&json, "\"metadata\":{\"resourceVersion\":",
                  JsonString(EventVersion(event)));
  if (event.initial_events_end()) {
    absl::StrAppend(&json,
                    ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}");
  }
  absl::StrAppend(&json, "}}");
  return json;
}

}  // namespace

std::optional<std::string> FormatWatchEventJson(
    const WatchEvent& event, const WatchLineOptions& options) {
  if (!Shown(event, options)) return std::nullopt;
  std::string object = event.type() == WatchEvent::BOOKMARK
                           ? BookmarkObjectJson(event, options)
                           : ObjectJson(event.object());
  std::string line = absl::StrCat("{\"type\":\"", TypeName(event.type()),
                                  "\",\"object\":", object);
  if (event.type() == WatchEvent::DELETED && event.final_state_unknown()) {
    absl::StrAppend(&line, ",\"finalStateUnknown\":true");
  }
  absl::StrAppend(&line, "}");
  return line;
}

WatchTable::WatchTable(informerd::v1::ResourceName resource,
                       WatchLineOptions options, bool wide)
    : resource_(std::move(resource)), options_(std::move(options)), wide_(wide) {}

std::string WatchTable::Header() {
  TableOptions columns;
  columns.with_namespace = options_.with_namespace;
  columns.wide = wide_;
  std::vector<std::string> header = {"EVENT"};
  std::vector<std::string> rest = TableHeader(resource_, columns);
  header.insert(header.end(), rest.begin(), rest.end());
  return table_.Line(header);
}

std::optional<std::string> WatchTable::Row(const WatchEvent& event,
                                           absl::Time now) {
  if (!Shown(event, options_)) return std::nullopt;
  std::vector<std::string> row = {TypeName(event.type())};
  if (event.type() == WatchEvent::BOOKMARK) {
    if (options_.with_namespace) row.push_back("");
    row.push_back(absl::StrCat("(resource version ", EventVersion(event), ")"));
    return table_.Line(row);
  }
  TableOptions columns;
  columns.with_namespace = options_.with_namespace;
  columns.wide = wide_;
  columns.now = now;
  std::vector<std::string> rest = TableRow(resource_, event.object(), columns);
  row.insert(row.end(), rest.begin(), rest.end());
  return table_.Line(row);
}

}  // namespace informerctl
}  // namespace informerd
