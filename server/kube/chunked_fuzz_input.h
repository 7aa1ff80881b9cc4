// For fuzzers that check a streaming decoder reads a body the same way
// whatever the chunks it arrives in.
#ifndef INFORMERD_SERVER_KUBE_CHUNKED_FUZZ_INPUT_H_
#define INFORMERD_SERVER_KUBE_CHUNKED_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace informerd::kube {

// A fuzz input read as a chunk size (its first byte picks 1 to 64) and a
// body (the rest).
struct ChunkedFuzzInput {
  size_t chunk_size = 0;
  std::string_view body;
};

// Empty for an empty input.
inline std::optional<ChunkedFuzzInput> ReadChunkedFuzzInput(const uint8_t* data, size_t size) {
  if (size == 0) return std::nullopt;
  return ChunkedFuzzInput{1 + data[0] % 64u,
                          std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
}

// Feeds `body` to `decoder` in pieces of `chunk_size` with `on_each`; the
// first failing Feed's status (nothing more is fed after it), else OK.
template <typename Decoder, typename OnEach>
absl::Status FeedInChunks(Decoder& decoder, std::string_view body, size_t chunk_size,
                          const OnEach& on_each) {
  for (size_t offset = 0; offset < body.size(); offset += chunk_size) {
    absl::Status status = decoder.Feed(body.substr(offset, chunk_size), on_each);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_CHUNKED_FUZZ_INPUT_H_
