#include "server/service/history_backfill.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/kube/resource_name.h"
#include "server/log/log.h"

namespace informerd::service {
namespace {

constexpr std::string_view kComponent = "backfill";

// How often a run looks up from its wait for a 410 or a stop.
constexpr absl::Duration kPoll = absl::Milliseconds(100);

}  // namespace

HistoryBackfill::HistoryBackfill(kube::RestClient* client, kube::ResourceInfo info,
                                 kube::ReflectorOptions reflector,
                                 informer::InformerOptions informer,
                                 informer::Informer* target, HistoryBackfillOptions options)
    : client_(client),
      info_(std::move(info)),
      reflector_options_(std::move(reflector)),
      informer_options_(std::move(informer)),
      target_(target),
      options_(options) {}

HistoryBackfill::~HistoryBackfill() {
  std::thread thread;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
  std::vector<Waiting> orphans;
  {
    absl::MutexLock lock(&mu_);
    orphans.swap(waiting_);
  }
  for (Waiting& waiting : orphans) waiting.done(absl::UnavailableError("informerd is stopping"));
}

bool HistoryBackfill::stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

size_t HistoryBackfill::pending() const {
  absl::MutexLock lock(&mu_);
  return waiting_.size();
}

uint64_t HistoryBackfill::runs() const {
  absl::MutexLock lock(&mu_);
  return runs_;
}

uint64_t HistoryBackfill::failures() const {
  absl::MutexLock lock(&mu_);
  return failures_;
}

void HistoryBackfill::Request(uint64_t version, std::function<void(absl::Status)> done) {
  if (target_->stats().oldest_resource_version <= version) {
    done(absl::OkStatus());
    return;
  }
  absl::Status answer;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      answer = absl::UnavailableError("informerd is stopping");
    } else if (version <= refused_through_) {
      answer = absl::OutOfRangeError(absl::StrCat(
          "too old resource version: ", version, " (the API server no longer has ",
          refused_through_, ")"));
    } else {
      waiting_.push_back(Waiting{version, std::move(done)});
      if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
      return;
    }
  }
  done(std::move(answer));
}

void HistoryBackfill::Loop() {
  while (true) {
    uint64_t from = 0;
    {
      absl::MutexLock lock(&mu_);
      auto work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !waiting_.empty();
      };
      mu_.Await(absl::Condition(&work));
      if (stopping_) return;
      from = waiting_.front().version;
      for (const Waiting& waiting : waiting_) from = std::min(from, waiting.version);
      ++runs_;
    }
    const absl::Status status = Run(from);
    if (!status.ok()) {
      log::Warning(kComponent, absl::StrCat(kube::KubectlName(info_.group, info_.resource),
                                            ": no history from version ", from, ": ",
                                            status.ToString()));
    }
    const uint64_t oldest = target_->stats().oldest_resource_version;
    std::vector<std::pair<std::function<void(absl::Status)>, absl::Status>> answers;
    {
      absl::MutexLock lock(&mu_);
      if (absl::IsOutOfRange(status)) {
        refused_through_ = std::max(refused_through_, from);
      } else if (!status.ok()) {
        ++failures_;
      }
      for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->version >= oldest) {
          answers.emplace_back(std::move(it->done), absl::OkStatus());
        } else if (it->version >= from) {
          // Covered by this run, which failed, or whose events have been
          // evicted again since.
          answers.emplace_back(std::move(it->done),
                               status.ok() ? absl::OutOfRangeError(absl::StrCat(
                                                 "too old resource version: ", it->version,
                                                 " (", oldest, ")"))
                                           : status);
        } else {
          ++it;  // asked for during the run, older than it reached: the next run
          continue;
        }
        it = waiting_.erase(it);
      }
    }
    for (auto& [done, answer] : answers) done(std::move(answer));
  }
}

absl::Status HistoryBackfill::Run(uint64_t from) {
  informer::Informer past(informer_options_);
  kube::ReflectorOptions options = reflector_options_;
  options.streaming_list = false;
  options.list_exact_version = std::to_string(from);
  options.min_watch_timeout = options_.watch_timeout;
  options.max_watch_timeout = options_.watch_timeout;
  kube::Reflector reflector(client_, info_, options, &past);
  reflector.Start();
  const absl::Time deadline = absl::Now() + options_.run_timeout;
  absl::Status status;
  while (true) {
    if (stopping()) {
      status = absl::UnavailableError("informerd is stopping");
      break;
    }
    if (reflector.stats().expired_410.load() > 0) {
      status = absl::OutOfRangeError(absl::StrCat("too old resource version: ", from,
                                                  " (the API server no longer has it)"));
      break;
    }
    // The served history's oldest version, which the run must reach; it
    // moves on as the served history evicts.
    const uint64_t through = target_->stats().oldest_resource_version;
    if (past.synced() && past.resource_version() >= through) {
      absl::StatusOr<std::vector<cache::Event>> events = past.EventsBetween(from, through);
      status = events.ok() ? target_->PrependHistory(*std::move(events), from, through)
                           : absl::UnavailableError(events.status().message());
      break;
    }
    if (absl::Now() >= deadline) {
      status = absl::UnavailableError(absl::StrCat(
          "the history since version ", from, " did not arrive within ",
          absl::FormatDuration(options_.run_timeout), " (reached ", past.resource_version(),
          " of ", through, ")"));
      break;
    }
    past.WaitForVersion(through, kPoll);
  }
  reflector.Stop();
  return status;
}

}  // namespace informerd::service
