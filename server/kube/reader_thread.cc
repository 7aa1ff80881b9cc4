#include "server/kube/reader_thread.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/log/log.h"

namespace informerd::kube {

void ReaderThread::Start(std::function<void()> loop) {
  thread_ = std::thread(std::move(loop));
}

void ReaderThread::Stop(const std::function<void()>& interrupt) {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  interrupt();
  if (thread_.joinable()) thread_.join();
}

bool ReaderThread::stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

bool ReaderThread::WaitBeforeRetry(std::string_view component, std::string_view reason,
                                   absl::Duration delay) {
  if (stopping()) return false;
  log::Warning(component, absl::StrCat(absl::string_view(reason.data(), reason.size()),
                                       "; retrying in ", absl::FormatDuration(delay)));
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&stopping_), delay);
  return !stopping_;
}

}  // namespace informerd::kube
