#include "client/cpp/informerctl/watch_format.h"

#include "absl/strings/str_cat.h"
#include "client/cpp/informerctl/json_text.h"

namespace informerd {
namespace informerctl {

namespace {

using informerd::v1::WatchEvent;

constexpr size_t kEventWidth = 10;
constexpr size_t kNamespaceWidth = 20;
constexpr size_t kNameWidth = 40;

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

// text followed by spaces up to width, and at least one.
std::string Column(const std::string& text, size_t width) {
  size_t padding = text.size() < width ? width - text.size() : 1;
  return text + std::string(padding, ' ');
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

std::string WatchTableHeader(const WatchLineOptions& options) {
  std::string header = Column("EVENT", kEventWidth);
  if (options.with_namespace) header += Column("NAMESPACE", kNamespaceWidth);
  return header + Column("NAME", kNameWidth) + "RESOURCE-VERSION";
}

std::optional<std::string> FormatWatchEventRow(
    const WatchEvent& event, const WatchLineOptions& options) {
  if (!Shown(event, options)) return std::nullopt;
  std::string row = Column(TypeName(event.type()), kEventWidth);
  if (options.with_namespace) {
    row += Column(event.object().namespace_(), kNamespaceWidth);
  }
  return row + Column(event.object().name(), kNameWidth) + EventVersion(event);
}

}  // namespace informerctl
}  // namespace informerd
