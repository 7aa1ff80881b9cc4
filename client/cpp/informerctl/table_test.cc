#include "client/cpp/informerctl/table.h"

#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

TEST(FormatTableTest, AlignsColumnsWithoutTrailingSpaces) {
  EXPECT_EQ(FormatTable({{"NAME", "RV"}, {"a-long-name", "1"}, {"b", "22"}}),
            "NAME          RV\n"
            "a-long-name   1\n"
            "b             22\n");
}

TEST(FormatTableTest, EmptyTableIsEmpty) { EXPECT_EQ(FormatTable({}), ""); }

}  // namespace
}  // namespace informerctl
}  // namespace informerd
