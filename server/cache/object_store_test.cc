#include "server/cache/object_store.h"

#include <gtest/gtest.h>

#include "server/cache/test_objects.h"

namespace informerd::cache {
namespace {

std::vector<std::string> Keys(const IndexedObjects* run) {
  std::vector<std::string> keys;
  if (run == nullptr) return keys;
  for (const Object* object : *run) keys.push_back(object->key());
  return keys;
}

TEST(ObjectStore, PutReplacesAndIndexesFollow) {
  ObjectSchema schema;
  schema.field_indexes = {"spec.nodeName"};
  ObjectStore store;
  EXPECT_EQ(store.Put(MakeTestObject({.name = "b", .labels = {{"app", "x"}}, .node_name = "n1"}, schema)), nullptr);
  store.Put(MakeTestObject({.name = "a", .labels = {{"app", "x"}}, .node_name = "n2"}, schema));
  store.Put(MakeTestObject({.namespace_ = "other", .name = "c", .labels = {{"app", "y"}}}, schema));
  EXPECT_EQ(store.size(), 3u);
  EXPECT_EQ(Keys(store.ByLabel("app", "x")), (std::vector<std::string>{"default/a", "default/b"}));
  EXPECT_EQ(Keys(store.ByNamespace("other")), (std::vector<std::string>{"other/c"}));
  EXPECT_EQ(Keys(store.ByField("spec.nodeName", "n1")), (std::vector<std::string>{"default/b"}));

  ObjectPtr replaced = store.Put(MakeTestObject({.name = "b", .resource_version = 2, .labels = {{"app", "y"}}, .node_name = "n2"}, schema));
  ASSERT_NE(replaced, nullptr);
  EXPECT_EQ(replaced->resource_version(), "1");
  EXPECT_EQ(Keys(store.ByLabel("app", "x")), (std::vector<std::string>{"default/a"}));
  EXPECT_EQ(Keys(store.ByLabel("app", "y")), (std::vector<std::string>{"default/b", "other/c"}));
  EXPECT_EQ(store.ByField("spec.nodeName", "n1"), nullptr);
  EXPECT_EQ(store.size(), 3u);
}

TEST(ObjectStore, RemoveClearsIndexesAndBytes) {
  ObjectStore store;
  store.Put(MakeTestObject({.name = "a", .labels = {{"k", "v"}}}));
  EXPECT_GT(store.bytes(), 0u);
  ASSERT_NE(store.Remove("default/a"), nullptr);
  EXPECT_EQ(store.Remove("default/a"), nullptr);
  EXPECT_EQ(store.bytes(), 0u);
  EXPECT_EQ(store.ByLabel("k", "v"), nullptr);
  EXPECT_EQ(store.ByNamespace("default"), nullptr);
}

}  // namespace
}  // namespace informerd::cache
