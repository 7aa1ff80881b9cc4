#include "client/cpp/example/line_printer.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace informerd {
namespace example {

namespace {

std::string KeyOf(const informerd::v1::Object& obj) {
  return client::ObjectKey(obj.namespace_(), obj.name());
}

}  // namespace

LinePrinter::LinePrinter(std::function<bool()> has_synced, Emit emit)
    : LinePrinter("", std::move(has_synced), std::move(emit)) {}

LinePrinter::LinePrinter(std::string prefix, std::function<bool()> has_synced,
                         Emit emit)
    : prefix_(std::move(prefix)),
      has_synced_(std::move(has_synced)),
      emit_(std::move(emit)) {}

void LinePrinter::OnAdd(const informerd::v1::Object& obj) {
  EmitEventLine(absl::StrCat("ADD ", KeyOf(obj), " ", obj.resource_version()));
}

void LinePrinter::OnUpdate(const informerd::v1::Object& old_obj,
                           const informerd::v1::Object& new_obj) {
  EmitEventLine(absl::StrCat("UPDATE ", KeyOf(new_obj), " ",
                             old_obj.resource_version(), " ",
                             new_obj.resource_version()));
}

void LinePrinter::OnDelete(const informerd::v1::Object& obj,
                           bool final_state_unknown) {
  EmitEventLine(absl::StrCat("DELETE ", KeyOf(obj), " ",
                             obj.resource_version(),
                             final_state_unknown ? " final-state-unknown" : ""));
}

void LinePrinter::AnnounceSynced() {
  absl::MutexLock lock(&mu_);
  AnnounceSyncedLocked();
}

void LinePrinter::PrintCache(const client::LocalCache& cache) {
  std::vector<std::string> lines;
  for (const client::CachedObjectPtr& cached : cache.All()) {
    lines.push_back(absl::StrCat("CACHE ", KeyOf(cached->object), " ",
                                 cached->object.resource_version()));
  }
  std::sort(lines.begin(), lines.end());
  absl::MutexLock lock(&mu_);
  for (const std::string& line : lines) emit_(line);
}

void LinePrinter::EmitEventLine(const std::string& line) {
  absl::MutexLock lock(&mu_);
  if (has_synced_()) AnnounceSyncedLocked();
  emit_(prefix_ + line);
}

void LinePrinter::AnnounceSyncedLocked() {
  if (synced_announced_) return;
  synced_announced_ = true;
  emit_(prefix_ + "SYNCED");
}

}  // namespace example
}  // namespace informerd
