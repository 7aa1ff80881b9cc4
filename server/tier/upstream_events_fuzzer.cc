// libFuzzer target for UpstreamEvents: a root informerd's Watch messages,
// as a lying root could send them. Checks that whatever is sent, the sink
// sees what UpstreamEvents promises (upstream_events.h): named objects,
// items only inside a list and none newer than it, no more of them than the
// list's bounds allow (here 4 items and 4 KiB, so that inputs reach them),
// every pending byte given back when no list is in progress, and versions
// that are etcd revisions advancing no faster than VersionBound allows.
//
// Input: messages, each two bytes then three fields ending in '|', '|' and
// NUL (or the input's end):
//   byte 0: bits 0-1 type (BOOKMARK, ADDED, MODIFIED, DELETED),
//           bit 2 initial_events_end, bit 3 final_state_unknown,
//           bit 4 a new Watch begins before it, bit 5 that Watch lists;
//   byte 1: milliseconds since the previous message, times 16;
//   the event's resource_version, the object's, the object's JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "informerd/v1/informerd.pb.h"
#include "rapidjson/document.h"
#include "server/cache/resource_version.h"
#include "server/json/json_members.h"
#include "server/kube/list_watch_sink.h"
#include "server/tier/pending_list_budget.h"
#include "server/tier/upstream_events.h"

namespace {

using informerd::cache::ParseResourceVersion;
using informerd::json::MetadataString;

constexpr informerd::tier::VersionBoundPolicy kPolicy{.revisions_per_second = 1000,
                                                      .burst = 100};
constexpr size_t kMaxItems = 4;
constexpr uint64_t kMaxBytes = 4 << 10;

void Require(bool condition) {
  if (!condition) std::abort();
}

// Checks each call against the promises.
class CheckingSink : public informerd::kube::ListWatchSink {
 public:
  // What the versions taken reach, checked by the loop below.
  const informerd::tier::VersionBound* versions = nullptr;

  void OnListStart() override {
    in_list_ = true;
    newest_item_ = 0;
    items_ = 0;
  }
  void OnListItem(rapidjson::Value& object) override {
    Require(in_list_);
    Require(++items_ <= kMaxItems);
    CheckObject(object);
    if (auto version = ParseResourceVersion(MetadataString(object, "resourceVersion"))) {
      if (*version > newest_item_) newest_item_ = *version;
    }
  }
  void OnListEnd(std::string_view version) override {
    Require(in_list_);
    in_list_ = false;
    const uint64_t value = CheckVersion(version);
    Require(newest_item_ <= value);
  }
  void OnWatchEvent(informerd::kube::WatchEventType, rapidjson::Value& object) override {
    Require(!in_list_);
    CheckObject(object);
    CheckVersion(MetadataString(object, "resourceVersion"));
  }
  void OnBookmark(std::string_view version) override {
    Require(!in_list_);
    CheckVersion(version);
  }

 private:
  static void CheckObject(const rapidjson::Value& object) {
    Require(object.IsObject());
    Require(!MetadataString(object, "name").empty());
  }

  // An etcd revision the bound has taken.
  uint64_t CheckVersion(std::string_view text) const {
    const std::optional<uint64_t> version = ParseResourceVersion(text);
    Require(version.has_value() && *version >= 1 && *version <= uint64_t{INT64_MAX});
    Require(versions->highest().has_value() && *version <= *versions->highest());
    return *version;
  }

  bool in_list_ = false;
  uint64_t newest_item_ = 0;
  size_t items_ = 0;
};

// The next field of `input`, up to `end` (or the input's end).
std::string Field(std::string_view* input, char end) {
  const size_t at = input->find(end);
  std::string field(input->substr(0, at));
  input->remove_prefix(at == std::string_view::npos ? input->size() : at + 1);
  return field;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckingSink sink;
  informerd::kube::ReflectorStats stats;
  auto budget = std::make_shared<informerd::tier::PendingListBudget>(
      informerd::tier::PendingListBounds{kMaxItems, kMaxBytes, "fuzz"});
  std::optional<informerd::tier::UpstreamEvents> events_holder;
  events_holder.emplace("fuzz", &sink, &stats, kPolicy, budget);
  informerd::tier::UpstreamEvents& events = *events_holder;
  sink.versions = &events.versions();
  absl::Time now = absl::UnixEpoch() + absl::Hours(1);
  // The first version taken and when: the bound allows at most burst + 2 *
  // rate * elapsed beyond it.
  std::optional<uint64_t> first;
  absl::Time first_at;
  events.StartWatch(true);
  while (input.size() >= 2) {
    const uint8_t flags = static_cast<uint8_t>(input[0]);
    now += absl::Milliseconds(16 * static_cast<uint8_t>(input[1]));
    input.remove_prefix(2);
    if (flags & 0x10) events.StartWatch((flags & 0x20) != 0);
    informerd::v1::WatchEvent event;
    event.set_type(static_cast<informerd::v1::WatchEvent::Type>(flags & 3));
    event.set_initial_events_end((flags & 4) != 0);
    event.set_final_state_unknown((flags & 8) != 0);
    event.set_resource_version(Field(&input, '|'));
    event.mutable_object()->set_resource_version(Field(&input, '|'));
    event.mutable_object()->set_json(Field(&input, '\0'));
    bool relist = false;
    const absl::Status handled = events.Handle(&event, now, &relist);
    if (const std::optional<uint64_t> highest = events.versions().highest()) {
      if (!first.has_value()) {
        first = highest;
        first_at = now;
      }
      Require(static_cast<double>(*highest - *first) <=
              kPolicy.burst +
                  2.0 * kPolicy.revisions_per_second * absl::ToDoubleSeconds(now - first_at) + 2);
    }
    // As the reader: a failed or abandoned stream is followed by a new
    // Watch, listing when the state is still owed.
    Require(budget->held() <= kMaxBytes);
    if (!events.awaiting_initial_events_end()) Require(budget->held() == 0);
    if (!handled.ok() || relist) events.StartWatch(relist || events.awaiting_initial_events_end());
  }
  events_holder.reset();
  Require(budget->held() == 0);
  return 0;
}
