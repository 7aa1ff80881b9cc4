// UpstreamEvents: turns the messages of a root informerd's Watch into calls
// on a ListWatchSink, refusing what no honest root sends. InformerdReader
// runs the calls; this is the part that reads the root's bytes, apart from
// gRPC so that it can be fuzzed (tests/fuzz: upstream_events_fuzzer).
//
// What it guarantees about what reaches the sink, whatever the root sends:
//   - objects parsed by json::ParseInsitu (nesting bounded), with a
//     metadata.name; an event's object carries the event's resourceVersion
//     (metadata.resourceVersion is what the Informer orders by);
//   - versions (bookmarks, list ends, events) are etcd revisions that the
//     root can have reached (VersionBound), and no listed item is newer than
//     its list;
//   - OnListItem only between a list's start and its end bookmark, and
//     watch events and bookmarks only outside a list;
//   - a list holds at most the budget's max_items items, and all pending
//     lists together at most its max_bytes (PendingListBudget): past
//     either the list is dropped (OnListStart) and the stream ends
//     RESOURCE_EXHAUSTED naming the root and the bound, counted in
//     lists_too_large.
// A message that breaks one of these ends the stream with an error naming
// the upstream and the field; the reader then retries (backoff) from the
// last version it took, so a refused message never moves the leaf.
//
// Thread safety: none; used by the reader's thread only.
#ifndef INFORMERD_SERVER_TIER_UPSTREAM_EVENTS_H_
#define INFORMERD_SERVER_TIER_UPSTREAM_EVENTS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "informerd/v1/informerd.pb.h"
#include "server/kube/list_watch_sink.h"
#include "server/kube/upstream_reader.h"
#include "server/tier/pending_list_budget.h"
#include "server/tier/version_bound.h"

namespace informerd::tier {

class UpstreamEvents {
 public:
  // `what` prefixes errors and log lines ("watch configmaps on the
  // upstream informerd grpcs://root:8443").
  // `budget` null: one of its own with the default bounds.
  // REQUIRES: `sink` and `stats` outlive this.
  UpstreamEvents(std::string what, kube::ListWatchSink* sink, kube::ReflectorStats* stats,
                 VersionBoundPolicy versions = {},
                 std::shared_ptr<PendingListBudget> budget = nullptr);
  // Gives the pending list's bytes back.
  ~UpstreamEvents();

  UpstreamEvents(const UpstreamEvents&) = delete;
  UpstreamEvents& operator=(const UpstreamEvents&) = delete;

  // A new Watch begins; with `initial_events`, its initial events are a
  // list for the sink (OnListStart is called here).
  void StartWatch(bool initial_events);

  // Hands one message to the sink, `now` being when it arrived (monotonic).
  // Sets *relist when the root's relist batch shows (the stream is then to
  // be abandoned); a non-OK status ends the stream as a failure.
  absl::Status Handle(v1::WatchEvent* event, absl::Time now, bool* relist);

  // Whether the current Watch still owes its initial-events-end bookmark.
  bool awaiting_initial_events_end() const { return awaiting_initial_events_end_; }
  // Whether a list has ended since construction.
  bool synced() const { return synced_; }
  // The version to resume from; "" before the first list ends.
  const std::string& last_version() const { return last_version_; }
  const VersionBound& versions() const { return versions_; }

 private:
  absl::Status HandleBookmark(const v1::WatchEvent& event, absl::Time now);
  // Counts one more item of the list in progress against the bounds; an
  // error (the list dropped) past them.
  absl::Status TakeListItem(size_t json_bytes);
  // Gives the list in progress's bytes back to the budget.
  void ReleaseList();

  const std::string what_;
  kube::ListWatchSink* const sink_;
  kube::ReflectorStats* const stats_;
  VersionBound versions_;
  std::string last_version_;
  bool awaiting_initial_events_end_ = false;
  bool synced_ = false;
  // The newest item of the list in progress.
  uint64_t newest_item_ = 0;
  const std::shared_ptr<PendingListBudget> budget_;
  // The list in progress: its items, and the bytes it took from budget_.
  size_t list_items_ = 0;
  uint64_t list_bytes_ = 0;
};

}  // namespace informerd::tier

#endif  // INFORMERD_SERVER_TIER_UPSTREAM_EVENTS_H_
