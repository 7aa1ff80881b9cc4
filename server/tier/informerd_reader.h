// InformerdReader: keeps a ListWatchSink in step with one resource of an
// upstream informerd, over its v1 gRPC API, as kube::Reflector does with the
// kube-apiserver. A leaf informerd serves from it; its Informer cannot tell
// the two readers apart, and neither can the leaf's clients: the objects,
// resourceVersions and bookmarks are the root's.
//
// The state comes by Watch with send_initial_events: the initial ADDED
// events are the list (OnListStart, OnListItem...), the BOOKMARK with
// initial_events_end its end (OnListEnd with the bookmark's version). Then
// events (OnWatchEvent) and bookmarks (OnBookmark) follow on the same
// stream. A stream that ends or breaks (UNAVAILABLE while the root restarts
// or drains, a cut connection) is resumed with Watch from the last version
// seen, after a backoff (retry::Backoff, reset by every message); OUT_OF_RANGE (the root's history no
// longer holds that version, e.g. a restarted root) gets the state again
// (not older than the last version seen), which the Informer turns into
// diff events, so the leaf's own watchers are not cut.
//
// The root turns its own relists into a batch of diff events that all take
// the list's version (see cache/event.h). Such events are recognised on the
// wire by final_state_unknown or by a resource_version that is not their
// object's; the reader then gets the state again itself rather than
// replaying the batch, so the leaf's cache takes the root's state by the same
// diff (the leaf's diff events carry the leaf's versions around the batch).
//
// Objects arrive as JSON bytes in the Watch messages; each is parsed once,
// in situ, and handed to the sink as a RapidJSON value, as the Reflector
// does. Events without metadata.name are counted and dropped. The root is
// not trusted to be well-formed: UpstreamEvents checks each message (nesting,
// versions the root cannot have reached) and a refused one ends the stream
// as a decode error, retried from the last version taken. Its initial lists
// are bounded in items and bytes until their end bookmark
// (PendingListBudget): one that passes them is dropped, and the state is
// asked for again after a backoff, so a root streaming an endless list
// costs the leaf at most the bound, again and again.
//
// stats() counts in the Reflector's terms (the same metrics): lists and
// streamed_lists (every state), watches, relists, expired_410
// (OUT_OF_RANGE), events, bookmarks; errors as transport_errors
// (UNAVAILABLE, CANCELLED, DEADLINE_EXCEEDED, a stream ended early),
// throttled (RESOURCE_EXHAUSTED), http_errors (any other code),
// decode_errors (lists_too_large among them) and rejected_objects.
//
// Thread safety: Start() and Stop() may be called from any thread; the sink
// is called only from the reader's own thread. stats() and synced() are
// thread-safe.
#ifndef INFORMERD_SERVER_TIER_INFORMERD_READER_H_
#define INFORMERD_SERVER_TIER_INFORMERD_READER_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "rapidjson/document.h"
#include "retry/backoff.h"
#include "server/kube/list_watch_sink.h"
#include "server/kube/reader_thread.h"
#include "server/kube/upstream_reader.h"
#include "server/tier/pending_list_budget.h"
#include "server/tier/upstream_events.h"
#include "server/tier/version_bound.h"

namespace informerd::tier {

// Prepares each call to the root: adds the leaf's credentials (its bearer
// token) to the context. A failure (an unreadable token file) fails the
// call, which is retried with backoff.
using CallSetup = std::function<absl::Status(grpc::ClientContext* context)>;

struct InformerdReaderOptions {
  // Passed to the root's Watch; the root checks them as for any client.
  std::string namespace_;  // empty = all namespaces
  std::string label_selector;
  std::string field_selector;
  // The defaults are informerd's clients': a root that restarted or drained
  // is back within a second, and its watches resume from its history
  // cheaply, so a leaf need not wait as long as a Reflector does.
  retry::BackoffPolicy backoff;
  // Null: calls carry no credentials of their own.
  CallSetup call_setup;
  // Names the root in errors and logs (its --upstream URL).
  std::string upstream;
  VersionBoundPolicy versions;
  // Bounds the root's initial lists until their end bookmark, shared by
  // the readers of one upstream; null: a budget of its own with the
  // default bounds.
  std::shared_ptr<PendingListBudget> pending_lists;
};

class InformerdReader : public kube::UpstreamReader {
 public:
  // `resource` names the resource on the root (with its version).
  // REQUIRES: `sink` outlives the reader.
  InformerdReader(std::shared_ptr<grpc::Channel> channel, v1::ResourceName resource,
                  InformerdReaderOptions options, kube::ListWatchSink* sink);
  // Stop().
  ~InformerdReader() override;

  InformerdReader(const InformerdReader&) = delete;
  InformerdReader& operator=(const InformerdReader&) = delete;

  void Start() override;
  void Stop() override;
  bool synced() const override { return synced_.load(std::memory_order_acquire); }
  const kube::ReflectorStats& stats() const override { return stats_; }

 private:
  // How a Watch ended; decides what the loop does next.
  enum class WatchEnd {
    kResume,  // resume from last_version_ (after a backoff when `failure` is set)
    kRelist,  // get the state again, at once
    kFailed,  // back off, then do what was being done again
  };

  void Run();
  // One Watch, read until it ends. With `initial_events`, its initial
  // events are a list for the sink.
  WatchEnd WatchOnce(bool initial_events, absl::Status* failure);
  // Sleeps for the backoff; false if stopping.
  bool WaitBeforeRetry(const absl::Status& failure);
  bool stopping() const { return thread_.stopping(); }
  std::string What() const;

  const std::unique_ptr<v1::Cache::Stub> stub_;
  const v1::ResourceName resource_;
  const InformerdReaderOptions options_;

  kube::ReflectorStats stats_;
  std::atomic<bool> synced_{false};
  // Touched only by the reading thread.
  retry::Backoff backoff_;
  UpstreamEvents events_;

  absl::Mutex call_mu_;
  // The call in progress, cancelled by Stop.
  grpc::ClientContext* call_ ABSL_GUARDED_BY(call_mu_) = nullptr;
  kube::ReaderThread thread_;
};

}  // namespace informerd::tier

#endif  // INFORMERD_SERVER_TIER_INFORMERD_READER_H_
