#include "server/kube/list_page_reader.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"
#include "server/json/json_members.h"
#include "server/json/json_parse.h"
#include "server/log/log.h"

namespace informerd::kube {
namespace {

std::vector<std::string> CutPath(bool cut_managed_fields) {
  if (!cut_managed_fields) return {};
  return {"metadata", "managedFields"};
}

}  // namespace

ListPageReader::ListPageReader(ListWatchSink* sink, std::string what, size_t max_item_bytes,
                               bool cut_managed_fields)
    : sink_(sink),
      what_(std::move(what)),
      decoder_(max_item_bytes, CutPath(cut_managed_fields)) {}

absl::Status ListPageReader::Feed(std::string_view chunk) {
  if (!status_.ok()) return status_;
  status_ = decoder_.Feed(chunk, [this](std::string* item) { return HandleItem(item); });
  return status_;
}

absl::Status ListPageReader::HandleItem(std::string* item) {
  // In situ: twice as fast as Parse, which copies every string.
  rapidjson::Document object;
  if (absl::Status parsed = json::ParseInsitu(item->data(), &object); !parsed.ok()) {
    return absl::DataLossError(absl::StrCat(what_, ": an item is not valid JSON: ", parsed.message()));
  }
  if (!object.IsObject() || json::MetadataString(object, "name").empty()) {
    ++rejected_objects_;
    log::Warning("reflector", absl::StrCat(what_, ": skipping an item without metadata.name"));
    return absl::OkStatus();
  }
  sink_->OnListItem(object);
  return absl::OkStatus();
}

absl::StatusOr<ListPageReader::Page> ListPageReader::Finish() {
  absl::StatusOr<std::string> envelope =
      status_.ok() ? decoder_.Finish() : absl::StatusOr<std::string>(status_);
  rapidjson::Document page;
  const bool is_object =
      envelope.ok() && json::ParseInsitu(envelope->data(), &page).ok() && page.IsObject();
  const rapidjson::Value* metadata = is_object ? json::ObjectMember(page, "metadata") : nullptr;
  const std::string_view resource_version = json::StringMember(metadata, "resourceVersion");
  // The decoder left "items" in place as [] (or null); it must be there.
  const rapidjson::Value* items = is_object ? json::Member(page, "items") : nullptr;
  const bool has_items = items != nullptr && (items->IsArray() || items->IsNull());
  if (!has_items || resource_version.empty()) {
    return absl::DataLossError(absl::StrCat(
        what_, ": page is not a list with items and metadata.resourceVersion",
        envelope.ok() ? "" : absl::StrCat(" (", envelope.status().message(), ")")));
  }
  return Page{std::string(resource_version), std::string(json::StringMember(metadata, "continue"))};
}

}  // namespace informerd::kube
