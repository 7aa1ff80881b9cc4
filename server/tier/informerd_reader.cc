#include "server/tier/informerd_reader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"
#include "server/kube/resource_name.h"
#include "server/log/log.h"
#include "server/service/grpc_status.h"

namespace informerd::tier {
namespace {

constexpr std::string_view kComponent = "upstream";

std::string_view ObjectName(const rapidjson::Value& object) {
  return json::MetadataString(object, "name");
}

}  // namespace

InformerdReader::InformerdReader(std::shared_ptr<grpc::Channel> channel,
                                 v1::ResourceName resource, InformerdReaderOptions options,
                                 kube::ListWatchSink* sink)
    : stub_(v1::Cache::NewStub(std::move(channel))),
      resource_(std::move(resource)),
      options_(std::move(options)),
      sink_(sink),
      backoff_(options_.backoff) {}

InformerdReader::~InformerdReader() { Stop(); }

void InformerdReader::Start() {
  thread_ = std::thread([this] { Run(); });
}

void InformerdReader::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (call_ != nullptr) call_->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
}

bool InformerdReader::stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

std::string InformerdReader::What() const {
  return absl::StrCat("watch ", kube::KubectlName(resource_.group(), resource_.resource()),
                      " on the upstream informerd");
}

void InformerdReader::Run() {
  bool need_list = true;
  while (!stopping()) {
    absl::Status failure;
    const WatchEnd end = WatchOnce(need_list, &failure);
    // The state is complete once its end bookmark came; a Watch that broke
    // before it gets the state again.
    if (need_list && !awaiting_initial_events_end_) need_list = false;
    awaiting_initial_events_end_ = false;
    switch (end) {
      case WatchEnd::kRelist:
        stats_.relists.fetch_add(1);
        need_list = true;
        break;
      case WatchEnd::kResume:
        if (!failure.ok() && !WaitBeforeRetry(failure)) return;
        break;
      case WatchEnd::kFailed:
        if (!WaitBeforeRetry(failure)) return;
        break;
    }
  }
}

InformerdReader::WatchEnd InformerdReader::WatchOnce(bool initial_events,
                                                     absl::Status* failure) {
  // Until the end bookmark comes, the state is still to get.
  awaiting_initial_events_end_ = initial_events;
  grpc::ClientContext context;
  if (options_.call_setup) {
    if (absl::Status status = options_.call_setup(&context); !status.ok()) {
      *failure = absl::Status(status.code(), absl::StrCat(What(), ": ", status.message()));
      return WatchEnd::kFailed;
    }
  }
  v1::WatchRequest request;
  *request.mutable_resource() = resource_;
  request.set_namespace_(options_.namespace_);
  request.set_label_selector(options_.label_selector);
  request.set_field_selector(options_.field_selector);
  request.set_allow_bookmarks(true);
  // The state again is "not older than" what the sink already has, so a
  // root that has just restarted and is still catching up (its first list
  // may come from the apiserver's watch cache) never takes the leaf back
  // in time, which would cut the leaf's watchers: the root waits until it
  // gets there (or answers UNAVAILABLE, retried).
  request.set_send_initial_events(initial_events);
  request.set_resource_version(last_version_);
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return WatchEnd::kFailed;
    call_ = &context;
  }
  stats_.watches.fetch_add(1);
  if (initial_events) sink_->OnListStart();
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> stream = stub_->Watch(&context, request);
  v1::WatchEvent event;
  absl::Status handled;
  bool relist = false;
  uint64_t messages = 0;
  while (stream->Read(&event)) {
    ++messages;
    handled = HandleEvent(&event, &relist);
    if (!handled.ok() || relist) {
      context.TryCancel();
      break;
    }
  }
  const grpc::Status status = stream->Finish();
  {
    absl::MutexLock lock(&mu_);
    call_ = nullptr;
  }
  if (relist) return WatchEnd::kRelist;
  if (!handled.ok()) {
    stats_.decode_errors.fetch_add(1);
    *failure = handled;
    return WatchEnd::kFailed;
  }
  if (stopping()) return WatchEnd::kFailed;
  if (status.error_code() == grpc::StatusCode::OUT_OF_RANGE && !initial_events) {
    // The root's history no longer holds last_version_ (as the apiserver's
    // 410): the state again, by diff.
    stats_.expired_410.fetch_add(1);
    log::Info(kComponent, absl::StrCat(What(), ": ", status.error_message(),
                                       "; getting the state again"));
    return WatchEnd::kRelist;
  }
  if (status.ok()) {
    // The root does not end watches on its own; a stream that ends at once
    // is not hammered.
    if (messages == 0 || awaiting_initial_events_end_) {
      stats_.transport_errors.fetch_add(1);
      *failure = absl::UnavailableError(absl::StrCat(What(), ": the stream ended"));
    }
    return awaiting_initial_events_end_ ? WatchEnd::kFailed : WatchEnd::kResume;
  }
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      stats_.transport_errors.fetch_add(1);
      break;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      stats_.throttled.fetch_add(1);
      break;
    default:
      stats_.http_errors.fetch_add(1);
      break;
  }
  *failure = service::FromGrpc(status, What());
  return awaiting_initial_events_end_ ? WatchEnd::kFailed : WatchEnd::kResume;
}

absl::Status InformerdReader::HandleEvent(v1::WatchEvent* event, bool* relist) {
  if (event->type() == v1::WatchEvent::BOOKMARK) {
    const std::string& version = event->resource_version();
    if (version.empty()) {
      return absl::DataLossError(absl::StrCat(What(), ": a bookmark without resource_version"));
    }
    if (awaiting_initial_events_end_) {
      if (!event->initial_events_end()) return absl::OkStatus();
      awaiting_initial_events_end_ = false;
      last_version_ = version;
      stats_.lists.fetch_add(1);
      stats_.streamed_lists.fetch_add(1);
      sink_->OnListEnd(last_version_);
      synced_.store(true, std::memory_order_release);
      return absl::OkStatus();
    }
    last_version_ = version;
    stats_.bookmarks.fetch_add(1);
    sink_->OnBookmark(last_version_);
    return absl::OkStatus();
  }

  kube::WatchEventType type;
  switch (event->type()) {
    case v1::WatchEvent::ADDED:
      type = kube::WatchEventType::kAdded;
      break;
    case v1::WatchEvent::MODIFIED:
      type = kube::WatchEventType::kModified;
      break;
    case v1::WatchEvent::DELETED:
      type = kube::WatchEventType::kDeleted;
      break;
    default:
      log::Warning(kComponent, absl::StrCat(What(), ": skipping an event of unknown type ",
                                            static_cast<int>(event->type())));
      return absl::OkStatus();
  }
  if (awaiting_initial_events_end_ && type != kube::WatchEventType::kAdded) {
    return absl::DataLossError(
        absl::StrCat(What(), ": a non-ADDED event before the initial-events-end bookmark"));
  }
  // Events of the root's relist batch: all but the last carry the version
  // before the batch, and its deletes may not be final states. The state
  // again gives the leaf the same result by its own diff.
  if (!awaiting_initial_events_end_ &&
      (event->final_state_unknown() ||
       event->resource_version() != event->object().resource_version())) {
    log::Info(kComponent, absl::StrCat(What(), ": the upstream relisted (an event at ",
                                       event->resource_version(), " for an object at ",
                                       event->object().resource_version(),
                                       "); getting the state again"));
    *relist = true;
    return absl::OkStatus();
  }
  // In situ: the message's own buffer is parsed once, as the Reflector's
  // frames are. std::string keeps its bytes NUL-terminated.
  std::string* json = event->mutable_object()->mutable_json();
  rapidjson::Document object;
  if (absl::Status parsed = json::ParseInsitu(json->data(), &object);
      !parsed.ok() || !object.IsObject()) {
    return absl::DataLossError(absl::StrCat(What(), ": an event's object is not a JSON object",
                                            parsed.ok() ? "" : absl::StrCat(" (", parsed.message(), ")")));
  }
  if (ObjectName(object).empty()) {
    stats_.rejected_objects.fetch_add(1);
    log::Warning(kComponent,
                 absl::StrCat(What(), ": skipping an event object without metadata.name"));
    return absl::OkStatus();
  }
  if (awaiting_initial_events_end_) {
    sink_->OnListItem(object);
    return absl::OkStatus();
  }
  if (!event->resource_version().empty()) last_version_ = event->resource_version();
  stats_.events.fetch_add(1);
  sink_->OnWatchEvent(type, object);
  return absl::OkStatus();
}

bool InformerdReader::WaitBeforeRetry(const absl::Status& failure) {
  if (stopping()) return false;
  const absl::Duration delay = backoff_.NextDelay();
  log::Warning(kComponent, absl::StrCat(failure.message(), "; retrying in ",
                                        absl::FormatDuration(delay)));
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&stopping_), delay);
  return !stopping_;
}

}  // namespace informerd::tier
