// WatchDecoder: splits a JSON watch response body into its frames.
//
// For `Accept: application/json` watches the API server writes one JSON
// object (a watch event) per line. The decoder is fed the body in whatever
// chunks the network delivers and hands out each complete line; it keeps
// only the unfinished tail, never the whole stream, and refuses a line
// longer than its cap so a broken server cannot exhaust memory.
//
// Not thread-safe: one decoder belongs to one stream.
#ifndef INFORMERD_SERVER_KUBE_WATCH_DECODER_H_
#define INFORMERD_SERVER_KUBE_WATCH_DECODER_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace informerd::kube {

class WatchDecoder {
 public:
  static constexpr size_t kDefaultMaxFrameBytes = size_t{64} << 20;

  explicit WatchDecoder(size_t max_frame_bytes = kDefaultMaxFrameBytes);

  using OnFrame = absl::FunctionRef<absl::Status(std::string* frame)>;

  // Calls `on_frame` with each line completed by `chunk`, without its line
  // ending or surrounding whitespace; blank lines are skipped. The frame is
  // in the decoder's buffer, which the callee may modify (to parse it in
  // situ) and which is valid only during the call: each frame is copied
  // once, whether or not it spans chunks. Stops at and returns the first
  // error from `on_frame`, or RESOURCE_EXHAUSTED if a frame exceeds the
  // cap. After an error the stream is unusable: discard the decoder.
  absl::Status Feed(std::string_view chunk, OnFrame on_frame);

  // True if bytes of an unterminated frame are buffered: at the end of the
  // stream this means the last frame was truncated.
  bool has_partial_frame() const { return !partial_.empty(); }

 private:
  // Hands the assembled line to `on_frame` and empties the buffer.
  absl::Status EmitLine(OnFrame on_frame);
  absl::Status FrameTooLarge() const;

  const size_t max_frame_bytes_;
  std::string partial_;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_WATCH_DECODER_H_
