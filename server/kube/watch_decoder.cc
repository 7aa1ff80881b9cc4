#include "server/kube/watch_decoder.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace informerd::kube {
namespace {

constexpr size_t kRetainedBufferBytes = size_t{1} << 20;

}  // namespace

WatchDecoder::WatchDecoder(size_t max_frame_bytes)
    : max_frame_bytes_(max_frame_bytes) {}

absl::Status WatchDecoder::FrameTooLarge() const {
  return absl::ResourceExhaustedError(
      absl::StrCat("watch frame exceeds the limit of ", max_frame_bytes_,
                   " bytes"));
}

absl::Status WatchDecoder::Emit(
    std::string_view line,
    absl::FunctionRef<absl::Status(std::string_view)> on_frame) {
  if (line.size() > max_frame_bytes_) return FrameTooLarge();
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(line.data(), line.size()));
  if (trimmed.empty()) return absl::OkStatus();
  return on_frame(std::string_view(trimmed.data(), trimmed.size()));
}

absl::Status WatchDecoder::Feed(
    std::string_view chunk,
    absl::FunctionRef<absl::Status(std::string_view)> on_frame) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    if (newline == std::string_view::npos) {
      if (partial_.size() + chunk.size() > max_frame_bytes_) {
        return FrameTooLarge();
      }
      partial_.append(chunk);
      return absl::OkStatus();
    }
    const std::string_view head = chunk.substr(0, newline);
    chunk.remove_prefix(newline + 1);
    absl::Status status;
    if (partial_.empty()) {
      // The common case: the whole frame is in this chunk, so no copy.
      status = Emit(head, on_frame);
    } else {
      if (partial_.size() + head.size() > max_frame_bytes_) {
        return FrameTooLarge();
      }
      partial_.append(head);
      status = Emit(partial_, on_frame);
      // Do not keep a huge object's buffer alive for the rest of the stream.
      if (partial_.capacity() > kRetainedBufferBytes) {
        std::string().swap(partial_);
      } else {
        partial_.clear();
      }
    }
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace informerd::kube
