#include "client/cpp/relist_diff.h"

#include <memory>
#include <string>
#include <vector>

#include "client/cpp/test_objects.h"
#include "gtest/gtest.h"

namespace informerd {
namespace client {
namespace {

CachedObjectPtr Cached(const std::string& ns, const std::string& name,
                       const std::string& version) {
  return std::make_shared<const CachedObject>(
      CachedObject{MakeTestObject(ns, name, version)});
}

// "add a/x 5", "update a/x 4->5", "delete a/x 4".
std::vector<std::string> Describe(const std::vector<CacheChange>& changes) {
  std::vector<std::string> described;
  for (const CacheChange& change : changes) {
    switch (change.type) {
      case CacheChange::Type::kAdd:
        described.push_back("add " +
                            ObjectKey(change.new_object.namespace_(),
                                      change.new_object.name()) +
                            " " + change.new_object.resource_version());
        break;
      case CacheChange::Type::kUpdate:
        described.push_back("update " +
                            ObjectKey(change.new_object.namespace_(),
                                      change.new_object.name()) +
                            " " + change.old_object->object.resource_version() +
                            "->" + change.new_object.resource_version());
        break;
      case CacheChange::Type::kDelete:
        described.push_back("delete " +
                            ObjectKey(change.old_object->object.namespace_(),
                                      change.old_object->object.name()) +
                            " " + change.old_object->object.resource_version());
        break;
    }
  }
  return described;
}

using V = std::vector<std::string>;

TEST(DiffRelistTest, FirstListingIsAllAdds) {
  EXPECT_EQ(Describe(DiffRelist({}, {MakeTestObject("a", "x", "1"),
                                     MakeTestObject("", "node", "2")})),
            (V{"add a/x 1", "add node 2"}));
}

TEST(DiffRelistTest, RelistReportsOnlyDifferences) {
  std::vector<CachedObjectPtr> cached = {
      Cached("a", "same", "1"), Cached("a", "changed", "2"),
      Cached("a", "gone", "3"), Cached("b", "gone", "4")};
  std::vector<informerd::v1::Object> listed = {
      MakeTestObject("a", "new", "9"), MakeTestObject("a", "changed", "7"),
      MakeTestObject("a", "same", "1")};
  EXPECT_EQ(Describe(DiffRelist(cached, listed)),
            (V{"add a/new 9", "update a/changed 2->7", "delete a/gone 3",
               "delete b/gone 4"}));
}

TEST(DiffRelistTest, EmptyListingDeletesEverything) {
  EXPECT_EQ(Describe(DiffRelist({Cached("a", "x", "1")}, {})),
            (V{"delete a/x 1"}));
}

TEST(DiffRelistTest, SameNameInOtherNamespaceIsDistinct) {
  EXPECT_EQ(Describe(DiffRelist({Cached("a", "x", "1")},
                                {MakeTestObject("b", "x", "1")})),
            (V{"add b/x 1", "delete a/x 1"}));
}

TEST(DiffRelistTest, DuplicateListingCollapsesToLast) {
  EXPECT_EQ(Describe(DiffRelist({Cached("a", "x", "1")},
                                {MakeTestObject("a", "x", "2"),
                                 MakeTestObject("a", "x", "3")})),
            (V{"update a/x 1->3"}));
}

}  // namespace
}  // namespace client
}  // namespace informerd
