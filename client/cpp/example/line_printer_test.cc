#include "client/cpp/example/line_printer.h"

#include <string>
#include <vector>

#include "client/cpp/test_objects.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd {
namespace example {
namespace {

using ::testing::ElementsAre;

using client::MakeTestObject;

class LinePrinterTest : public ::testing::Test {
 protected:
  bool synced_ = false;
  std::vector<std::string> lines_;
  LinePrinter printer_{[this] { return synced_; },
                       [this](const std::string& line) {
                         lines_.push_back(line);
                       }};
};

TEST_F(LinePrinterTest, FormatsEachHandlerCall) {
  synced_ = true;
  printer_.AnnounceSynced();
  printer_.OnAdd(MakeTestObject("ns", "a", "5"));
  printer_.OnUpdate(MakeTestObject("ns", "a", "5"), MakeTestObject("ns", "a", "7"));
  printer_.OnDelete(MakeTestObject("ns", "a", "7"), false);
  printer_.OnDelete(MakeTestObject("", "node1", "9"), true);
  EXPECT_THAT(lines_, ElementsAre("SYNCED", "ADD ns/a 5", "UPDATE ns/a 5 7",
                                  "DELETE ns/a 7",
                                  "DELETE node1 9 final-state-unknown"));
}

TEST_F(LinePrinterTest, InitialAddsComeBeforeSynced) {
  printer_.OnAdd(MakeTestObject("ns", "a", "5"));
  synced_ = true;
  printer_.OnAdd(MakeTestObject("ns", "b", "6"));
  printer_.AnnounceSynced();
  EXPECT_THAT(lines_, ElementsAre("ADD ns/a 5", "SYNCED", "ADD ns/b 6"));
}

TEST(LinePrinterPrefixTest, PrefixesEventLinesAndSynced) {
  bool synced = false;
  std::vector<std::string> lines;
  LinePrinter late("LATE ", [&synced] { return synced; },
                   [&lines](const std::string& line) { lines.push_back(line); });
  late.OnAdd(MakeTestObject("ns", "a", "5"));
  synced = true;
  late.OnUpdate(MakeTestObject("ns", "a", "5"), MakeTestObject("ns", "a", "7"));
  late.OnDelete(MakeTestObject("ns", "a", "7"), true);
  late.AnnounceSynced();
  EXPECT_THAT(lines, ElementsAre("LATE ADD ns/a 5", "LATE SYNCED",
                                 "LATE UPDATE ns/a 5 7",
                                 "LATE DELETE ns/a 7 final-state-unknown"));
}

TEST_F(LinePrinterTest, AnnouncesSyncedOnce) {
  printer_.AnnounceSynced();
  printer_.AnnounceSynced();
  EXPECT_THAT(lines_, ElementsAre("SYNCED"));
}

TEST_F(LinePrinterTest, PrintsCacheSorted) {
  client::LocalCache cache;
  cache.Upsert(MakeTestObject("ns", "b-c", "3"));
  cache.Upsert(MakeTestObject("ns", "b", "4"));
  cache.Upsert(MakeTestObject("a", "z", "2"));
  printer_.PrintCache(cache);
  EXPECT_THAT(lines_,
              ElementsAre("CACHE a/z 2", "CACHE ns/b 4", "CACHE ns/b-c 3"));
}

}  // namespace
}  // namespace example
}  // namespace informerd
