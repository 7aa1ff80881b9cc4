// RecordingSink: a ListWatchSink for tests that records every call as a
// line: "start", "item OBJECT", "end VERSION", "added|modified|deleted
// OBJECT", "bookmark VERSION", each OBJECT as the test describes it.
//
// Thread safety: thread-safe.
#ifndef INFORMERD_SERVER_KUBE_RECORDING_SINK_H_
#define INFORMERD_SERVER_KUBE_RECORDING_SINK_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "rapidjson/document.h"
#include "server/kube/list_watch_sink.h"

namespace informerd::kube {

class RecordingSink : public ListWatchSink {
 public:
  using Describe = std::function<std::string(const rapidjson::Value& object)>;

  explicit RecordingSink(Describe describe) : describe_(std::move(describe)) {}

  void OnListStart() override;
  void OnListItem(rapidjson::Value& object) override;
  void OnListEnd(std::string_view resource_version) override;
  void OnWatchEvent(WatchEventType type, rapidjson::Value& object) override;
  void OnBookmark(std::string_view resource_version) override;

  // Waits up to `timeout` until `line` has been recorded.
  bool WaitFor(const std::string& line, absl::Duration timeout = absl::Seconds(10));

  std::vector<std::string> lines() const;

 private:
  void Record(std::string line);

  const Describe describe_;
  mutable absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_RECORDING_SINK_H_
