#include "server/service/history_backfill.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/cache/object.h"
#include "server/cache/resource_version.h"
#include "server/kube/list_watch_sink.h"
#include "server/kube/resource_name.h"
#include "server/log/log.h"

namespace informerd::service {
namespace {

constexpr std::string_view kComponent = "backfill";

// How often a run looks up from its wait for a 410, a stop or callers
// that went away.
constexpr absl::Duration kPoll = absl::Milliseconds(100);

std::string_view StringMember(const rapidjson::Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return std::string_view(it->value.GetString(), it->value.GetStringLength());
}

// Feeds a run's temporary Informer with only the listed objects that
// changed after the list's version: one the served Informer holds at the
// same resourceVersion has had no event since, so the run needs no
// previous object for it. Everything else passes through. Called on the
// run's Reflector thread; the counts are read after the Reflector stopped.
class ChangedOnly final : public kube::ListWatchSink {
 public:
  ChangedOnly(informer::Informer* past, const informer::Informer* served)
      : past_(past), served_(served) {}

  void OnListStart() override {
    kept_ = skipped_ = 0;
    past_->OnListStart();
  }
  void OnListItem(rapidjson::Value& object) override {
    if (Unchanged(object)) {
      ++skipped_;
      return;
    }
    ++kept_;
    past_->OnListItem(object);
  }
  void OnListEnd(std::string_view resource_version) override {
    past_->OnListEnd(resource_version);
  }
  void OnWatchEvent(kube::WatchEventType type, rapidjson::Value& object) override {
    past_->OnWatchEvent(type, object);
  }
  void OnBookmark(std::string_view resource_version) override {
    past_->OnBookmark(resource_version);
  }

  uint64_t kept() const { return kept_; }
  uint64_t skipped() const { return skipped_; }

 private:
  // Anything malformed counts as changed: the Informer rejects it itself.
  bool Unchanged(const rapidjson::Value& object) const {
    if (!object.IsObject()) return false;
    auto metadata = object.FindMember("metadata");
    if (metadata == object.MemberEnd() || !metadata->value.IsObject()) return false;
    const std::string_view name = StringMember(metadata->value, "name");
    std::optional<uint64_t> version =
        cache::ParseResourceVersion(StringMember(metadata->value, "resourceVersion"));
    if (name.empty() || !version.has_value()) return false;
    cache::ObjectPtr served =
        served_->Get(cache::ObjectKey(StringMember(metadata->value, "namespace"), name)).first;
    return served != nullptr && served->resource_version_number() == *version;
  }

  informer::Informer* const past_;
  const informer::Informer* const served_;
  uint64_t kept_ = 0;
  uint64_t skipped_ = 0;
};

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

size_t HistoryBackfill::pending() const {
  absl::MutexLock lock(&mu_);
  return waiting_.size();
}

HistoryBackfill::Stats HistoryBackfill::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

absl::Status HistoryBackfill::RefusalLocked(uint64_t version, uint64_t oldest,
                                            absl::Time now) const {
  if (stopping_) return absl::UnavailableError("informerd is stopping");
  if (version <= refused_through_) {
    return absl::OutOfRangeError(absl::StrCat("too old resource version: ", version,
                                              " (the API server no longer has ",
                                              refused_through_, ")"));
  }
  // Joins the run that is gathering, or the running one when it covers it.
  if (phase_ == Phase::kGathering || (phase_ == Phase::kRunning && version >= run_from_)) {
    return absl::OkStatus();
  }
  if (answered_from_ != 0 && version >= answered_from_) {
    return absl::OutOfRangeError(absl::StrCat(
        "too old resource version: ", version, " (", oldest,
        "; the history from ", answered_from_, " was fetched from the API server once",
        last_outcome_.ok() ? " and has been evicted since"
                           : absl::StrCat(" and that failed: ", last_outcome_.message()),
        ")"));
  }
  if (phase_ == Phase::kRunning || now < last_start_ + options_.window) {
    return absl::OutOfRangeError(absl::StrCat(
        "too old resource version: ", version, " (", oldest,
        "; informerd fetches older history from the API server at most once every ",
        absl::FormatDuration(options_.window), ")"));
  }
  return absl::OkStatus();
}

void HistoryBackfill::Request(uint64_t version, std::function<void(absl::Status)> done,
                              std::function<bool()> wanted) {
  const uint64_t oldest = target_->stats().oldest_resource_version;
  if (oldest <= version) {
    done(absl::OkStatus());
    return;
  }
  absl::Status refusal;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    refusal = RefusalLocked(version, oldest, now);
    if (refusal.ok()) {
      if (phase_ == Phase::kIdle) {
        phase_ = Phase::kGathering;
        run_from_ = version;
      } else if (phase_ == Phase::kGathering) {
        run_from_ = std::min(run_from_, version);
      }
      if (phase_ == Phase::kGathering) last_join_ = now;
      waiting_.push_back(Waiting{version, std::move(done), std::move(wanted)});
      if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
      return;
    }
    if (absl::IsOutOfRange(refusal)) ++stats_.refused;
  }
  done(std::move(refusal));
}

bool HistoryBackfill::AbandonedLocked() {
  waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(),
                                [](const Waiting& waiting) {
                                  return waiting.wanted != nullptr && !waiting.wanted();
                                }),
                 waiting_.end());
  return waiting_.empty();
}

void HistoryBackfill::Loop() {
  while (true) {
    uint64_t from = 0;
    {
      absl::MutexLock lock(&mu_);
      auto work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || phase_ == Phase::kGathering;
      };
      mu_.Await(absl::Condition(&work));
      if (stopping_) return;
      const absl::Time latest = absl::Now() + options_.max_gather;
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
      while (!stopping_) {
        const absl::Time until = std::min(last_join_ + options_.gather, latest);
        if (absl::Now() >= until) break;
        mu_.AwaitWithDeadline(absl::Condition(&stopped), until);
      }
      if (stopping_) return;
      if (AbandonedLocked()) {
        // Nobody waits any more: nothing was asked upstream, nothing spent.
        phase_ = Phase::kIdle;
        continue;
      }
      phase_ = Phase::kRunning;
      from = run_from_;
      last_start_ = absl::Now();
      ++stats_.runs;
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
      phase_ = Phase::kIdle;
      if (absl::IsCancelled(status)) {
        ++stats_.abandoned;
      } else {
        answered_from_ = answered_from_ == 0 ? from : std::min(answered_from_, from);
        last_outcome_ = status;
        if (!status.ok() && !absl::IsOutOfRange(status)) ++stats_.failures;
      }
      if (absl::IsOutOfRange(status)) refused_through_ = std::max(refused_through_, from);
      // Every request waiting now asked for `from` or later (joining a
      // running run needs that), so this run answers them all.
      for (Waiting& waiting : waiting_) {
        absl::Status answer;
        if (waiting.version >= oldest) {
          answer = absl::OkStatus();
        } else if (status.ok()) {
          // Evicted again since the run put it in.
          answer = absl::OutOfRangeError(
              absl::StrCat("too old resource version: ", waiting.version, " (", oldest, ")"));
        } else if (absl::IsCancelled(status)) {
          // Joined just after everyone else left: nothing was remembered,
          // so a retry is answered by the policy afresh.
          answer = absl::UnavailableError(absl::StrCat(
              "the backfill from version ", from, " stopped; resume again"));
        } else {
          answer = status;
        }
        answers.emplace_back(std::move(waiting.done), std::move(answer));
      }
      waiting_.clear();
    }
    for (auto& [done, answer] : answers) done(std::move(answer));
  }
}

absl::Status HistoryBackfill::Run(uint64_t from) {
  informer::Informer past(informer_options_);
  ChangedOnly changed(&past, target_);
  kube::ReflectorOptions options = reflector_options_;
  options.streaming_list = false;
  options.list_exact_version = std::to_string(from);
  options.min_watch_timeout = options_.watch_timeout;
  options.max_watch_timeout = options_.watch_timeout;
  // The served state the skipped objects were compared with is at this
  // version or later, so they are known unchanged through it, and the run
  // may only hand over events up to it.
  const uint64_t compared_at = target_->resource_version();
  kube::Reflector reflector(client_, info_, options, &changed);
  reflector.Start();
  const absl::Time deadline = absl::Now() + options_.run_timeout;
  absl::Status status;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) {
        status = absl::UnavailableError("informerd is stopping");
        break;
      }
      if (AbandonedLocked()) {
        status = absl::CancelledError("every caller waiting for the backfill went away");
        break;
      }
    }
    if (reflector.stats().expired_410.load() > 0) {
      status = absl::OutOfRangeError(absl::StrCat("too old resource version: ", from,
                                                  " (the API server no longer has it)"));
      break;
    }
    // The served history's oldest version, which the run must reach; it
    // moves on as the served history evicts.
    const uint64_t through = target_->stats().oldest_resource_version;
    if (through > compared_at) {
      status = absl::UnavailableError(absl::StrCat(
          "the served history moved past version ", compared_at,
          " while the backfill from ", from, " ran"));
      break;
    }
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
  {
    absl::MutexLock lock(&mu_);
    stats_.last_run_kept = changed.kept();
    stats_.last_run_skipped = changed.skipped();
  }
  return status;
}

}  // namespace informerd::service
