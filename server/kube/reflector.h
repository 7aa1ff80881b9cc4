// Reflector: keeps a ListWatchSink in step with one resource on the API
// server, the way client-go's Reflector feeds an informer.
//
// It gets the resource's state by LIST, page by page (the first at
// resourceVersion=0, from the apiserver's watch cache), or, with
// streaming_list, by a streaming list (KEP-3157: a WATCH with
// sendInitialEvents=true whose initial ADDED events end with a bookmark
// annotated k8s.io/initial-events-end), which spares an apiserver that
// builds LIST responses whole (before 1.33) that cost; the caller chooses
// (see config::UpstreamList). Where the server refuses a streaming list
// (before 1.27, or with the WatchList feature off), it lists instead, as
// client-go's Reflector does, and keeps listing for the rest of its life. A streaming list that
// breaks before its end (the apiserver closes a watcher that reads its
// initial events slower than the resource changes, so on a big resource it
// may break every time) is followed by one paged LIST, as client-go falls
// back, so that a slow reader still makes progress. Then it watches from the
// state's resourceVersion, re-watching from the last version seen whenever a
// watch ends or breaks, and gets the state again only when the server says
// that version is too old (410). Failures are retried with backoff (retry::Backoff; ReflectorOptions::backoff), honouring
// Retry-After. Bad data from the server is logged and dropped: the sink only
// ever sees objects with metadata.name.
//
// Start() and Stop() may be called from any thread; the sink is called only
// from the Reflector's own thread. stats() and synced() are thread-safe.
#ifndef INFORMERD_SERVER_KUBE_REFLECTOR_H_
#define INFORMERD_SERVER_KUBE_REFLECTOR_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "rapidjson/document.h"
#include "retry/backoff.h"
#include "server/kube/api_status.h"
#include "server/kube/discovery.h"
#include "server/kube/list_watch_sink.h"
#include "server/kube/reader_thread.h"
#include "server/kube/rest_client.h"
#include "server/kube/upstream_reader.h"
#include "server/kube/watch_decoder.h"

namespace informerd::kube {

struct ReflectorOptions {
  std::string namespace_;  // empty = all namespaces
  std::string label_selector;  // passed upstream as labelSelector
  std::string field_selector;  // passed upstream as fieldSelector
  int page_size = 500;
  // Each watch asks the server to end it after a random time in this range,
  // so many informers do not reconnect in lockstep.
  absl::Duration min_watch_timeout = absl::Minutes(5);
  absl::Duration max_watch_timeout = absl::Minutes(10);
  // client-go's reflector delays: from [0.8 s, 1.6 s] doubling to
  // [30 s, 60 s], the base reset once two minutes pass without a failure.
  retry::BackoffPolicy backoff = [] {
    retry::BackoffPolicy policy;
    policy.initial = absl::Milliseconds(1600);
    policy.cap = absl::Seconds(60);
    policy.reset_after = absl::Minutes(2);
    return policy;
  }();
  size_t max_frame_bytes = WatchDecoder::kDefaultMaxFrameBytes;
  // Cut metadata.managedFields out of listed items before they are parsed,
  // for a sink that drops it anyway (see MemberCut: it is about half of a
  // typical object). Watch events keep it: cutting it from a frame takes a
  // scan of its own, which costs what the parse saves.
  bool cut_managed_fields_from_lists = false;
  // Try a streaming list before a paged LIST (see above). Off: LIST only.
  bool streaming_list = true;
  // Set: the first list is the state at exactly this resourceVersion
  // (resourceVersionMatch=Exact, paged, from etcd), and the watch goes on
  // from there; a history backfill reads the past this way. The server
  // answers 410 once the version is compacted away. Needs streaming_list
  // off.
  std::string list_exact_version;
};

class Reflector : public UpstreamReader {
 public:
  // REQUIRES: `client` and `sink` outlive the Reflector.
  Reflector(RestClient* client, ResourceInfo resource,
            ReflectorOptions options, ListWatchSink* sink);
  // Stops the loop if it is running.
  ~Reflector() override;

  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // Starts the list-and-watch thread. REQUIRES: called at most once.
  void Start() override;

  // Interrupts any request or backoff, waits for the thread to exit.
  // No sink call happens after Stop returns. Idempotent.
  void Stop() override;

  // True once the first list has reached the sink.
  bool synced() const override { return synced_.load(std::memory_order_acquire); }

  const ReflectorStats& stats() const override { return stats_; }

 private:
  // How a watch ended; decides what the loop does next.
  enum class WatchEnd { kRewatch, kRelist, kFailed, kStreamingListRefused };

  struct Failure {
    absl::Status status;
    absl::Duration retry_after;  // the server's minimum wait, if it said
  };

  void Run();
  // Lists every page and hands the result to the sink; on success the
  // watch resumes from last_resource_version_.
  bool ListAll(Failure* failure);
  // One watch request, consumed until it ends. With `initial_events`, a
  // streaming list: the initial events go to the sink as a list.
  WatchEnd WatchOnce(Failure* failure, bool initial_events);
  // Parses one watch frame and hands it to the sink. An ERROR event sets
  // *server_error to the server's Status and returns a non-OK status, which
  // ends the stream (the caller classifies *server_error).
  absl::Status HandleWatchFrame(std::string* frame, std::optional<ApiStatus>* server_error);
  // An event of a streaming list before its initial-events-end bookmark.
  absl::Status HandleInitialEvent(std::string_view type, rapidjson::Value& object,
                                  const std::string& what);
  // Classifies a non-2xx answer, counting it.
  Failure HttpFailure(int http_status, absl::Duration retry_after,
                      std::string_view body, std::string_view what);
  // Sleeps for the backoff (at least `retry_after`); false if stopping.
  bool WaitBeforeRetry(const Failure& failure);
  std::string Url(std::string_view extra_query) const;
  bool stopping() const { return thread_.stopping(); }

  RestClient* const client_;
  const ResourceInfo resource_;
  const ReflectorOptions options_;
  ListWatchSink* const sink_;

  ReflectorStats stats_;
  std::atomic<bool> synced_{false};
  retry::Backoff backoff_;
  // Touched only by the loop thread.
  std::string last_resource_version_;
  // A streaming list whose initial-events-end bookmark has not come yet.
  bool awaiting_initial_events_end_ = false;
  bool streaming_list_refused_ = false;
  // The last streaming list broke before its end: the next list is paged.
  bool page_next_list_ = false;
  absl::BitGen bit_gen_;

  StreamCanceller canceller_;
  ReaderThread thread_;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_REFLECTOR_H_
