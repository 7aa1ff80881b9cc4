// The shared relist vectors (tests/conformance/relist.json) against
// ComputeRelistDiff: the events informerd sends its watchers after a relist.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "server/cache/event.h"
#include "server/cache/object_store.h"
#include "server/cache/relist_diff.h"
#include "server/cache/test_objects.h"
#include "tests/conformance/vectors.h"

namespace informerd::cache {
namespace {

ObjectPtr ToObject(const conformance::RelistObject& spec) {
  uint64_t version = 0;
  EXPECT_TRUE(absl::SimpleAtoi(spec.resource_version, &version)) << spec.resource_version;
  return MakeTestObject({.namespace_ = spec.namespace_,
                         .name = spec.name,
                         .resource_version = version,
                         .uid = spec.uid});
}

TEST(RelistConformance, Vectors) {
  absl::StatusOr<std::vector<conformance::RelistCase>> cases = conformance::LoadRelistVectors();
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_FALSE(cases->empty());
  for (const conformance::RelistCase& c : *cases) {
    ObjectStore store;
    for (const auto& spec : c.before) store.Put(ToObject(spec));
    std::vector<ObjectPtr> listed;
    for (const auto& spec : c.after) listed.push_back(ToObject(spec));
    std::vector<conformance::RelistEvent> events;
    for (const Event& event : ComputeRelistDiff(store, listed, 100, 200, absl::UnixEpoch())) {
      conformance::RelistEvent out;
      out.namespace_ = std::string(event.object->namespace_());
      out.name = std::string(event.object->name());
      switch (event.type) {
        case EventType::kAdded:
          out.type = "ADD";
          out.new_resource_version = std::string(event.object->resource_version());
          break;
        case EventType::kModified:
          out.type = "UPDATE";
          out.old_resource_version = std::string(event.previous->resource_version());
          out.new_resource_version = std::string(event.object->resource_version());
          break;
        case EventType::kDeleted:
          // A relist's delete is a tombstone: its final state is unknown.
          out.type = event.final_state_unknown ? "DELETE" : "DELETE-WITH-KNOWN-FINAL-STATE";
          out.old_resource_version = std::string(event.object->resource_version());
          break;
      }
      events.push_back(std::move(out));
    }
    EXPECT_EQ(conformance::PerKey(events), conformance::PerKey(c.events)) << c.name;
  }
}

}  // namespace
}  // namespace informerd::cache
