#include "server/cache/filter.h"

namespace informerd::cache {

bool Filter::Matches(const Object& object) const {
  if (!namespace_.empty() && object.namespace_() != namespace_) return false;
  if (!index_field.empty()) {
    std::optional<std::string_view> value =
        index_field == "namespace" ? std::optional<std::string_view>(object.namespace_())
                                   : object.FieldValue(index_field);
    if (value.value_or("") != index_value) return false;
  }
  if (!labels.Matches(object.labels())) return false;
  return fields.Matches([&object](std::string_view field) { return object.FieldValue(field); });
}

std::optional<EventType> Filter::TypeFor(const Event& event) const {
  bool now = Matches(*event.object);
  if (event.type != EventType::kModified) {
    return now ? std::optional<EventType>(event.type) : std::nullopt;
  }
  bool before = event.previous != nullptr && Matches(*event.previous);
  if (now && before) return EventType::kModified;
  if (now) return EventType::kAdded;
  if (before) return EventType::kDeleted;
  return std::nullopt;
}

}  // namespace informerd::cache
