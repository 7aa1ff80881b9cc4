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

absl::Status WatchDecoder::EmitLine(OnFrame on_frame) {
  size_t end = partial_.size();
  while (end > 0 && absl::ascii_isspace(static_cast<unsigned char>(partial_[end - 1]))) --end;
  partial_.resize(end);
  size_t begin = 0;
  while (begin < end && absl::ascii_isspace(static_cast<unsigned char>(partial_[begin]))) ++begin;
  partial_.erase(0, begin);
  absl::Status status = partial_.empty() ? absl::OkStatus() : on_frame(&partial_);
  // Do not keep a huge object's buffer alive for the rest of the stream.
  if (partial_.capacity() > kRetainedBufferBytes) {
    std::string().swap(partial_);
  } else {
    partial_.clear();
  }
  return status;
}

absl::Status WatchDecoder::Feed(std::string_view chunk, OnFrame on_frame) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    const std::string_view head = chunk.substr(0, newline);
    if (partial_.size() + head.size() > max_frame_bytes_) return FrameTooLarge();
    partial_.append(head.data(), head.size());
    if (newline == std::string_view::npos) return absl::OkStatus();
    chunk.remove_prefix(newline + 1);
    if (absl::Status status = EmitLine(on_frame); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace informerd::kube
