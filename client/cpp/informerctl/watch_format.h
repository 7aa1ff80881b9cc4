// How `informerctl watch` prints events: one line each, as JSON in the API
// server's watch format ({"type":"MODIFIED","object":{...}}) or as a table
// row. Lines carry no trailing newline.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_WATCH_FORMAT_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_WATCH_FORMAT_H_

#include <optional>
#include <string>

#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace informerctl {

struct WatchLineOptions {
  // Bookmarks are progress markers, hidden unless asked for.
  bool show_bookmarks = false;
  // Put into bookmark objects, as the API server does; omitted when empty.
  std::string api_version;
  std::string kind;
  // Table rows only: include a NAMESPACE column.
  bool with_namespace = false;
};

// nullopt for events not shown: hidden bookmarks and unknown event types.
// A DELETED event with final_state_unknown gets "finalStateUnknown":true at
// the top level; the bookmark ending the initial events is annotated
// "k8s.io/initial-events-end": "true".
std::optional<std::string> FormatWatchEventJson(
    const informerd::v1::WatchEvent& event, const WatchLineOptions& options);

std::string WatchTableHeader(const WatchLineOptions& options);

// EVENT [NAMESPACE] NAME RESOURCE-VERSION in fixed-width columns, since a
// stream cannot be measured in advance.
std::optional<std::string> FormatWatchEventRow(
    const informerd::v1::WatchEvent& event, const WatchLineOptions& options);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_WATCH_FORMAT_H_
