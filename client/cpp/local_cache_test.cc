#include "client/cpp/local_cache.h"

#include <string>
#include <vector>

#include "client/cpp/test_objects.h"
#include "gtest/gtest.h"

namespace informerd {
namespace client {
namespace {

std::vector<std::string> Names(const std::vector<CachedObjectPtr>& objects) {
  std::vector<std::string> names;
  for (const CachedObjectPtr& object : objects) {
    names.push_back(ObjectKey(object->object.namespace_(), object->object.name()));
  }
  return names;
}

TEST(LocalCacheTest, UpsertGetRemove) {
  LocalCache cache;
  EXPECT_EQ(cache.Upsert(MakeTestObject("a", "x", "1")), nullptr);
  CachedObjectPtr previous = cache.Upsert(MakeTestObject("a", "x", "2"));
  ASSERT_NE(previous, nullptr);
  EXPECT_EQ(previous->object.resource_version(), "1");
  ASSERT_NE(cache.Get("a", "x"), nullptr);
  EXPECT_EQ(cache.Get("a", "x")->object.resource_version(), "2");
  EXPECT_EQ(cache.Get("b", "x"), nullptr);
  EXPECT_EQ(cache.Size(), 1u);

  CachedObjectPtr removed = cache.Remove("a", "x");
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(removed->object.resource_version(), "2");
  EXPECT_EQ(cache.Remove("a", "x"), nullptr);
  EXPECT_EQ(cache.Size(), 0u);
}

TEST(LocalCacheTest, ClusterScopedKeyIsName) {
  EXPECT_EQ(ObjectKey("", "node-1"), "node-1");
  EXPECT_EQ(ObjectKey("ns", "pod"), "ns/pod");
}

TEST(LocalCacheTest, ListMatchesEqualityLabelSelectors) {
  LocalCache cache;
  cache.Upsert(MakeTestObject("a", "web", "1", {{"app", "web"}, {"tier", "front"}}));
  cache.Upsert(MakeTestObject("a", "db", "1", {{"app", "db"}}));
  cache.Upsert(MakeTestObject("b", "bare", "1"));

  auto names = [&](const char* selector) {
    absl::StatusOr<std::vector<CachedObjectPtr>> listed = cache.List(selector);
    EXPECT_TRUE(listed.ok()) << selector << ": " << listed.status();
    return listed.ok() ? Names(*listed) : std::vector<std::string>{};
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(""), (V{"a/db", "a/web", "b/bare"}));
  EXPECT_EQ(names("app=web"), (V{"a/web"}));
  EXPECT_EQ(names("app==db"), (V{"a/db"}));
  EXPECT_EQ(names("app!=web"), (V{"a/db", "b/bare"}));
  EXPECT_EQ(names("app"), (V{"a/db", "a/web"}));
  EXPECT_EQ(names("!app"), (V{"b/bare"}));
  EXPECT_EQ(names("app=web, tier=front"), (V{"a/web"}));
  EXPECT_EQ(names("app=web,tier!=front"), V{});
  EXPECT_EQ(names("app in (web,db)"), (V{"a/db", "a/web"}));
  EXPECT_EQ(names("app notin (web)"), (V{"a/db", "b/bare"}));
}

TEST(LocalCacheTest, ListRejectsBadSelectorsWithPosition) {
  LocalCache cache;
  struct Case {
    const char* selector;
    const char* message;
  };
  // Parsing is the server's own selector parser; see
  // selector/label_selector_test.cc for the full grammar.
  const Case cases[] = {
      {"a=b,", "position 4"},
      {"=b", "position 0"},
      {"env in (x", "position 9"},
      {"a=b=c", "position 3"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<CachedObjectPtr>> listed = cache.List(c.selector);
    ASSERT_FALSE(listed.ok()) << c.selector;
    EXPECT_EQ(listed.status().code(), absl::StatusCode::kInvalidArgument);
    std::string message(listed.status().message());
    EXPECT_EQ(message.rfind("label_selector: ", 0), 0u) << message;
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
  }
}

TEST(LocalCacheTest, NamespaceIndexFollowsUpdatesAndRemovals) {
  LocalCache cache;
  cache.Upsert(MakeTestObject("a", "x", "1"));
  cache.Upsert(MakeTestObject("a", "y", "1"));
  cache.Upsert(MakeTestObject("b", "x", "1"));
  auto in = [&](const char* ns) {
    absl::StatusOr<std::vector<CachedObjectPtr>> listed =
        cache.ByIndex(LocalCache::kNamespaceIndex, ns);
    EXPECT_TRUE(listed.ok()) << listed.status();
    return listed.ok() ? Names(*listed) : std::vector<std::string>{};
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(in("a"), (V{"a/x", "a/y"}));
  cache.Remove("a", "x");
  EXPECT_EQ(in("a"), (V{"a/y"}));
  EXPECT_EQ(in("missing"), V{});
}

TEST(LocalCacheTest, UserIndexRefilesOnUpdateAndCoversExistingObjects) {
  LocalCache cache;
  cache.Upsert(MakeTestObject("a", "x", "1", {{"node", "n1"}}));
  ASSERT_TRUE(cache
                  .AddIndex("node",
                            [](const informerd::v1::Object& object) {
                              auto it = object.labels().find("node");
                              if (it == object.labels().end()) {
                                return std::vector<std::string>{};
                              }
                              return std::vector<std::string>{it->second};
                            })
                  .ok());
  EXPECT_EQ(Names(*cache.ByIndex("node", "n1")),
            std::vector<std::string>{"a/x"});

  cache.Upsert(MakeTestObject("a", "x", "2", {{"node", "n2"}}));
  EXPECT_TRUE(cache.ByIndex("node", "n1")->empty());
  EXPECT_EQ(Names(*cache.ByIndex("node", "n2")),
            std::vector<std::string>{"a/x"});
}

TEST(LocalCacheTest, IndexErrors) {
  LocalCache cache;
  absl::Status duplicate = cache.AddIndex(
      "namespace", [](const informerd::v1::Object&) {
        return std::vector<std::string>{};
      });
  EXPECT_EQ(duplicate.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(cache.ByIndex("nope", "x").status().code(),
            absl::StatusCode::kNotFound);
}

// As client-go's Indexer: an object filed under several values is found
// under each; IndexKeys answers with keys, in order; an unknown index is an
// error, an unknown value an empty answer.
TEST(LocalCacheTest, MultiValuedIndexByIndexAndIndexKeys) {
  LocalCache cache;
  ASSERT_TRUE(cache
                  .AddIndex("label-values",
                            [](const informerd::v1::Object& object) {
                              std::vector<std::string> values;
                              for (const auto& [k, v] : object.labels()) {
                                values.push_back(v);
                              }
                              return values;
                            })
                  .ok());
  cache.Upsert(MakeTestObject("b", "y", "1", {{"p", "red"}, {"q", "blue"}}));
  cache.Upsert(MakeTestObject("a", "x", "1", {{"p", "red"}}));
  EXPECT_EQ(*cache.IndexKeys("label-values", "red"),
            (std::vector<std::string>{"a/x", "b/y"}));
  EXPECT_EQ(*cache.IndexKeys("label-values", "blue"),
            std::vector<std::string>{"b/y"});
  EXPECT_EQ(Names(*cache.ByIndex("label-values", "blue")),
            std::vector<std::string>{"b/y"});
  EXPECT_TRUE(cache.IndexKeys("label-values", "green")->empty());
  EXPECT_EQ(cache.IndexKeys("nope", "red").status().code(),
            absl::StatusCode::kNotFound);

  cache.Remove("b", "y");
  EXPECT_EQ(*cache.IndexKeys("label-values", "red"),
            std::vector<std::string>{"a/x"});
  EXPECT_TRUE(cache.IndexKeys("label-values", "blue")->empty());
}

TEST(LocalCacheTest, HeldObjectSurvivesReplacement) {
  LocalCache cache;
  cache.Upsert(MakeTestObject("a", "x", "1"));
  CachedObjectPtr held = cache.Get("a", "x");
  cache.Upsert(MakeTestObject("a", "x", "2"));
  cache.Remove("a", "x");
  EXPECT_EQ(held->object.resource_version(), "1");
}

}  // namespace
}  // namespace client
}  // namespace informerd
