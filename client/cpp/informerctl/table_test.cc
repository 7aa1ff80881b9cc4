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

TEST(FormatTableTest, ColumnsAreAtLeastSixWide) {
  EXPECT_EQ(FormatTable({{"A", "B", "C"}, {"x", "yy", "z"}}),
            "A     B     C\n"
            "x     yy    z\n");
}

TEST(StreamTableTest, ColumnsGrowAndNeverShrink) {
  StreamTable table;
  EXPECT_EQ(table.Line({"EVENT", "NAME", "AGE"}), "EVENT   NAME   AGE");
  EXPECT_EQ(table.Line({"ADDED", "a-long-name", "0s"}), "ADDED   a-long-name   0s");
  EXPECT_EQ(table.Line({"DELETED", "b", "1s"}), "DELETED   b             1s");
}

TEST(FormatTableTest, EmptyTableIsEmpty) { EXPECT_EQ(FormatTable({}), ""); }

}  // namespace
}  // namespace informerctl
}  // namespace informerd
