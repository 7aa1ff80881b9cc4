// The shared relist vectors (tests/conformance/relist.json) against
// DiffRelist.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/cpp/local_cache.h"
#include "client/cpp/relist_diff.h"
#include "gtest/gtest.h"
#include "tests/conformance/vectors.h"

namespace informerd {
namespace client {
namespace {

informerd::v1::Object ToObject(const conformance::RelistObject& spec) {
  informerd::v1::Object object;
  object.set_namespace_(spec.namespace_);
  object.set_name(spec.name);
  object.set_resource_version(spec.resource_version);
  object.set_uid(spec.uid);
  return object;
}

TEST(RelistConformance, Vectors) {
  absl::StatusOr<std::vector<conformance::RelistCase>> cases =
      conformance::LoadRelistVectors();
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_FALSE(cases->empty());
  for (const conformance::RelistCase& c : *cases) {
    std::vector<CachedObjectPtr> cached;
    for (const auto& spec : c.before) {
      cached.push_back(
          std::make_shared<const CachedObject>(CachedObject{ToObject(spec)}));
    }
    std::vector<informerd::v1::Object> listed;
    for (const auto& spec : c.after) listed.push_back(ToObject(spec));
    std::vector<conformance::RelistEvent> events;
    for (const CacheChange& change : DiffRelist(cached, std::move(listed))) {
      conformance::RelistEvent event;
      const informerd::v1::Object& either =
          change.type == CacheChange::Type::kDelete ? change.old_object->object
                                                    : change.new_object;
      event.namespace_ = either.namespace_();
      event.name = either.name();
      switch (change.type) {
        case CacheChange::Type::kAdd:
          event.type = "ADD";
          break;
        case CacheChange::Type::kUpdate:
          event.type = "UPDATE";
          break;
        case CacheChange::Type::kDelete:
          event.type = "DELETE";
          break;
      }
      if (change.old_object != nullptr) {
        event.old_resource_version = change.old_object->object.resource_version();
      }
      if (change.type != CacheChange::Type::kDelete) {
        event.new_resource_version = change.new_object.resource_version();
      }
      events.push_back(std::move(event));
    }
    EXPECT_EQ(conformance::PerKey(events), conformance::PerKey(c.events))
        << c.name;
  }
}

}  // namespace
}  // namespace client
}  // namespace informerd
