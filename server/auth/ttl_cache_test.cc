#include "server/auth/ttl_cache.h"

#include <gtest/gtest.h>

namespace informerd::auth {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1000);

TEST(TtlCacheTest, FindsAValueUntilItExpires) {
  TtlCache<int> cache(4);
  cache.Put("a", 1, kStart + absl::Seconds(10));
  EXPECT_EQ(cache.Get("a", kStart), 1);
  EXPECT_EQ(cache.Get("a", kStart + absl::Seconds(9)), 1);
  EXPECT_EQ(cache.Get("a", kStart + absl::Seconds(10)), std::nullopt);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.Get("b", kStart), std::nullopt);
}

TEST(TtlCacheTest, PutReplacesValueAndExpiry) {
  TtlCache<int> cache(4);
  cache.Put("a", 1, kStart + absl::Seconds(1));
  cache.Put("a", 2, kStart + absl::Seconds(5));
  EXPECT_EQ(cache.Get("a", kStart + absl::Seconds(3)), 2);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(TtlCacheTest, EvictsTheLeastRecentlyUsedWhenFull) {
  TtlCache<int> cache(2);
  absl::Time later = kStart + absl::Hours(1);
  cache.Put("a", 1, later);
  cache.Put("b", 2, later);
  EXPECT_EQ(cache.Get("a", kStart), 1);  // "b" is now the least recent
  cache.Put("c", 3, later);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Get("b", kStart), std::nullopt);
  EXPECT_EQ(cache.Get("a", kStart), 1);
  EXPECT_EQ(cache.Get("c", kStart), 3);
}

TEST(TtlCacheTest, NeverExceedsCapacity) {
  TtlCache<int> cache(3);
  for (int i = 0; i < 100; ++i) {
    cache.Put(std::to_string(i), i, kStart + absl::Hours(1));
    EXPECT_LE(cache.size(), 3u);
  }
  EXPECT_EQ(cache.Get("99", kStart), 99);
  EXPECT_EQ(cache.Get("96", kStart), std::nullopt);
}

}  // namespace
}  // namespace informerd::auth
