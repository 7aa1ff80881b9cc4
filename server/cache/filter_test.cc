#include "server/cache/filter.h"

#include <gtest/gtest.h>

#include "server/cache/test_objects.h"

namespace informerd::cache {
namespace {

Filter LabelFilter(std::string_view selector) {
  Filter filter;
  filter.labels = selector::LabelSelector::Parse(selector).value();
  return filter;
}

Event Modified(ObjectPtr before, ObjectPtr after) {
  Event event;
  event.type = EventType::kModified;
  event.previous = std::move(before);
  event.object = std::move(after);
  return event;
}

TEST(Filter, SelectorTransitionsBecomeAddedAndDeleted) {
  Filter filter = LabelFilter("app=web");
  ObjectPtr web = MakeTestObject({.name = "a", .labels = {{"app", "web"}}});
  ObjectPtr db = MakeTestObject({.name = "a", .resource_version = 2, .labels = {{"app", "db"}}});
  EXPECT_EQ(filter.TypeFor(Modified(web, web)), EventType::kModified);
  EXPECT_EQ(filter.TypeFor(Modified(db, web)), EventType::kAdded);
  EXPECT_EQ(filter.TypeFor(Modified(web, db)), EventType::kDeleted);
  EXPECT_EQ(filter.TypeFor(Modified(db, db)), std::nullopt);
}

TEST(Filter, NamespaceFieldAndIndex) {
  ObjectSchema schema;
  schema.field_indexes = {"spec.nodeName"};
  ObjectPtr object = MakeTestObject({.namespace_ = "ns", .name = "a", .node_name = "n1"}, schema);
  Filter filter;
  filter.namespace_ = "ns";
  EXPECT_TRUE(filter.Matches(*object));
  filter.namespace_ = "other";
  EXPECT_FALSE(filter.Matches(*object));
  filter.namespace_.clear();
  filter.fields = selector::FieldSelector::Parse("spec.nodeName=n1,metadata.name!=b").value();
  EXPECT_TRUE(filter.Matches(*object));
  filter.index_field = "spec.nodeName";
  filter.index_value = "n2";
  EXPECT_FALSE(filter.Matches(*object));
}

}  // namespace
}  // namespace informerd::cache
