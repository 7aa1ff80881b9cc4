// KeyQueue: the keys a controller still has to reconcile, as client-go's
// workqueue in its simplest form: a key queued again before a worker took
// it is queued once, and a key being reconciled that is queued again is
// handed out again only after Done(key), so one key is never reconciled by
// two workers at once.
//
// Thread-safe.

#ifndef INFORMERD_CLIENT_CPP_EXAMPLE_CONTROLLER_KEY_QUEUE_H_
#define INFORMERD_CLIENT_CPP_EXAMPLE_CONTROLLER_KEY_QUEUE_H_

#include <deque>
#include <optional>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace informerd {
namespace example {

class KeyQueue {
 public:
  void Add(const std::string& key);

  // The next key, waiting for one; nullopt once ShutDown() was called.
  // REQUIRES: Done(key) once the key is reconciled.
  std::optional<std::string> Get();
  void Done(const std::string& key);

  // Wakes every Get() with nullopt; later Adds are ignored.
  void ShutDown();

 private:
  absl::Mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> queued_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> processing_ ABSL_GUARDED_BY(mu_);
  // Queued again while processing: re-queued by Done.
  std::set<std::string> dirty_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace example
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_EXAMPLE_CONTROLLER_KEY_QUEUE_H_
