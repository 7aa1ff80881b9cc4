#include "client/cpp/example/line_printer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd {
namespace example {
namespace {

using ::testing::ElementsAre;

informerd::v1::Object MakeObject(const std::string& ns, const std::string& name,
                                 const std::string& rv) {
  informerd::v1::Object obj;
  obj.set_namespace_(ns);
  obj.set_name(name);
  obj.set_resource_version(rv);
  return obj;
}

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
  printer_.OnAdd(MakeObject("ns", "a", "5"));
  printer_.OnUpdate(MakeObject("ns", "a", "5"), MakeObject("ns", "a", "7"));
  printer_.OnDelete(MakeObject("ns", "a", "7"), false);
  printer_.OnDelete(MakeObject("", "node1", "9"), true);
  EXPECT_THAT(lines_, ElementsAre("SYNCED", "ADD ns/a 5", "UPDATE ns/a 5 7",
                                  "DELETE ns/a 7",
                                  "DELETE node1 9 final-state-unknown"));
}

TEST_F(LinePrinterTest, InitialAddsComeBeforeSynced) {
  printer_.OnAdd(MakeObject("ns", "a", "5"));
  synced_ = true;
  printer_.OnAdd(MakeObject("ns", "b", "6"));
  printer_.AnnounceSynced();
  EXPECT_THAT(lines_, ElementsAre("ADD ns/a 5", "SYNCED", "ADD ns/b 6"));
}

TEST_F(LinePrinterTest, AnnouncesSyncedOnce) {
  printer_.AnnounceSynced();
  printer_.AnnounceSynced();
  EXPECT_THAT(lines_, ElementsAre("SYNCED"));
}

TEST_F(LinePrinterTest, PrintsCacheSorted) {
  client::LocalCache cache;
  cache.Upsert(MakeObject("ns", "b-c", "3"));
  cache.Upsert(MakeObject("ns", "b", "4"));
  cache.Upsert(MakeObject("a", "z", "2"));
  printer_.PrintCache(cache);
  EXPECT_THAT(lines_,
              ElementsAre("CACHE a/z 2", "CACHE ns/b 4", "CACHE ns/b-c 3"));
}

}  // namespace
}  // namespace example
}  // namespace informerd
