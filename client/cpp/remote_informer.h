// RemoteInformer: a client-go style informer fed by an informerd server
// instead of the kube-apiserver. It keeps a LocalCache of one resource in
// sync and tells EventHandlers about every change.
//
// Protocol. The first stream is a Watch with send_initial_events: the
// initial ADDED events are collected until the BOOKMARK with
// initial_events_end, reconciled against the cache (see DiffRelist), and then
// HasSynced() becomes true. After a broken stream the informer resumes from
// the last resource_version it saw; if the server answers OUT_OF_RANGE or
// RESOURCE_EXHAUSTED it lists again at once, the same way, and reports only
// the differences, with vanished objects as deletes with final_state_unknown.
// While the server is unreachable each attempt fails at once with the reason
// (refused, not gRPC, TLS), which LastError() reports, and the next one
// starts as soon as the channel connects again.
// Errors are retried after a jittered backoff (RemoteInformerOptions; reset
// whenever an event arrives), for as long as the informer runs.
//
// Handlers (see SharedProcessor) can be added and removed at any time, each
// with its own resync period; each runs on its own thread with its own
// queue, so a slow handler delays neither the others nor the reading of the
// stream (see processor_listener.h for the queue's bound). A handler added
// to a running informer is first given every cached object as an add.
// Objects pass through options.transform before they are stored.
//
// Thread safety: Start and Stop are for the owner; every other method may
// be called from any thread, handlers included (except as noted).

#ifndef INFORMERD_CLIENT_CPP_REMOTE_INFORMER_H_
#define INFORMERD_CLIENT_CPP_REMOTE_INFORMER_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/cpp/connection.h"
#include "client/cpp/event_handler.h"
#include "client/cpp/handler_registration.h"
#include "client/cpp/local_cache.h"
#include "client/cpp/shared_processor.h"
#include "client/cpp/transform.h"
#include "informerd/v1/informerd.grpc.pb.h"
#include "retry/backoff.h"

namespace informerd {
namespace client {

// What a RemoteInformer watches, and how it retries.
struct RemoteInformerOptions {
  // Required: resource.resource names the resource (see ResourceName).
  informerd::v1::ResourceName resource;
  // Empty: all namespaces.
  std::string watch_namespace;
  // The server's syntax (see ListRequest); evaluated by the server.
  std::string label_selector;
  std::string field_selector;
  // The delay before retrying a failed stream starts here and doubles up to
  // max_backoff. The cap is short so that an informer is caught up soon
  // after a restarted server is ready again; a retry costs one refused
  // connection (Connect caps the channel's own reconnect backoff alike).
  absl::Duration initial_backoff = absl::Milliseconds(200);
  absl::Duration max_backoff = absl::Seconds(1);
  // Applied to every object before it is stored (see transform.h).
  ObjectTransform transform;
  // The resync period of handlers added without one. Zero: no resync.
  absl::Duration default_resync_period = absl::ZeroDuration();
  // Changes queued per handler before its queue collapses into a snapshot
  // (see processor_listener.h). 1024 absorbs a burst (a relist's diff, a
  // rollout) in full detail, while a handler that cannot keep up costs at
  // most 1024 queued changes and the object versions only they still hold.
  size_t handler_queue_limit = 1024;
};

class RemoteInformer {
 public:
  // REQUIRES: absl::ZeroDuration() < options.initial_backoff <=
  // options.max_backoff.
  RemoteInformer(std::shared_ptr<grpc::Channel> channel,
                 ConnectionOptions connection, RemoteInformerOptions options);
  RemoteInformer(const RemoteInformer&) = delete;
  RemoteInformer& operator=(const RemoteInformer&) = delete;

  // Stops the informer.
  ~RemoteInformer();

  // Registers handler, at any time, with options.default_resync_period or
  // resync_period (zero: none). It is first given every cached object as an
  // add, then every later change, in order, on a thread of its own.
  // REQUIRES: handler outlives its registration.
  HandlerRegistration* AddEventHandler(EventHandler* handler);
  HandlerRegistration* AddEventHandler(EventHandler* handler,
                                       absl::Duration resync_period);

  // Unregisters; when it returns, the handler is not running and never
  // will again. NOT_FOUND if registration is not this informer's.
  // REQUIRES: not called from that handler.
  absl::Status RemoveEventHandler(HandlerRegistration* registration);

  // Adds a custom index to the cache (see LocalCache::AddIndex); read it
  // with Lister().ByIndex and Lister().IndexKeys.
  absl::Status AddIndex(const std::string& index_name, IndexFunc index_func);

  // Starts the informer's thread.
  // REQUIRES: called at most once.
  void Start();

  // Cancels the stream, waits until the informer's thread has finished,
  // then stops every handler: what they have queued is dropped, and Stop
  // returns when no handler runs. Idempotent.
  // REQUIRES: not called from a handler, nor concurrently with itself.
  void Stop();

  // True once the first listing is in the cache; stays true across relists.
  // Handlers run on their own threads, so a handler may not have been given
  // that listing yet: its registration's HasSynced() says when it has.
  bool HasSynced() const;

  // Waits until HasSynced() or timeout; returns HasSynced().
  bool WaitForSync(absl::Duration timeout) const;

  const RemoteInformerOptions& options() const { return options_; }

  // The cache, for reads. Valid as long as this informer.
  const LocalCache& Lister() const { return cache_; }

  // Why the last stream ended, if it ended with an error; OK otherwise. The
  // code is the stream's; the message reads "informerd at ADDRESS: watch
  // RESOURCE: " and gRPC's reason (e.g. "... Connection refused", "resource
  // secrets is not served"). ADDRESS is the ConnectionOptions' address.
  absl::Status LastError() const;

 private:
  void Run();
  // Runs one Watch stream until it ends. Updates *relist and
  // *resume_version as the stream progresses.
  grpc::Status WatchOnce(bool* relist, std::string* resume_version,
                         retry::Backoff* backoff);
  // Registers the context so Stop() can cancel it; false if stopping.
  bool BeginCall(grpc::ClientContext* context);
  void EndCall();
  void ApplyListing(std::vector<informerd::v1::Object> listed);
  void ApplyLiveEvent(const informerd::v1::WatchEvent& event);
  // False if Stop() was called before the delay ran out.
  bool SleepUnlessStopped(absl::Duration delay);
  // As SleepUnlessStopped, but returns early once the channel connects, so
  // a server that was unreachable is used as soon as it accepts
  // connections (the stream does not wait for it: it fails with the
  // reason instead).
  bool SleepUntilConnectedUnlessStopped(absl::Duration delay);

  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<informerd::v1::Cache::Stub> stub_;
  const ConnectionOptions connection_;
  const RemoteInformerOptions options_;
  LocalCache cache_;
  // Writes cache_ for the informer's thread; declared after cache_.
  SharedProcessor processor_;
  std::thread thread_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ClientContext* active_context_ ABSL_GUARDED_BY(mu_) = nullptr;
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_REMOTE_INFORMER_H_
