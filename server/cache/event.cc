#include "server/cache/event.h"

#include "server/cache/object_builder.h"

namespace informerd::cache {

const Object& RestampedObject::Get() {
  absl::call_once(once_, [this] { result_ = WithResourceVersion(*source_, resource_version_); });
  return *result_;
}

}  // namespace informerd::cache
