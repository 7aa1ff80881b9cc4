#include "server/kube/reflector.h"

#include <algorithm>
#include <utility>

#include "absl/random/random.h"
#include "absl/time/clock.h"
#include "absl/strings/str_cat.h"
#include "server/json/json_parse.h"
#include "server/kube/api_status.h"
#include "server/kube/list_page_reader.h"
#include "server/log/log.h"
#include "server/kube/url_query.h"
#include "server/kube/resource_name.h"
#include "server/json/json_members.h"

namespace informerd::kube {
namespace {

// A watch that ends this quickly without a single event is treated as a
// failure, so a server that closes watches at once is not hammered.
constexpr absl::Duration kMinHealthyWatch = absl::Seconds(1);

using json::ObjectMember;
using json::StringMember;

std::string_view ObjectName(const rapidjson::Value& object) {
  return json::MetadataString(object, "name");
}

std::string_view ObjectResourceVersion(const rapidjson::Value& object) {
  return json::MetadataString(object, "resourceVersion");
}

// What marks the last initial event of a streaming list (KEP-3157).
constexpr char kInitialEventsEndAnnotation[] = "k8s.io/initial-events-end";


}  // namespace

Reflector::Reflector(RestClient* client, ResourceInfo resource,
                     ReflectorOptions options, ListWatchSink* sink)
    : client_(client),
      resource_(std::move(resource)),
      options_(std::move(options)),
      sink_(sink),
      backoff_(options_.backoff) {}

Reflector::~Reflector() { Stop(); }

void Reflector::Start() {
  thread_.Start([this] { Run(); });
}

void Reflector::Stop() {
  thread_.Stop([this] { canceller_.Cancel(); });
}

void Reflector::Run() {
  bool need_list = true;
  while (!stopping()) {
    Failure failure;
    const bool stream = need_list && options_.streaming_list && !streaming_list_refused_ &&
                        !page_next_list_;
    if (need_list && !stream) {
      if (!ListAll(&failure)) {
        if (!WaitBeforeRetry(failure)) return;
        continue;
      }
      need_list = false;
      page_next_list_ = false;
    }
    const WatchEnd end = WatchOnce(&failure, stream);
    // A streaming list that ended before its last initial event is followed
    // by a paged LIST; the sink discards the partial list at the next
    // OnListStart.
    if (stream && !awaiting_initial_events_end_) need_list = false;
    if (stream && awaiting_initial_events_end_ && end != WatchEnd::kStreamingListRefused &&
        !stopping()) {
      page_next_list_ = true;
      stats_.streaming_list_broken.fetch_add(1);
      log::Warning("reflector", absl::StrCat(
          "list ", KubectlName(resource_.group, resource_.resource),
          ": the streaming list failed before its end; the next list is paged"));
    }
    awaiting_initial_events_end_ = false;
    switch (end) {
      case WatchEnd::kRewatch:
        break;
      case WatchEnd::kRelist:
        stats_.relists.fetch_add(1);
        need_list = true;
        break;
      case WatchEnd::kStreamingListRefused:
        streaming_list_refused_ = true;
        stats_.streaming_list_refused.fetch_add(1);
        log::Info("reflector", absl::StrCat(
            "list ", KubectlName(resource_.group, resource_.resource), ": the server refuses streaming lists (",
            failure.status.message(), "); listing page by page from now on"));
        break;
      case WatchEnd::kFailed:
        if (!WaitBeforeRetry(failure)) return;
        break;
    }
  }
}

std::string Reflector::Url(std::string_view extra_query) const {
  std::string url = CollectionPath(resource_, options_.namespace_);
  url.push_back('?');
  url.append(extra_query);
  if (!options_.label_selector.empty()) {
    AppendQueryParam(&url, "labelSelector", options_.label_selector);
  }
  if (!options_.field_selector.empty()) {
    AppendQueryParam(&url, "fieldSelector", options_.field_selector);
  }
  return url;
}

Reflector::Failure Reflector::HttpFailure(int http_status,
                                          absl::Duration retry_after,
                                          std::string_view body,
                                          std::string_view what) {
  if (http_status == 429) {
    stats_.throttled.fetch_add(1);
  } else {
    stats_.http_errors.fetch_add(1);
  }
  return Failure{ToStatus(ApiStatusFromResponse(http_status, body), what),
                 retry_after};
}

bool Reflector::ListAll(Failure* failure) {
  const std::string what = absl::StrCat("list ", KubectlName(resource_.group, resource_.resource));
  std::string continue_token;
  while (true) {
    std::string url = Url(absl::StrCat("limit=", options_.page_size));
    if (!continue_token.empty()) {
      AppendQueryParam(&url, "continue", continue_token);
    } else if (!synced() && !options_.list_exact_version.empty()) {
      AppendQueryParam(&url, "resourceVersion", options_.list_exact_version);
      AppendQueryParam(&url, "resourceVersionMatch", "Exact");
    } else if (!synced()) {
      // As client-go: the first list may come from the apiserver's watch
      // cache (resourceVersion=0, served whole and fast); the watch that
      // follows brings the cache up to date. Relists stay consistent reads,
      // so the relist diff never goes back in time.
      AppendQueryParam(&url, "resourceVersion", "0");
    }
    // Items are parsed as they arrive, overlapping the transfer, and the
    // page is never held whole.
    ListPageReader reader(sink_, what, options_.max_frame_bytes,
                          options_.cut_managed_fields_from_lists);
    if (continue_token.empty()) sink_->OnListStart();
    absl::StatusOr<HttpResponse> response = client_->Stream(
        url, [&](std::string_view chunk) { return reader.Feed(chunk).ok(); }, &canceller_);
    stats_.rejected_objects.fetch_add(reader.rejected_objects());
    if (!response.ok()) {
      if (!stopping()) stats_.transport_errors.fetch_add(1);
      *failure = Failure{response.status(), absl::ZeroDuration()};
      return false;
    }
    if (response->status != 200) {
      const ApiStatus api =
          ApiStatusFromResponse(response->status, response->body);
      if (!continue_token.empty() && IsExpired(api)) {
        // The snapshot behind the continue token was compacted away.
        stats_.expired_410.fetch_add(1);
        stats_.list_restarts.fetch_add(1);
        log::Warning("reflector", absl::StrCat(what, ": continue token expired (",
                                api.message, "); listing again"));
        continue_token.clear();
        continue;
      }
      if (IsExpired(api)) {
        // The version asked for (list_exact_version) is compacted away.
        stats_.expired_410.fetch_add(1);
        *failure = Failure{ToStatus(api, what), response->retry_after};
        return false;
      }
      *failure = HttpFailure(response->status, response->retry_after,
                             response->body, what);
      return false;
    }
    stats_.list_pages.fetch_add(1);

    absl::StatusOr<ListPageReader::Page> page = reader.Finish();
    if (!page.ok()) {
      stats_.decode_errors.fetch_add(1);
      *failure = Failure{page.status(), absl::ZeroDuration()};
      return false;
    }
    continue_token = std::move(page->continue_token);
    if (continue_token.empty()) {
      last_resource_version_ = std::move(page->resource_version);
      stats_.lists.fetch_add(1);
      sink_->OnListEnd(last_resource_version_);
      synced_.store(true, std::memory_order_release);
      return true;
    }
  }
}

absl::Status Reflector::HandleWatchFrame(std::string* frame,
                                         std::optional<ApiStatus>* server_error) {
  const std::string what = absl::StrCat("watch ", KubectlName(resource_.group, resource_.resource));
  // In situ: twice as fast as Parse, which copies every string.
  rapidjson::Document event;
  if (absl::Status parsed = json::ParseInsitu(frame->data(), &event);
      !parsed.ok() || !event.IsObject()) {
    return absl::DataLossError(absl::StrCat(what, ": watch frame is not a JSON object",
                                            parsed.ok() ? "" : absl::StrCat(" (", parsed.message(), ")")));
  }
  const std::string_view type = StringMember(&event, "type");
  auto object = event.FindMember("object");
  if (type.empty() || object == event.MemberEnd() ||
      !object->value.IsObject()) {
    return absl::DataLossError(
        absl::StrCat(what, ": watch frame lacks type or object"));
  }

  if (type == "ERROR") {
    *server_error = ApiStatusFromJson(object->value);
    // Ends the stream: the server sends nothing useful after an ERROR.
    return absl::AbortedError(absl::StrCat(what, ": the server ended the watch with an error"));
  }

  const std::string_view resource_version =
      ObjectResourceVersion(object->value);
  if (awaiting_initial_events_end_) return HandleInitialEvent(type, object->value, what);
  if (type == "BOOKMARK") {
    if (resource_version.empty()) {
      stats_.rejected_objects.fetch_add(1);
      log::Warning("reflector", absl::StrCat(what, ": skipping a bookmark without "
                                    "metadata.resourceVersion"));
      return absl::OkStatus();
    }
    last_resource_version_ = std::string(resource_version);
    stats_.bookmarks.fetch_add(1);
    sink_->OnBookmark(last_resource_version_);
    return absl::OkStatus();
  }

  WatchEventType event_type;
  if (type == "ADDED") {
    event_type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    event_type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    event_type = WatchEventType::kDeleted;
  } else {
    log::Warning("reflector", absl::StrCat(what, ": skipping an event of unknown type \"",
                            std::string(type), "\""));
    return absl::OkStatus();
  }
  if (!resource_version.empty()) {
    last_resource_version_ = std::string(resource_version);
  }
  if (ObjectName(object->value).empty()) {
    stats_.rejected_objects.fetch_add(1);
    log::Warning("reflector", absl::StrCat(what, ": skipping an event object without "
                                  "metadata.name"));
    return absl::OkStatus();
  }
  stats_.events.fetch_add(1);
  if (log::Enabled(log::Level::kDebug)) {
    std::string_view ns = json::MetadataString(object->value, "namespace");
    log::Debug("reflector", absl::StrCat(what, ": ", std::string(type), " ", std::string(ns),
                                         ns.empty() ? "" : "/",
                                         std::string(ObjectName(object->value)), " at ",
                                         std::string(resource_version)));
  }
  sink_->OnWatchEvent(event_type, object->value);
  return absl::OkStatus();
}

absl::Status Reflector::HandleInitialEvent(std::string_view type, rapidjson::Value& object,
                                          const std::string& what) {
  if (type == "ADDED") {
    if (ObjectName(object).empty()) {
      stats_.rejected_objects.fetch_add(1);
      log::Warning("reflector", absl::StrCat(what, ": skipping an initial event without "
                                                   "metadata.name"));
      return absl::OkStatus();
    }
    sink_->OnListItem(object);
    return absl::OkStatus();
  }
  if (type == "BOOKMARK") {
    const rapidjson::Value* metadata = ObjectMember(object, "metadata");
    const rapidjson::Value* annotations =
        metadata == nullptr ? nullptr : ObjectMember(*metadata, "annotations");
    if (StringMember(annotations, kInitialEventsEndAnnotation) != "true") {
      return absl::OkStatus();  // progress only: the state is not complete yet
    }
    const std::string_view resource_version = ObjectResourceVersion(object);
    if (resource_version.empty()) {
      stats_.decode_errors.fetch_add(1);
      return absl::DataLossError(absl::StrCat(
          what, ": the initial-events-end bookmark has no metadata.resourceVersion"));
    }
    awaiting_initial_events_end_ = false;
    last_resource_version_ = std::string(resource_version);
    stats_.lists.fetch_add(1);
    stats_.streamed_lists.fetch_add(1);
    sink_->OnListEnd(last_resource_version_);
    synced_.store(true, std::memory_order_release);
    return absl::OkStatus();
  }
  stats_.decode_errors.fetch_add(1);
  return absl::DataLossError(absl::StrCat(what, ": a ", std::string(type),
                                          " event before the initial-events-end bookmark"));
}

Reflector::WatchEnd Reflector::WatchOnce(Failure* failure, bool initial_events) {
  const std::string what = absl::StrCat("watch ", KubectlName(resource_.group, resource_.resource));
  const int64_t min_seconds = absl::ToInt64Seconds(options_.min_watch_timeout);
  const int64_t max_seconds = std::max(
      min_seconds, absl::ToInt64Seconds(options_.max_watch_timeout));
  const int64_t timeout_seconds =
      absl::Uniform<int64_t>(absl::IntervalClosedClosed, bit_gen_,
                             min_seconds, max_seconds);
  std::string url = Url("watch=1");
  if (initial_events) {
    // The state as of now (a consistent read, as client-go's WatchList
    // asks after a 410), then the events after it.
    AppendQueryParam(&url, "sendInitialEvents", "true");
    AppendQueryParam(&url, "resourceVersionMatch", "NotOlderThan");
    AppendQueryParam(&url, "resourceVersion", "");
    awaiting_initial_events_end_ = true;
    sink_->OnListStart();
  } else {
    AppendQueryParam(&url, "resourceVersion", last_resource_version_);
  }
  AppendQueryParam(&url, "allowWatchBookmarks", "true");
  AppendQueryParam(&url, "timeoutSeconds", absl::StrCat(timeout_seconds));
  stats_.watches.fetch_add(1);

  WatchDecoder decoder(options_.max_frame_bytes);
  absl::Status frame_status;
  std::optional<ApiStatus> server_error;
  uint64_t frames = 0;
  const absl::Time start = absl::Now();
  absl::StatusOr<HttpResponse> response = client_->Stream(
      url,
      [&](std::string_view chunk) {
        frame_status = decoder.Feed(chunk, [&](std::string* frame) {
          ++frames;
          return HandleWatchFrame(frame, &server_error);
        });
        return frame_status.ok();
      },
      &canceller_);

  if (!response.ok()) {
    if (!stopping()) stats_.transport_errors.fetch_add(1);
    *failure = Failure{response.status(), absl::ZeroDuration()};
    return WatchEnd::kFailed;
  }
  if (response->status != 200) {
    const ApiStatus api = ApiStatusFromResponse(response->status, response->body);
    if (IsExpired(api)) {
      stats_.expired_410.fetch_add(1);
      return WatchEnd::kRelist;
    }
    // 1.20 answers 422 ("resourceVersionMatch is forbidden for watch"), a
    // server with the WatchList feature off 422 or 400: the request, not
    // the server's health, is the problem.
    if (initial_events && (response->status == 400 || response->status == 422)) {
      *failure = Failure{ToStatus(api, what), absl::ZeroDuration()};
      return WatchEnd::kStreamingListRefused;
    }
    *failure = HttpFailure(response->status, response->retry_after,
                           response->body, what);
    return WatchEnd::kFailed;
  }
  if (server_error.has_value()) {
    if (IsExpired(*server_error)) {
      stats_.expired_410.fetch_add(1);
      return WatchEnd::kRelist;
    }
    stats_.http_errors.fetch_add(1);
    *failure = Failure{ToStatus(*server_error, what), absl::ZeroDuration()};
    return WatchEnd::kFailed;
  }
  if (!frame_status.ok() || decoder.has_partial_frame()) {
    stats_.decode_errors.fetch_add(1);
    *failure = Failure{
        frame_status.ok()
            ? absl::DataLossError(absl::StrCat(
                  what, ": stream ended inside a frame (truncated JSON)"))
            : frame_status,
        absl::ZeroDuration()};
    return WatchEnd::kFailed;
  }
  if (awaiting_initial_events_end_) {
    stats_.transport_errors.fetch_add(1);
    *failure = Failure{absl::UnavailableError(absl::StrCat(
                           what, ": the stream ended before the initial-events-end bookmark")),
                       absl::ZeroDuration()};
    return WatchEnd::kFailed;
  }
  if (frames == 0 && absl::Now() - start < kMinHealthyWatch) {
    stats_.transport_errors.fetch_add(1);
    *failure = Failure{absl::UnavailableError(absl::StrCat(
                           what, ": closed at once without any event")),
                       absl::ZeroDuration()};
    return WatchEnd::kFailed;
  }
  return WatchEnd::kRewatch;
}

bool Reflector::WaitBeforeRetry(const Failure& failure) {
  if (stopping()) return false;
  return thread_.WaitBeforeRetry("reflector", failure.status.ToString(),
                                 std::max(backoff_.NextDelay(), failure.retry_after));
}

}  // namespace informerd::kube
