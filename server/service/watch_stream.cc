#include "server/service/watch_stream.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/service/grpc_status.h"
#include "server/service/wire_format.h"

namespace informerd::service {

void WatchStream::WakeHandle::Wake() {
  absl::MutexLock lock(&mu_);
  if (stream_ != nullptr) stream_->Pump();
}

void WatchStream::WakeHandle::Rechecked(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  if (stream_ != nullptr) stream_->OnRechecked(status);
}

void WatchStream::WakeHandle::Started(absl::StatusOr<WatchStart> start) {
  absl::MutexLock lock(&mu_);
  if (stream_ != nullptr) stream_->OnStarted(std::move(start));
}

void WatchStream::WakeHandle::Detach() {
  absl::MutexLock lock(&mu_);
  stream_ = nullptr;
}

bool WatchStream::WakeHandle::attached() {
  absl::MutexLock lock(&mu_);
  return stream_ != nullptr;
}

WatchStream::WatchStream(informer::Informer* informer, std::string resource_name,
                         cache::Filter filter, WatchStreamOptions options,
                         std::optional<WatchStart> start, metrics::Metrics* metrics,
                         WatchRegistry* registry, limits::ConcurrencyLimiter::Permit permit)
    : informer_(informer),
      resource_name_(std::move(resource_name)),
      filter_(std::move(filter)),
      options_(options),
      metrics_(metrics),
      registry_(registry),
      dispatched_(metrics->EventsDispatched(resource_name_)),
      wake_handle_(std::make_shared<WakeHandle>(this)),
      permit_(std::move(permit)),
      started_(start.has_value()),
      position_(start.has_value() ? start->position : 0),
      initial_(start.has_value() ? std::move(start->initial_objects)
                                 : std::vector<cache::ObjectPtr>()),
      initial_end_pending_(start.has_value() && start->send_initial_events),
      initial_version_(start.has_value() ? start->initial_version : 0),
      initial_charge_(start.has_value() ? std::move(start->initial_charge) : nullptr),
      started_at_(absl::Now()),
      last_write_(absl::Now()),
      next_recheck_(absl::Now() + options_.recheck_interval) {
  metrics_->WatchersOpen(resource_name_).Increment();
}

void WatchStream::Begin() {
  registry_->Add(this);
  Pump();
}

std::function<void(absl::StatusOr<WatchStart>)> WatchStream::Starter() {
  return [handle = wake_handle_](absl::StatusOr<WatchStart> start) {
    handle->Started(std::move(start));
  };
}

std::function<bool()> WatchStream::StillWaiting() {
  return [handle = wake_handle_] { return handle->attached(); };
}

void WatchStream::OnStarted(absl::StatusOr<WatchStart> start) {
  absl::MutexLock lock(&mu_);
  if (finished_ || started_) return;
  if (!start.ok()) {
    FinishLocked(ToGrpc(start.status()), "not_started");
    return;
  }
  started_ = true;
  position_ = start->position;
  initial_ = std::move(start->initial_objects);
  initial_end_pending_ = start->send_initial_events;
  initial_version_ = start->initial_version;
  initial_charge_ = std::move(start->initial_charge);
  late_permit_ = std::move(start->late_permit);
  started_at_ = absl::Now();
  PumpLocked();
}

void WatchStream::Pump() {
  absl::MutexLock lock(&mu_);
  PumpLocked();
}

void WatchStream::PumpLocked() {
  if (finished_ || !started_) return;
  if (!sent_initial_metadata_) {
    // The headers tell the client the Watch is admitted and positioned
    // before any event comes (the HTTP API answers its 200 then).
    sent_initial_metadata_ = true;
    // gRPC sends (empty) headers with a refusal too; this one says the
    // stream began.
    if (context_ != nullptr) context_->AddInitialMetadata(kWatchStartedHeader, "true");
    StartSendInitialMetadata();
  }
  MaybeRecheckLocked();
  if (write_in_flight_) return;
  if (initial_sent_ < initial_.size()) {
    const cache::Object& object = *initial_[initial_sent_];
    ++initial_sent_;
    Write(WatchEventBuffer(cache::EventType::kAdded, object, object.resource_version_number(),
                           false, options_.form));
    if (initial_sent_ == initial_.size()) {
      initial_.clear();
      initial_.shrink_to_fit();
      initial_sent_ = 0;
      initial_charge_.reset();
    }
    return;
  }
  if (initial_end_pending_) {
    initial_end_pending_ = false;
    sent_version_ = initial_version_;
    Write(BookmarkBuffer(initial_version_, /*initial_events_end=*/true));
    return;
  }
  cache::Event event;
  uint64_t version = 0;
  while (true) {
    switch (informer_->Read(position_, &event, &version, wake_handle_)) {
      case informer::Informer::ReadResult::kTooOld:
        FinishLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                  absl::StrCat("watcher fell behind the event history; resume "
                                               "from resource_version ",
                                               sent_version_, " or relist")),
                     "fell_behind");
        return;
      case informer::Informer::ReadResult::kCaughtUp:
        if (options_.allow_bookmarks && version > sent_version_ &&
            absl::Now() - last_write_ >= options_.bookmark_interval) {
          sent_version_ = version;
          Write(BookmarkBuffer(version, false));
        }
        return;
      case informer::Informer::ReadResult::kEvent:
        break;
    }
    ++position_;
    std::optional<cache::EventType> type = filter_.TypeFor(event);
    if (!type.has_value()) continue;
    // A watcher that stops matching sees the object as it last matched,
    // stamped with this event's version (as the apiserver does).
    const cache::Object& object =
        *type == cache::EventType::kDeleted && event.type == cache::EventType::kModified
            ? event.previous_as_deleted->Get()
            : *event.object;
    sent_version_ = event.resume_version;
    metrics_->ObserveDispatchLatency(absl::ToDoubleSeconds(absl::Now() - event.time));
    dispatched_.Increment();
    Write(WatchEventBuffer(*type, object, event.resume_version, event.final_state_unknown,
                           options_.form));
    return;
  }
}

void WatchStream::MaybeRecheckLocked() {
  if (!options_.recheck || recheck_pending_ || absl::Now() < next_recheck_) return;
  recheck_pending_ = options_.review_workers->SubmitRecheck(
      [handle = wake_handle_, recheck = options_.recheck] { handle->Rechecked(recheck()); });
  if (!recheck_pending_) {
    metrics_->RequestRejected("WatchRecheck", "queue_full");
    RecheckFailedLocked(absl::UnavailableError("the review workers are stopping"));
  }
}

void WatchStream::OnRechecked(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  recheck_pending_ = false;
  if (status.code() == absl::StatusCode::kPermissionDenied ||
      status.code() == absl::StatusCode::kUnauthenticated) {
    FinishLocked(ToGrpc(status), "unauthorized");
    return;
  }
  if (!status.ok()) {
    RecheckFailedLocked(status);
    return;
  }
  recheck_failing_since_ = absl::InfiniteFuture();
  next_recheck_ = absl::Now() + options_.recheck_interval;
}

void WatchStream::RecheckFailedLocked(const absl::Status& status) {
  absl::Time now = absl::Now();
  if (recheck_failing_since_ == absl::InfiniteFuture()) recheck_failing_since_ = now;
  if (now - recheck_failing_since_ > options_.recheck_grace) {
    FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                              absl::StrCat("this watch could not be authorized again for ",
                                           absl::FormatDuration(options_.recheck_grace),
                                           " (", status.message(), "); resume later")),
                 "recheck_failed");
    return;
  }
  // The authority being briefly unreachable does not end a stream it
  // authorized: tried again a second later, until the grace runs out.
  next_recheck_ = now + absl::Seconds(1);
}

void WatchStream::Write(grpc::ByteBuffer buffer) {
  write_in_flight_ = true;
  last_write_ = absl::Now();
  // gRPC reads the buffer until OnWriteDone.
  in_flight_buffer_ = std::move(buffer);
  StartWrite(&in_flight_buffer_);
}

void WatchStream::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  write_in_flight_ = false;
  if (!ok) {
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"), "client");
    return;
  }
  PumpLocked();
}

void WatchStream::OnCancel() {
  absl::MutexLock lock(&mu_);
  FinishLocked(grpc::Status::CANCELLED, "client");
}

void WatchStream::End(const grpc::Status& status, const std::string& reason) {
  absl::MutexLock lock(&mu_);
  FinishLocked(status, reason);
}

void WatchStream::EndIfStalled(absl::Time now, const StallLimits& limits) {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    std::string why;
    if (limits.write_wait > absl::ZeroDuration() && write_in_flight_ &&
        now - last_write_ >= limits.write_wait) {
      why = absl::StrCat("the client has not read this watch for ",
                         absl::FormatDuration(limits.write_wait));
    } else if (limits.initial_events > absl::ZeroDuration() && started_ &&
               initial_sent_ < initial_.size() && now - started_at_ >= limits.initial_events) {
      why = absl::StrCat("the client read ", initial_sent_, " of ", initial_.size(),
                         " initial events in ", absl::FormatDuration(limits.initial_events),
                         " (limit initialEventsSeconds)");
    } else {
      return;
    }
    metrics_->RequestRejected("Watch", "stalled");
    FinishLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                              absl::StrCat(why, "; resume from resource_version ", sent_version_)),
                 "stalled");
  }
  // gRPC runs the reactions this causes (OnCancel, OnDone) on its own
  // threads, never inside TryCancel, as it does for Finish.
  if (context_ != nullptr) context_->TryCancel();
}

void WatchStream::FinishLocked(const grpc::Status& status, const std::string& reason) {
  if (finished_) return;
  finished_ = true;
  metrics_->WatcherTerminated(resource_name_, reason);
  Finish(status);
}

void WatchStream::OnDone() {
  wake_handle_->Detach();
  registry_->Remove(this);
  metrics_->WatchersOpen(resource_name_).Decrement();
  delete this;
}

WatchRegistry::WatchRegistry(StallLimits limits) : limits_(limits) {
  if (limits_.write_wait > absl::ZeroDuration() || limits_.initial_events > absl::ZeroDuration()) {
    sweeper_ = std::thread([this] { SweepStalled(); });
  }
}

WatchRegistry::~WatchRegistry() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (sweeper_.joinable()) sweeper_.join();
}

void WatchRegistry::SweepStalled() {
  absl::MutexLock lock(&mu_);
  while (true) {
    auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
    if (mu_.AwaitWithTimeout(absl::Condition(&stopping), absl::Seconds(1))) return;
    // As in EndAll: ending a stream does not call back into the registry.
    absl::Time now = absl::Now();
    for (WatchStream* stream : streams_) stream->EndIfStalled(now, limits_);
  }
}

void WatchRegistry::Add(WatchStream* stream) {
  grpc::Status status;
  {
    absl::MutexLock lock(&mu_);
    if (!ended_) {
      streams_.push_back(stream);
      return;
    }
    status = end_status_;
  }
  stream->End(status, "shutdown");
}

void WatchRegistry::Remove(WatchStream* stream) {
  absl::MutexLock lock(&mu_);
  streams_.erase(std::remove(streams_.begin(), streams_.end(), stream), streams_.end());
}

void WatchRegistry::EndAll(const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  ended_ = true;
  end_status_ = status;
  // End does not call back into the registry (Remove runs from OnDone, on a
  // gRPC thread, after Finish completes), so holding the lock is safe.
  for (WatchStream* stream : streams_) stream->End(status, "shutdown");
}

size_t WatchRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return streams_.size();
}

}  // namespace informerd::service
