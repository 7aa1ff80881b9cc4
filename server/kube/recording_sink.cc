#include "server/kube/recording_sink.h"

#include <algorithm>
#include <utility>

namespace informerd::kube {

void RecordingSink::OnListStart() { Record("start"); }

void RecordingSink::OnListItem(rapidjson::Value& object) {
  Record("item " + describe_(object));
}

void RecordingSink::OnListEnd(std::string_view resource_version) {
  Record("end " + std::string(resource_version));
}

void RecordingSink::OnWatchEvent(WatchEventType type, rapidjson::Value& object) {
  static constexpr const char* kNames[] = {"added", "modified", "deleted"};
  Record(std::string(kNames[static_cast<int>(type)]) + " " + describe_(object));
}

void RecordingSink::OnBookmark(std::string_view resource_version) {
  Record("bookmark " + std::string(resource_version));
}

bool RecordingSink::WaitFor(const std::string& line, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto seen = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return std::find(lines_.begin(), lines_.end(), line) != lines_.end();
  };
  return mu_.AwaitWithTimeout(absl::Condition(&seen), timeout);
}

std::vector<std::string> RecordingSink::lines() const {
  absl::MutexLock lock(&mu_);
  return lines_;
}

void RecordingSink::Record(std::string line) {
  absl::MutexLock lock(&mu_);
  lines_.push_back(std::move(line));
}

}  // namespace informerd::kube
