#include "server/tier/informerd_reader.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/kube/resource_name.h"
#include "server/log/log.h"
#include "server/service/grpc_status.h"

namespace informerd::tier {
namespace {

constexpr std::string_view kComponent = "upstream";

std::string What(const v1::ResourceName& resource, const std::string& upstream) {
  return absl::StrCat("watch ", kube::KubectlName(resource.group(), resource.resource()),
                      " on the upstream informerd", upstream.empty() ? "" : " ", upstream);
}

// When a message arrived, for VersionBound: monotonic, so that a step of the
// wall clock neither allows nor refuses more.
absl::Time MonotonicNow() {
  return absl::UnixEpoch() +
         absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

}  // namespace

InformerdReader::InformerdReader(std::shared_ptr<grpc::Channel> channel,
                                 v1::ResourceName resource, InformerdReaderOptions options,
                                 kube::ListWatchSink* sink)
    : stub_(v1::Cache::NewStub(std::move(channel))),
      resource_(std::move(resource)),
      options_(std::move(options)),
      backoff_(options_.backoff),
      events_(tier::What(resource_, options_.upstream), sink, &stats_, options_.versions,
              options_.pending_lists) {}

InformerdReader::~InformerdReader() { Stop(); }

void InformerdReader::Start() {
  thread_.Start([this] { Run(); });
}

void InformerdReader::Stop() {
  thread_.Stop([this] {
    absl::MutexLock lock(&call_mu_);
    if (call_ != nullptr) call_->TryCancel();
  });
}

std::string InformerdReader::What() const { return tier::What(resource_, options_.upstream); }

void InformerdReader::Run() {
  bool need_list = true;
  while (!stopping()) {
    absl::Status failure;
    const uint64_t lists = stats_.lists.load();
    const WatchEnd end = WatchOnce(need_list, &failure);
    // The state is complete once its end bookmark came; a Watch that broke
    // before it gets the state again.
    if (need_list && stats_.lists.load() > lists) need_list = false;
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
  request.set_resource_version(events_.last_version());
  {
    // Checked under call_mu_, so that Stop either is seen here or cancels
    // this call.
    absl::MutexLock lock(&call_mu_);
    if (stopping()) return WatchEnd::kFailed;
    call_ = &context;
  }
  stats_.watches.fetch_add(1);
  // Until the end bookmark comes, the state is still to get.
  events_.StartWatch(initial_events);
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> stream = stub_->Watch(&context, request);
  v1::WatchEvent event;
  absl::Status handled;
  bool relist = false;
  uint64_t messages = 0;
  while (stream->Read(&event)) {
    backoff_.Reset();
    ++messages;
    handled = events_.Handle(&event, MonotonicNow(), &relist);
    if (events_.synced()) synced_.store(true, std::memory_order_release);
    if (!handled.ok() || relist) {
      context.TryCancel();
      break;
    }
  }
  const grpc::Status status = stream->Finish();
  {
    absl::MutexLock lock(&call_mu_);
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
    // The root's history no longer holds the last version (as the apiserver's
    // 410): the state again, by diff.
    stats_.expired_410.fetch_add(1);
    log::Info(kComponent, absl::StrCat(What(), ": ", status.error_message(),
                                       "; getting the state again"));
    return WatchEnd::kRelist;
  }
  if (status.ok()) {
    // The root does not end watches on its own; a stream that ends at once
    // is not hammered.
    if (messages == 0 || events_.awaiting_initial_events_end()) {
      stats_.transport_errors.fetch_add(1);
      *failure = absl::UnavailableError(absl::StrCat(What(), ": the stream ended"));
    }
    return events_.awaiting_initial_events_end() ? WatchEnd::kFailed : WatchEnd::kResume;
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
  return events_.awaiting_initial_events_end() ? WatchEnd::kFailed : WatchEnd::kResume;
}

bool InformerdReader::WaitBeforeRetry(const absl::Status& failure) {
  if (stopping()) return false;
  return thread_.WaitBeforeRetry(kComponent, std::string(failure.message()),
                                 backoff_.NextDelay());
}

}  // namespace informerd::tier
