#include "server/tier/upstream_events.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"
#include "server/cache/resource_version.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"
#include "server/log/log.h"

namespace informerd::tier {
namespace {

constexpr std::string_view kComponent = "upstream";

}  // namespace

UpstreamEvents::UpstreamEvents(std::string what, kube::ListWatchSink* sink,
                               kube::ReflectorStats* stats, VersionBoundPolicy versions,
                               std::shared_ptr<PendingListBudget> budget)
    : what_(std::move(what)),
      sink_(sink),
      stats_(stats),
      versions_(versions),
      budget_(budget != nullptr ? std::move(budget)
                                : std::make_shared<PendingListBudget>(PendingListBounds{})) {}

UpstreamEvents::~UpstreamEvents() { ReleaseList(); }

void UpstreamEvents::ReleaseList() {
  budget_->Give(list_bytes_);
  list_bytes_ = 0;
  list_items_ = 0;
}

void UpstreamEvents::StartWatch(bool initial_events) {
  ReleaseList();
  awaiting_initial_events_end_ = initial_events;
  newest_item_ = 0;
  if (initial_events) sink_->OnListStart();
}

absl::Status UpstreamEvents::TakeListItem(size_t json_bytes) {
  const PendingListBounds& bounds = budget_->bounds();
  const uint64_t cost = uint64_t{json_bytes} + kPendingItemOverhead;
  std::string passed;
  if (list_items_ >= bounds.max_items) {
    passed = absl::StrCat("its bound of ", bounds.max_items, " items (upstreamListMaxItems)");
  } else if (!budget_->TryTake(cost)) {
    passed = absl::StrCat("the bound of ", bounds.max_bytes,
                          " bytes for all pending initial lists (upstreamListMaxBytes: ", bounds.why,
                          "; this list held ", list_bytes_, " bytes in ", list_items_, " items)");
  } else {
    ++list_items_;
    list_bytes_ += cost;
    return absl::OkStatus();
  }
  const size_t items = list_items_;
  // Dropped now, not at the retry: the backoff holds none of it.
  ReleaseList();
  sink_->OnListStart();
  stats_->lists_too_large.fetch_add(1);
  return absl::ResourceExhaustedError(
      absl::StrCat(what_, ": the initial list passed ", passed, " after ", items,
                   " items without its initial-events-end bookmark; dropped, listing again "
                   "after a backoff"));
}

absl::Status UpstreamEvents::HandleBookmark(const v1::WatchEvent& event, absl::Time now) {
  const std::string& version = event.resource_version();
  if (version.empty()) {
    return absl::DataLossError(absl::StrCat(what_, ": a bookmark without resource_version"));
  }
  if (awaiting_initial_events_end_ && !event.initial_events_end()) return absl::OkStatus();
  if (absl::Status possible = versions_.Check(version, now, absl::StrCat(what_, ": a bookmark at"));
      !possible.ok()) {
    return possible;
  }
  if (!awaiting_initial_events_end_) {
    last_version_ = version;
    stats_->bookmarks.fetch_add(1);
    sink_->OnBookmark(last_version_);
    return absl::OkStatus();
  }
  // Check passed, so the version parses.
  if (newest_item_ > *cache::ParseResourceVersion(version)) {
    return absl::DataLossError(absl::StrCat(what_, ": the list at ", version,
                                            " holds an item at ", newest_item_,
                                            ", newer than the list"));
  }
  awaiting_initial_events_end_ = false;
  // The list's objects are the cache's from here.
  ReleaseList();
  last_version_ = version;
  stats_->lists.fetch_add(1);
  stats_->streamed_lists.fetch_add(1);
  sink_->OnListEnd(last_version_);
  synced_ = true;
  return absl::OkStatus();
}

absl::Status UpstreamEvents::Handle(v1::WatchEvent* event, absl::Time now, bool* relist) {
  if (event->type() == v1::WatchEvent::BOOKMARK) return HandleBookmark(*event, now);

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
      log::Warning(kComponent, absl::StrCat(what_, ": skipping an event of unknown type ",
                                            static_cast<int>(event->type())));
      return absl::OkStatus();
  }
  if (awaiting_initial_events_end_ && type != kube::WatchEventType::kAdded) {
    return absl::DataLossError(
        absl::StrCat(what_, ": a non-ADDED event before the initial-events-end bookmark"));
  }
  // Events of the root's relist batch: all but the last carry the version
  // before the batch, and its deletes may not be final states. The state
  // again gives the leaf the same result by its own diff.
  if (!awaiting_initial_events_end_ &&
      (event->final_state_unknown() ||
       event->resource_version() != event->object().resource_version())) {
    log::Info(kComponent, absl::StrCat(what_, ": the upstream relisted (an event at ",
                                       event->resource_version(), " for an object at ",
                                       event->object().resource_version(),
                                       "); getting the state again"));
    *relist = true;
    return absl::OkStatus();
  }
  // In situ: the message's own buffer is parsed once, as the Reflector's
  // frames are. std::string keeps its bytes NUL-terminated.
  std::string* json = event->mutable_object()->mutable_json();
  // Counted before it is parsed: an item past the bounds costs no parse.
  if (awaiting_initial_events_end_) {
    if (absl::Status taken = TakeListItem(json->size()); !taken.ok()) return taken;
  }
  rapidjson::Document object;
  if (absl::Status parsed = json::ParseInsitu(json->data(), &object);
      !parsed.ok() || !object.IsObject()) {
    return absl::DataLossError(absl::StrCat(what_, ": an event's object is not a JSON object",
                                            parsed.ok() ? "" : absl::StrCat(" (", parsed.message(), ")")));
  }
  if (json::MetadataString(object, "name").empty()) {
    stats_->rejected_objects.fetch_add(1);
    log::Warning(kComponent,
                 absl::StrCat(what_, ": skipping an event object without metadata.name"));
    return absl::OkStatus();
  }
  // The Informer orders by the object's own version; it must be the one
  // the message says (and checked below), not another in the JSON.
  const std::string_view object_version = json::MetadataString(object, "resourceVersion");
  if (object_version != event->object().resource_version()) {
    return absl::DataLossError(absl::StrCat(
        what_, ": an object's metadata.resourceVersion \"", std::string(object_version),
        "\" is not its message's \"", event->object().resource_version(), "\""));
  }
  if (awaiting_initial_events_end_) {
    // Bounded by the list's version at its end; an item that does not
    // parse as a version is the Informer's to reject.
    if (std::optional<uint64_t> version = cache::ParseResourceVersion(object_version)) {
      newest_item_ = std::max(newest_item_, *version);
    }
    sink_->OnListItem(object);
    return absl::OkStatus();
  }
  if (absl::Status possible =
          versions_.Check(event->resource_version(), now, absl::StrCat(what_, ": an event at"));
      !possible.ok()) {
    return possible;
  }
  last_version_ = event->resource_version();
  stats_->events.fetch_add(1);
  sink_->OnWatchEvent(type, object);
  return absl::OkStatus();
}

}  // namespace informerd::tier
