#include "server/kube/watch_decoder.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd::kube {
namespace {

using ::testing::ElementsAre;

class Collector {
 public:
  absl::Status Feed(WatchDecoder& decoder, std::string_view chunk) {
    return decoder.Feed(chunk, [this](std::string* frame) {
      frames.push_back(*frame);
      return absl::OkStatus();
    });
  }
  std::vector<std::string> frames;
};

TEST(WatchDecoderTest, SplitsLinesAndSkipsBlankOnes) {
  WatchDecoder decoder;
  Collector collector;
  ASSERT_TRUE(collector.Feed(decoder, "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"").ok());
  EXPECT_THAT(collector.frames, ElementsAre("{\"a\":1}", "{\"b\":2}"));
  EXPECT_TRUE(decoder.has_partial_frame());
  ASSERT_TRUE(collector.Feed(decoder, ":3}\n").ok());
  EXPECT_THAT(collector.frames,
              ElementsAre("{\"a\":1}", "{\"b\":2}", "{\"c\":3}"));
  EXPECT_FALSE(decoder.has_partial_frame());
}

TEST(WatchDecoderTest, EverySplitPointGivesTheSameFrames) {
  const std::string stream =
      "{\"type\":\"ADDED\",\"object\":{\"x\":\"a\\nb\"}}\n"
      "{\"type\":\"MODIFIED\"}\n"
      "{}\n";
  const std::vector<std::string> expected = {
      "{\"type\":\"ADDED\",\"object\":{\"x\":\"a\\nb\"}}",
      "{\"type\":\"MODIFIED\"}", "{}"};
  for (size_t first = 0; first <= stream.size(); ++first) {
    for (size_t second = first; second <= stream.size(); ++second) {
      WatchDecoder decoder;
      Collector collector;
      ASSERT_TRUE(collector.Feed(decoder, stream.substr(0, first)).ok());
      ASSERT_TRUE(
          collector.Feed(decoder, stream.substr(first, second - first)).ok());
      ASSERT_TRUE(collector.Feed(decoder, stream.substr(second)).ok());
      EXPECT_EQ(collector.frames, expected)
          << "split at " << first << " and " << second;
      EXPECT_FALSE(decoder.has_partial_frame());
    }
  }
}

TEST(WatchDecoderTest, ByteByByte) {
  const std::string stream = "{\"a\":1}\n{\"b\":2}\n";
  WatchDecoder decoder;
  Collector collector;
  for (char c : stream) {
    ASSERT_TRUE(collector.Feed(decoder, std::string_view(&c, 1)).ok());
  }
  EXPECT_THAT(collector.frames, ElementsAre("{\"a\":1}", "{\"b\":2}"));
}

TEST(WatchDecoderTest, OversizeFrameInOneChunkFails) {
  WatchDecoder decoder(/*max_frame_bytes=*/8);
  Collector collector;
  ASSERT_TRUE(collector.Feed(decoder, "12345678\n").ok());
  const absl::Status status = collector.Feed(decoder, "123456789\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(collector.frames, ElementsAre("12345678"));
}

TEST(WatchDecoderTest, OversizeUnterminatedFrameFailsBeforeBuffering) {
  WatchDecoder decoder(/*max_frame_bytes=*/8);
  Collector collector;
  ASSERT_TRUE(collector.Feed(decoder, "12345").ok());
  EXPECT_EQ(collector.Feed(decoder, "6789").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(collector.frames.empty());
}

TEST(WatchDecoderTest, OversizeFrameAcrossChunksFails) {
  WatchDecoder decoder(/*max_frame_bytes=*/8);
  Collector collector;
  ASSERT_TRUE(collector.Feed(decoder, "12345").ok());
  EXPECT_EQ(collector.Feed(decoder, "6789\n").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(collector.frames.empty());
}

TEST(WatchDecoderTest, StopsAtTheFirstHandlerError) {
  WatchDecoder decoder;
  std::vector<std::string> frames;
  const absl::Status status =
      decoder.Feed("a\nb\nc\n", [&](std::string* frame) {
        frames.push_back(*frame);
        return *frame == "b" ? absl::DataLossError("bad") : absl::OkStatus();
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(frames, ElementsAre("a", "b"));
}

}  // namespace
}  // namespace informerd::kube
