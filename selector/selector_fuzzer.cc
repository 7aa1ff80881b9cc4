// libFuzzer target: both selector parsers must survive any input, and any
// selector they accept must match without crashing and print a text that
// parses back to the same selector.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "selector/field_selector.h"
#include "selector/label_selector.h"
#include "selector/labels.h"

namespace informerd::selector {
namespace {

void CheckLabelSelector(std::string_view text) {
  static const Labels* const kLabels = new Labels{{"app", "web"},
                                                  {"empty", ""},
                                                  {"example.com/tier", "db"},
                                                  {"replicas", "3"}};
  absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(text);
  if (!selector.ok()) return;
  selector->Matches(*kLabels);
  // Canonical spacing can push a text near the limit over it.
  if (selector->String().size() > LabelSelector::kMaxTextLength) return;
  absl::StatusOr<LabelSelector> reparsed =
      LabelSelector::Parse(selector->String());
  if (!reparsed.ok() || reparsed->String() != selector->String()) abort();
}

void CheckFieldSelector(std::string_view text) {
  absl::StatusOr<FieldSelector> selector = FieldSelector::Parse(text);
  if (!selector.ok()) return;
  selector->Matches(
      [](std::string_view field) -> std::optional<std::string_view> {
        if (field == "metadata.name") return "web-1";
        return std::nullopt;
      });
  absl::StatusOr<FieldSelector> reparsed =
      FieldSelector::Parse(selector->String());
  if (!reparsed.ok() || reparsed->String() != selector->String()) abort();
}

}  // namespace
}  // namespace informerd::selector

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  informerd::selector::CheckLabelSelector(text);
  informerd::selector::CheckFieldSelector(text);
  return 0;
}
