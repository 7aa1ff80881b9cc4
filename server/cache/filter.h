// Filter: which objects a List or Watch asked for (namespace, label
// selector, field selector), and how a change looks through it.
//
// Thread safety: immutable after construction; share freely.
#ifndef INFORMERD_SERVER_CACHE_FILTER_H_
#define INFORMERD_SERVER_CACHE_FILTER_H_

#include <optional>
#include <string>

#include "server/cache/event.h"
#include "server/cache/object.h"
#include "selector/field_selector.h"
#include "selector/label_selector.h"

namespace informerd::cache {

struct Filter {
  std::string namespace_;  // empty: all namespaces
  selector::LabelSelector labels;
  selector::FieldSelector fields;
  // Restrict to objects whose field index `index_field` equals
  // `index_value` ("namespace" means metadata.namespace).
  std::string index_field;
  std::string index_value;

  bool Matches(const Object& object) const;

  // The event type a watcher with this filter sees for `event`, as the
  // apiserver does it: an object that starts matching is kAdded, one that
  // stops matching kDeleted; nullopt when neither side matches.
  std::optional<EventType> TypeFor(const Event& event) const;
};

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_FILTER_H_
