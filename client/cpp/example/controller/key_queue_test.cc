#include "client/cpp/example/controller/key_queue.h"

#include <thread>

#include "gtest/gtest.h"

namespace informerd {
namespace example {
namespace {

TEST(KeyQueueTest, QueuesAKeyOnceUntilTaken) {
  KeyQueue queue;
  queue.Add("a");
  queue.Add("b");
  queue.Add("a");
  EXPECT_EQ(queue.Get(), "a");
  EXPECT_EQ(queue.Get(), "b");
  queue.Done("a");
  queue.Done("b");
  queue.ShutDown();
  EXPECT_EQ(queue.Get(), std::nullopt);
}

TEST(KeyQueueTest, KeyAddedWhileProcessingComesBackAfterDone) {
  KeyQueue queue;
  queue.Add("a");
  ASSERT_EQ(queue.Get(), "a");
  queue.Add("a");
  queue.Add("b");
  EXPECT_EQ(queue.Get(), "b");  // a is not handed out while processed
  queue.Done("a");
  EXPECT_EQ(queue.Get(), "a");
}

TEST(KeyQueueTest, ShutDownWakesAWaitingGet) {
  KeyQueue queue;
  std::optional<std::string> got = "unset";
  std::thread worker([&] { got = queue.Get(); });
  queue.ShutDown();
  worker.join();
  EXPECT_EQ(got, std::nullopt);
  queue.Add("a");
  EXPECT_EQ(queue.Get(), std::nullopt);
}

}  // namespace
}  // namespace example
}  // namespace informerd
