#include "server/limits/memory_limit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace informerd::limits {
namespace {

// A cgroup tree in the test's temporary directory.
class MemoryLimitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(std::getenv("TEST_TMPDIR")) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(root_);
  }

  void Write(const std::string& relative, const std::string& text) {
    std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  std::filesystem::path root_;
};

TEST_F(MemoryLimitTest, CgroupV2TheLowestAlongThePath) {
  Write("kubepods/memory.max", "4294967296\n");
  Write("kubepods/pod1/memory.max", "1073741824\n");
  Write("kubepods/pod1/c1/memory.max", "max\n");
  std::optional<MemoryLimit> limit = ReadMemoryLimit("0::/kubepods/pod1/c1\n", root_);
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, uint64_t{1} << 30);
  EXPECT_EQ(limit->source, (root_ / "kubepods/pod1/memory.max").string());
}

TEST_F(MemoryLimitTest, CgroupV2InAContainersNamespace) {
  Write("memory.max", "536870912\n");
  std::optional<MemoryLimit> limit = ReadMemoryLimit("0::/\n", root_);
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, uint64_t{512} << 20);
}

TEST_F(MemoryLimitTest, CgroupV1MemoryController) {
  Write("memory/docker/abc/memory.limit_in_bytes", "268435456\n");
  Write("memory/memory.limit_in_bytes", "9223372036854771712\n");
  std::optional<MemoryLimit> limit =
      ReadMemoryLimit("12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n", root_);
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->bytes, uint64_t{256} << 20);
}

TEST_F(MemoryLimitTest, NoLimit) {
  Write("memory.max", "max\n");
  Write("memory/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_FALSE(ReadMemoryLimit("0::/\n", root_).has_value());
  EXPECT_FALSE(ReadMemoryLimit("4:memory:/\n", root_).has_value());
  EXPECT_FALSE(ReadMemoryLimit("", root_).has_value());
  EXPECT_FALSE(ReadMemoryLimit("0::/nowhere\n", root_ / "absent").has_value());
}

}  // namespace
}  // namespace informerd::limits
