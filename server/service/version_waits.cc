#include "server/service/version_waits.h"

#include <atomic>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace informerd::service {

bool Reached(const informer::Informer& informer, uint64_t version) {
  return informer.synced() && informer.resource_version() >= version;
}

absl::Status NotReached(const informer::Informer& informer, const std::string& name,
                        uint64_t version) {
  if (!informer.synced()) {
    return absl::UnavailableError(absl::StrCat(name, " is not synced yet"));
  }
  uint64_t current = informer.resource_version();
  // The wait can end just as the cache gets there.
  uint64_t behind = version > current ? version - current : 0;
  return absl::UnavailableError(absl::StrCat("too large resource version: ", version,
                                             ", current: ", current, " (the cache is ", behind,
                                             " versions behind; retry)"));
}

struct VersionWaits::Pending {
  informer::Informer* informer = nullptr;
  std::function<void(bool)> done;
  // Claimed by whichever of reached, deadline or destruction comes first.
  std::atomic<bool> fired{false};
  // Set once NotifyAtVersion returned; 0 when it called back at once.
  std::atomic<uint64_t> notification{0};

  bool Claim() { return !fired.exchange(true); }
  // REQUIRES: Claim() returned true. Runs done and drops it, so what it
  // holds (the read's waiting permit) is released with the answer, not at
  // the deadline, when the entry leaves by_deadline_.
  void Finish(bool reached) {
    std::function<void(bool)> run = std::move(done);
    done = nullptr;
    run(reached);
  }
};

VersionWaits::VersionWaits() : timer_([this] { TimerLoop(); }) {}

VersionWaits::~VersionWaits() {
  std::multimap<absl::Time, std::shared_ptr<Pending>> left;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    left.swap(by_deadline_);
  }
  timer_.join();
  for (auto& [deadline, pending] : left) {
    if (!pending->Claim()) continue;
    if (uint64_t id = pending->notification.load(); id != 0) {
      pending->informer->CancelVersionNotification(id);
    }
    pending->Finish(false);
  }
}

void VersionWaits::Wait(informer::Informer* informer, uint64_t version, absl::Time deadline,
                        std::function<void(bool)> done) {
  auto pending = std::make_shared<Pending>();
  pending->informer = informer;
  pending->done = std::move(done);
  {
    absl::MutexLock lock(&mu_);
    by_deadline_.emplace(deadline, pending);
  }
  uint64_t id = informer->NotifyAtVersion(version, [pending] {
    if (pending->Claim()) pending->Finish(true);
  });
  pending->notification.store(id);
  // Reached before the id was stored, and the timer fired in between: the
  // timer could not cancel what it did not know, so it is cancelled here.
  if (id != 0 && pending->fired.load()) informer->CancelVersionNotification(id);
}

size_t VersionWaits::pending() const {
  absl::MutexLock lock(&mu_);
  return by_deadline_.size();
}

void VersionWaits::TimerLoop() {
  while (true) {
    std::vector<std::shared_ptr<Pending>> due;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      absl::Time now = absl::Now();
      // Entries their informer answered leave here too, at their deadline
      // at the latest: the map holds at most the reads admitted within one
      // wait.
      while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
        due.push_back(std::move(by_deadline_.begin()->second));
        by_deadline_.erase(by_deadline_.begin());
      }
      if (due.empty()) {
        absl::Time next =
            by_deadline_.empty() ? now + absl::Seconds(1) : by_deadline_.begin()->first;
        auto wake = [this, next]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stopping_ || (!by_deadline_.empty() && by_deadline_.begin()->first < next);
        };
        mu_.AwaitWithDeadline(absl::Condition(&wake), next);
        continue;
      }
    }
    for (const std::shared_ptr<Pending>& pending : due) {
      if (!pending->Claim()) continue;
      if (uint64_t id = pending->notification.load(); id != 0) {
        pending->informer->CancelVersionNotification(id);
      }
      pending->Finish(false);
    }
  }
}

}  // namespace informerd::service
