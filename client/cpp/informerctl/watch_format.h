// How `informerctl watch` prints events: one line each, as JSON in the API
// server's watch format ({"type":"MODIFIED","object":{...}}) or as a table
// row. Lines carry no trailing newline.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_WATCH_FORMAT_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_WATCH_FORMAT_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "client/cpp/informerctl/table.h"
#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace informerctl {

struct WatchLineOptions {
  // Bookmarks are progress markers, hidden unless asked for.
  bool show_bookmarks = false;
  // Put into bookmark objects, as the API server does; omitted when empty.
  std::string api_version;
  std::string kind;
  // WatchTable only: include a NAMESPACE column.
  bool with_namespace = false;
};

// nullopt for events not shown: hidden bookmarks and unknown event types.
// A DELETED event with final_state_unknown gets "finalStateUnknown":true at
// the top level; the bookmark ending the initial events is annotated
// "k8s.io/initial-events-end": "true".
std::optional<std::string> FormatWatchEventJson(
    const informerd::v1::WatchEvent& event, const WatchLineOptions& options);

// kubectl get -w --output-watch-events: EVENT, then the columns of get's
// table (columns.h), one line per event as it comes, aligned as far as the
// events so far allow (StreamTable). A shown bookmark has only its event
// type and "(resource version RV)" in the NAME column.
//
// Thread safety: not thread-safe.
class WatchTable {
 public:
  WatchTable(informerd::v1::ResourceName resource, WatchLineOptions options,
             bool wide);

  // The header line; print it once, first.
  std::string Header();

  // The event's line, AGE measured up to now; nullopt for events not shown.
  std::optional<std::string> Row(const informerd::v1::WatchEvent& event,
                                 absl::Time now);

 private:
  const informerd::v1::ResourceName resource_;
  const WatchLineOptions options_;
  const bool wide_;
  StreamTable table_;
};

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_WATCH_FORMAT_H_
