// ListWatchSink: where a Reflector delivers what it learns from the API server.
//
// The Reflector (server/kube/reflector.h) owns the upstream LIST+WATCH loop:
// paging, resume by resourceVersion, relist on 410, backoff. It parses each
// response once with RapidJSON and hands the sink the parsed objects; the sink
// (an Informer) turns them into cached objects and events.
//
// Calls come from the Reflector's one thread, in this order per list:
//   OnListStart, OnListItem*, OnListEnd, then OnWatchEvent/OnBookmark until
//   the next OnListStart. A list that fails half way (e.g. its continue token
//   expired, or a streaming list's stream broke) is abandoned by calling
//   OnListStart again. A list is either LIST pages or the initial events of
//   a streaming list; the calls are the same.
#ifndef INFORMERD_SERVER_KUBE_LIST_WATCH_SINK_H_
#define INFORMERD_SERVER_KUBE_LIST_WATCH_SINK_H_

#include <string_view>

#include "rapidjson/document.h"

namespace informerd::kube {

enum class WatchEventType { kAdded, kModified, kDeleted };

class ListWatchSink {
 public:
  virtual ~ListWatchSink() = default;

  // A new full list begins; items from any unfinished list are discarded.
  virtual void OnListStart() = 0;

  // One item of the list, in the order served. The sink may modify or move
  // from `object` (it belongs to a page that is discarded afterwards).
  virtual void OnListItem(rapidjson::Value& object) = 0;

  // The list is complete and consistent at `resource_version`; the sink
  // replaces its state with the items since OnListStart.
  virtual void OnListEnd(std::string_view resource_version) = 0;

  // One watch event. `object` may be modified or moved from.
  virtual void OnWatchEvent(WatchEventType type, rapidjson::Value& object) = 0;

  // The API server's progress notification: no events up to this version.
  virtual void OnBookmark(std::string_view resource_version) = 0;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_LIST_WATCH_SINK_H_
