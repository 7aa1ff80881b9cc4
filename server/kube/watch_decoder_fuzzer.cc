// libFuzzer target: WatchDecoder must survive any stream, split it into the
// same frames whatever the chunk size, and hand out only trimmed, non-empty
// frames without line breaks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "server/kube/chunked_fuzz_input.h"
#include "server/kube/watch_decoder.h"

namespace {

// The frames of `stream` fed in chunks of `chunk_size`, and whether every
// Feed succeeded.
std::pair<std::vector<std::string>, bool> Decode(std::string_view stream, size_t chunk_size) {
  informerd::kube::WatchDecoder decoder(/*max_frame_bytes=*/1024);
  std::vector<std::string> frames;
  absl::Status status =
      informerd::kube::FeedInChunks(decoder, stream, chunk_size, [&](std::string* frame) {
        if (frame->empty() || frame->find('\n') != std::string::npos ||
            absl::ascii_isspace(static_cast<unsigned char>(frame->front())) ||
            absl::ascii_isspace(static_cast<unsigned char>(frame->back()))) {
          abort();
        }
        frames.push_back(*frame);
        return absl::OkStatus();
      });
  if (!status.ok()) {
    if (status.code() != absl::StatusCode::kResourceExhausted) abort();
    return {frames, false};
  }
  return {frames, true};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::optional<informerd::kube::ChunkedFuzzInput> input =
      informerd::kube::ReadChunkedFuzzInput(data, size);
  if (!input) return 0;
  const auto whole = Decode(input->body, input->body.size() + 1);
  const auto chunked = Decode(input->body, input->chunk_size);
  // A frame over the cap fails in either; before that, the same frames.
  if (whole.second != chunked.second) abort();
  if (whole.second && whole.first != chunked.first) abort();
  return 0;
}
