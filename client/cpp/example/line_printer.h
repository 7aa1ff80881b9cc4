// LinePrinter: the EventHandler of the uniform example informer. It turns
// each handler call into one line, so a test harness can replay them:
//
//   SYNCED                     once, after the initial listing
//   ADD key rv
//   UPDATE key oldrv newrv
//   DELETE key rv [final-state-unknown]
//   CACHE key rv               the whole cache, sorted, from PrintCache
//
// Each event line, and SYNCED, may carry a prefix: the example's second
// handler, added after SYNCED, prints "LATE ADD ...", "LATE SYNCED" etc.
//
// key is "namespace/name", or "name" for a cluster-scoped object.
//
// SYNCED must separate the initial adds from live events. has_synced is the
// handler's registration's HasSynced(), which turns true on the handler's
// own thread right after its last initial add; so a handler call that sees
// it true is live and prints SYNCED first, and the owner calls
// AnnounceSynced() for the case where no live event comes.
//
// Thread-safe: lines never interleave.

#ifndef INFORMERD_CLIENT_CPP_EXAMPLE_LINE_PRINTER_H_
#define INFORMERD_CLIENT_CPP_EXAMPLE_LINE_PRINTER_H_

#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "client/cpp/event_handler.h"
#include "client/cpp/local_cache.h"

namespace informerd {
namespace example {

class LinePrinter : public client::EventHandler {
 public:
  // emit writes one line; it gets the line without its newline.
  using Emit = std::function<void(const std::string& line)>;

  LinePrinter(std::function<bool()> has_synced, Emit emit);
  // Every line but CACHE lines starts with prefix (e.g. "LATE ").
  LinePrinter(std::string prefix, std::function<bool()> has_synced, Emit emit);

  void OnAdd(const informerd::v1::Object& obj) override;
  void OnUpdate(const informerd::v1::Object& old_obj,
                const informerd::v1::Object& new_obj) override;
  void OnDelete(const informerd::v1::Object& obj,
                bool final_state_unknown) override;

  // Prints SYNCED unless it was printed already.
  void AnnounceSynced();

  // REQUIRES: no handler call runs or will run (the informer is stopped).
  void PrintCache(const client::LocalCache& cache);

 private:
  void EmitEventLine(const std::string& line);
  void AnnounceSyncedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string prefix_;
  const std::function<bool()> has_synced_;
  const Emit emit_;

  absl::Mutex mu_;
  bool synced_announced_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace example
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_EXAMPLE_LINE_PRINTER_H_
