#include "client/cpp/recording_handler.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/cpp/local_cache.h"

namespace informerd {
namespace client {

namespace {

std::string KeyOf(const informerd::v1::Object& obj) {
  return ObjectKey(obj.namespace_(), obj.name());
}

}  // namespace

RecordingHandler::RecordingHandler(std::function<void()> before_each)
    : before_each_(std::move(before_each)) {}

void RecordingHandler::OnAdd(const informerd::v1::Object& obj) {
  if (before_each_) before_each_();
  Record(absl::StrCat("ADD ", KeyOf(obj), " ", obj.resource_version()));
}

void RecordingHandler::OnUpdate(const informerd::v1::Object& old_obj,
                                const informerd::v1::Object& new_obj) {
  if (before_each_) before_each_();
  Record(absl::StrCat("UPDATE ", KeyOf(new_obj), " ", old_obj.resource_version(),
                      " ", new_obj.resource_version()));
}

void RecordingHandler::OnDelete(const informerd::v1::Object& obj,
                                bool final_state_unknown) {
  if (before_each_) before_each_();
  Record(absl::StrCat("DELETE ", KeyOf(obj), " ", obj.resource_version(),
                      final_state_unknown ? " final-state-unknown" : ""));
}

void RecordingHandler::Record(std::string text) {
  absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  lines_.push_back({std::move(text), now});
}

std::vector<std::string> RecordingHandler::Texts() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> texts;
  for (const Line& line : lines_) texts.push_back(line.text);
  return texts;
}

std::vector<RecordingHandler::Line> RecordingHandler::Lines() const {
  absl::MutexLock lock(&mu_);
  return lines_;
}

bool RecordingHandler::WaitUntil(
    const std::function<bool(const std::vector<std::string>&)>& done,
    absl::Duration timeout) const {
  auto check = [this, &done]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<std::string> texts;
    for (const Line& line : lines_) texts.push_back(line.text);
    return done(texts);
  };
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&check), timeout);
}

bool RecordingHandler::WaitForCount(size_t n, absl::Duration timeout) const {
  return WaitUntil(
      [n](const std::vector<std::string>& texts) { return texts.size() >= n; },
      timeout);
}

std::map<std::string, std::string> ReplayLines(
    const std::vector<std::string>& lines, std::string* error) {
  std::map<std::string, std::string> state;
  for (const std::string& line : lines) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    if (f.size() < 3) {
      *error = absl::StrCat("malformed line: ", line);
      return {};
    }
    const std::string& key = f[1];
    auto known = state.find(key);
    if (f[0] == "ADD") {
      if (known != state.end()) {
        *error = absl::StrCat("ADD of a known key: ", line);
        return {};
      }
      state[key] = f[2];
    } else if (f[0] == "UPDATE" && f.size() == 4) {
      if (known == state.end() || known->second != f[2]) {
        *error = absl::StrCat("UPDATE whose old rv is not the last seen: ", line);
        return {};
      }
      known->second = f[3];
    } else if (f[0] == "DELETE") {
      if (known == state.end()) {
        *error = absl::StrCat("DELETE of an unknown key: ", line);
        return {};
      }
      state.erase(known);
    } else {
      *error = absl::StrCat("malformed line: ", line);
      return {};
    }
  }
  return state;
}

}  // namespace client
}  // namespace informerd
