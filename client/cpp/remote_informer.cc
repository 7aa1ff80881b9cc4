#include "client/cpp/remote_informer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/cpp/relist_diff.h"

namespace informerd {
namespace client {

namespace {

using informerd::v1::WatchEvent;

// The version an event brings the watcher to. Bookmarks carry it in both
// places; prefer the event's own field.
const std::string& EventVersion(const WatchEvent& event) {
  if (!event.resource_version().empty()) return event.resource_version();
  return event.object().resource_version();
}

bool RequiresRelist(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::OUT_OF_RANGE ||
         status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
}

}  // namespace

RemoteInformer::RemoteInformer(std::shared_ptr<grpc::Channel> channel,
                               ConnectionOptions connection,
                               RemoteInformerOptions options)
    : channel_(std::move(channel)),
      stub_(informerd::v1::Cache::NewStub(channel_)),
      connection_(std::move(connection)),
      options_(std::move(options)),
      processor_(&cache_, options_.handler_queue_limit) {}

RemoteInformer::~RemoteInformer() { Stop(); }

HandlerRegistration* RemoteInformer::AddEventHandler(EventHandler* handler) {
  return processor_.AddHandler(handler, options_.default_resync_period);
}

HandlerRegistration* RemoteInformer::AddEventHandler(
    EventHandler* handler, absl::Duration resync_period) {
  return processor_.AddHandler(handler, resync_period);
}

absl::Status RemoteInformer::RemoveEventHandler(
    HandlerRegistration* registration) {
  return processor_.RemoveHandler(registration);
}

absl::Status RemoteInformer::AddIndex(const std::string& index_name,
                                      IndexFunc index_func) {
  return cache_.AddIndex(index_name, std::move(index_func));
}

void RemoteInformer::Start() { thread_ = std::thread([this] { Run(); }); }

void RemoteInformer::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (active_context_ != nullptr) active_context_->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
  processor_.Stop();
}

bool RemoteInformer::HasSynced() const {
  absl::MutexLock lock(&mu_);
  return synced_;
}

bool RemoteInformer::WaitForSync(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&synced_), timeout);
}

absl::Status RemoteInformer::LastError() const {
  absl::MutexLock lock(&mu_);
  return last_error_;
}

void RemoteInformer::Run() {
  retry::BackoffPolicy policy;
  policy.initial = options_.initial_backoff;
  policy.cap = options_.max_backoff;
  retry::Backoff backoff(policy);
  bool relist = true;
  std::string resume_version;
  while (true) {
    const bool was_relist = relist;
    grpc::Status status = WatchOnce(&relist, &resume_version, &backoff);
    // Without a resume point, a watch "from now" would miss events.
    if (RequiresRelist(status) || resume_version.empty()) relist = true;
    {
      absl::MutexLock lock(&mu_);
      if (!status.ok() && !stopping_) {
        last_error_ = absl::Status(
            static_cast<absl::StatusCode>(status.error_code()),
            absl::StrCat("informerd at ",
                         connection_.address.empty() ? "(address not given)"
                                                     : connection_.address,
                         ": watch ", options_.resource.resource(), ": ",
                         status.error_message()));
      }
    }
    // A resume point the server no longer has is answered by relisting at
    // once; only a relist that fails again waits, so a server that keeps
    // refusing is not hammered.
    if (RequiresRelist(status) && !was_relist) {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      continue;
    }
    // A server that answered (the channel is connected) gets the whole
    // delay, so that one refusing is not hammered; an unreachable one is
    // retried as soon as the channel reconnects.
    const bool connected = channel_->GetState(/*try_to_connect=*/false) ==
                           GRPC_CHANNEL_READY;
    if (!(connected ? SleepUnlessStopped(backoff.NextDelay())
                    : SleepUntilConnectedUnlessStopped(backoff.NextDelay()))) {
      return;
    }
  }
}

grpc::Status RemoteInformer::WatchOnce(bool* relist,
                                       std::string* resume_version,
                                       retry::Backoff* backoff) {
  grpc::ClientContext context;
  absl::Status prepared =
      PrepareContext(connection_, &context, /*streaming=*/true);
  if (!prepared.ok()) {
    return grpc::Status(static_cast<grpc::StatusCode>(prepared.code()),
                        std::string(prepared.message()));
  }
  // Not wait_for_ready: a server that cannot be reached (refused, not
  // gRPC, TLS failure) fails the call with the reason, which LastError()
  // reports; the retry below (at most max_backoff apart) and the channel's
  // reconnect backoff (capped at 1s, see Connect) still find a restarted
  // server within about a second.
  if (!BeginCall(&context)) return grpc::Status::CANCELLED;

  informerd::v1::WatchRequest request;
  *request.mutable_resource() = options_.resource;
  request.set_namespace_(options_.watch_namespace);
  request.set_label_selector(options_.label_selector);
  request.set_field_selector(options_.field_selector);
  request.set_allow_bookmarks(true);
  if (*relist) {
    request.set_send_initial_events(true);
  } else {
    request.set_resource_version(*resume_version);
  }

  std::unique_ptr<grpc::ClientReader<WatchEvent>> reader =
      stub_->Watch(&context, request);
  bool collecting_initial_events = *relist;
  std::vector<informerd::v1::Object> initial_objects;
  WatchEvent event;
  while (reader->Read(&event)) {
    backoff->Reset();
    if (options_.transform.apply && event.has_object() &&
        event.type() != WatchEvent::BOOKMARK) {
      options_.transform.apply(event.mutable_object());
    }
    if (!collecting_initial_events) {
      ApplyLiveEvent(event);
      if (!EventVersion(event).empty()) *resume_version = EventVersion(event);
      continue;
    }
    // Until initial_events_end, versions are not resume points: a stream cut
    // here must list again. Other event types cannot occur before the end.
    if (event.type() == WatchEvent::ADDED) {
      initial_objects.push_back(std::move(*event.mutable_object()));
    } else if (event.type() == WatchEvent::BOOKMARK &&
               event.initial_events_end()) {
      ApplyListing(std::move(initial_objects));
      initial_objects.clear();
      collecting_initial_events = false;
      *relist = false;
      *resume_version = EventVersion(event);
      processor_.MarkSynced();
      absl::MutexLock lock(&mu_);
      synced_ = true;
    }
  }
  grpc::Status status = reader->Finish();
  EndCall();
  return status;
}

bool RemoteInformer::BeginCall(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  active_context_ = context;
  return true;
}

void RemoteInformer::EndCall() {
  absl::MutexLock lock(&mu_);
  active_context_ = nullptr;
}

void RemoteInformer::ApplyListing(std::vector<informerd::v1::Object> listed) {
  for (CacheChange& change : DiffRelist(cache_.All(), std::move(listed))) {
    switch (change.type) {
      case CacheChange::Type::kAdd:
      case CacheChange::Type::kUpdate:
        processor_.Upsert(std::move(change.new_object));
        break;
      case CacheChange::Type::kDelete:
        processor_.Remove(change.old_object->object,
                          /*final_state_unknown=*/true);
        break;
    }
  }
}

void RemoteInformer::ApplyLiveEvent(const WatchEvent& event) {
  switch (event.type()) {
    case WatchEvent::ADDED:
    case WatchEvent::MODIFIED:
      // An ADDED for a known key is an update, so a resumed stream that
      // repeats what the cache already holds changes nothing.
      processor_.Upsert(event.object());
      break;
    case WatchEvent::DELETED:
      // Unknown keys were never announced, so there is nothing to retract.
      processor_.Remove(event.object(), event.final_state_unknown());
      break;
    default:
      break;
  }
}

bool RemoteInformer::SleepUntilConnectedUnlessStopped(absl::Duration delay) {
  // Slices bound how long Stop() waits for this thread.
  constexpr absl::Duration kSlice = absl::Milliseconds(100);
  const absl::Time end = absl::Now() + delay;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return false;
    }
    const absl::Time now = absl::Now();
    if (now >= end) return true;
    if (channel_->WaitForConnected(
            absl::ToChronoTime(std::min(end, now + kSlice)))) {
      return true;
    }
  }
}

bool RemoteInformer::SleepUnlessStopped(absl::Duration delay) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&stopping_), delay);
  return !stopping_;
}

}  // namespace client
}  // namespace informerd
