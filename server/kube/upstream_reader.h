// UpstreamReader: what keeps one served resource's ListWatchSink in step
// with its upstream, whichever the upstream is.
//
// Two implementations: kube::Reflector (the kube-apiserver, by LIST and
// WATCH) and tier::InformerdReader (another informerd, by its v1 Watch).
// Both call the sink in the order list_watch_sink.h describes, from one
// thread of their own, and count what they do in ReflectorStats (the fields
// that do not apply to an upstream stay 0), so the served-resource assembly,
// the metrics and the tests handle either alike.
//
// Thread safety: Start and Stop may be called from any thread; synced() and
// stats() are thread-safe.
#ifndef INFORMERD_SERVER_KUBE_UPSTREAM_READER_H_
#define INFORMERD_SERVER_KUBE_UPSTREAM_READER_H_

#include <atomic>
#include <cstdint>

namespace informerd::kube {

// Counters for observability; each is monotonically increasing.
struct ReflectorStats {
  std::atomic<uint64_t> lists{0};          // full states completed, either way
  std::atomic<uint64_t> streamed_lists{0};  // of those, by streaming list
  std::atomic<uint64_t> streaming_list_refused{0};  // server refused it
  std::atomic<uint64_t> streaming_list_broken{0};   // broke before its end
  std::atomic<uint64_t> list_pages{0};     // pages received
  std::atomic<uint64_t> list_restarts{0};  // lists restarted (continue 410)
  std::atomic<uint64_t> watches{0};        // watch requests made
  std::atomic<uint64_t> relists{0};        // lists forced by an expired watch
  std::atomic<uint64_t> expired_410{0};    // "too old" answers, list or watch
  std::atomic<uint64_t> events{0};         // watch events delivered
  std::atomic<uint64_t> bookmarks{0};      // bookmarks delivered
  // Errors by kind; each one is followed by a backoff.
  std::atomic<uint64_t> transport_errors{0};  // connect/read failures
  std::atomic<uint64_t> http_errors{0};       // non-2xx other than 410, 429
  std::atomic<uint64_t> throttled{0};         // 429 Too Many Requests
  std::atomic<uint64_t> decode_errors{0};     // malformed or truncated JSON
  std::atomic<uint64_t> rejected_objects{0};  // objects without metadata
  // Initial lists dropped for passing their item or byte bound before
  // their end (a root informerd that never ends its list).
  std::atomic<uint64_t> lists_too_large{0};
};

class UpstreamReader {
 public:
  virtual ~UpstreamReader() = default;

  // Starts the reading thread. REQUIRES: called at most once.
  virtual void Start() = 0;

  // Interrupts any request or backoff and waits for the thread to exit. No
  // sink call happens after Stop returns. Idempotent.
  virtual void Stop() = 0;

  // True once the first full state has reached the sink.
  virtual bool synced() const = 0;

  virtual const ReflectorStats& stats() const = 0;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_UPSTREAM_READER_H_
