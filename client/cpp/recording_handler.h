// RecordingHandler: an EventHandler for tests that records each call as a
// line ("ADD key rv", "UPDATE key oldrv newrv", "DELETE key rv" with
// " final-state-unknown" when so) with the time it arrived, and lets a test
// wait for a condition on them without sleeping. An optional hook runs at
// the start of every call (to block or slow the handler).
//
// Thread-safe.

#ifndef INFORMERD_CLIENT_CPP_RECORDING_HANDLER_H_
#define INFORMERD_CLIENT_CPP_RECORDING_HANDLER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/cpp/event_handler.h"

namespace informerd {
namespace client {

class RecordingHandler : public EventHandler {
 public:
  struct Line {
    std::string text;
    absl::Time at;
  };

  // before_each runs at the start of every call, on the handler's thread.
  explicit RecordingHandler(std::function<void()> before_each = nullptr);

  void OnAdd(const informerd::v1::Object& obj) override;
  void OnUpdate(const informerd::v1::Object& old_obj,
                const informerd::v1::Object& new_obj) override;
  void OnDelete(const informerd::v1::Object& obj,
                bool final_state_unknown) override;

  std::vector<std::string> Texts() const;
  std::vector<Line> Lines() const;

  // Waits until done(texts) or timeout; returns done(texts).
  bool WaitUntil(const std::function<bool(const std::vector<std::string>&)>& done,
                 absl::Duration timeout) const;
  // Waits until at least n lines; returns whether there are.
  bool WaitForCount(size_t n, absl::Duration timeout) const;

 private:
  void Record(std::string text);

  const std::function<void()> before_each_;
  mutable absl::Mutex mu_;
  std::vector<Line> lines_ ABSL_GUARDED_BY(mu_);
};

// Replays lines into key -> rv, as the e2e harness does: "" when a line is
// inconsistent (ADD of a known key, UPDATE whose old rv is not the last one
// seen, DELETE of an unknown key), with the reason in *error.
std::map<std::string, std::string> ReplayLines(
    const std::vector<std::string>& lines, std::string* error);

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_RECORDING_HANDLER_H_
