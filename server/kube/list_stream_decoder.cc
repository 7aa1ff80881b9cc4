#include "server/kube/list_stream_decoder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/json/json_scan.h"

namespace informerd::kube {
ListStreamDecoder::ListStreamDecoder(size_t max_item_bytes, std::vector<std::string> erase_member)
    : max_item_bytes_(max_item_bytes), cut_(std::move(erase_member)) {}

absl::Status ListStreamDecoder::Fail(std::string reason) {
  failed_ = true;
  return absl::DataLossError(absl::StrCat("list body: ", reason));
}

absl::Status ListStreamDecoder::Feed(std::string_view chunk, OnItem on_item) {
  if (failed_) return absl::FailedPreconditionError("list body: decoder failed earlier");
  // Bytes of the current item are copied in runs, not one by one.
  size_t item_run = 0;
  for (size_t i = 0; i < chunk.size(); ++i) {
    absl::Status status;
    switch (mode_) {
      case Mode::kInItem:
        i = ScanItem(chunk, i,
                     static_cast<int64_t>(item_.size()) - static_cast<int64_t>(item_run));
        if (i == chunk.size()) break;  // the item goes on in the next chunk
        status = CompleteItem(chunk.substr(item_run, i + 1 - item_run), on_item);
        break;
      case Mode::kBetweenItems:
        BetweenItems(chunk[i], i, &item_run);
        break;
      case Mode::kInScalar:
        status = InScalar(chunk, i, item_run, on_item);
        break;
      default:
        status = InEnvelope(chunk[i]);
        break;
    }
    if (!status.ok()) return status;
  }
  if (mode_ == Mode::kInItem || mode_ == Mode::kInScalar) {
    return AppendToItem(chunk.substr(item_run));
  }
  return absl::OkStatus();
}

void ListStreamDecoder::EndItems() {
  depth_ = 1;
  rest_.append("[]");
  mode_ = Mode::kBody;
}

void ListStreamDecoder::BetweenItems(char c, size_t i, size_t* item_run) {
  if (json::IsJsonSpace(c) || c == ',') return;
  if (c == ']') {
    EndItems();
    return;
  }
  *item_run = i;
  if (c == '{' || c == '[') {
    mode_ = Mode::kInItem;
    depth_ = 3;
    cut_.Start(/*depth=*/3);
    if (c == '[') cut_.Stop();  // not an object: nothing to cut
  } else {
    // A scalar element (not a Kubernetes object; the caller rejects it).
    mode_ = Mode::kInScalar;
    in_string_ = c == '"';
  }
}

absl::Status ListStreamDecoder::InScalar(std::string_view chunk, size_t i, size_t item_run,
                                         OnItem on_item) {
  const char c = chunk[i];
  if (in_string_) {
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
    }
    return absl::OkStatus();
  }
  if (!json::IsJsonSpace(c) && c != ',' && c != ']') return absl::OkStatus();
  absl::Status status = CompleteItem(chunk.substr(item_run, i - item_run), on_item);
  if (status.ok() && c == ']') EndItems();
  return status;
}

// Outside the items: the envelope, kept whole in rest_, with the top-level
// keys tracked to find "items".
absl::Status ListStreamDecoder::InEnvelope(char c) {
  if (rest_.size() >= kMaxRestBytes) {
    failed_ = true;
    return absl::ResourceExhaustedError("list body: more than 1 MiB outside its items");
  }
  if (in_string_) {
    rest_.push_back(c);
    if (escaped_) {
      escaped_ = false;
      if (reading_key_) key_.push_back(c);
    } else if (c == '\\') {
      escaped_ = true;
      if (reading_key_) key_.push_back(c);
    } else if (c == '"') {
      in_string_ = false;
      reading_key_ = false;
    } else if (reading_key_) {
      key_.push_back(c);
    }
    return absl::OkStatus();
  }
  if (json::IsJsonSpace(c)) return absl::OkStatus();
  if (mode_ == Mode::kAfterBody) return Fail("data after the list object");
  if (mode_ == Mode::kBeforeBody) {
    if (c != '{') return Fail("not a JSON object");
    mode_ = Mode::kBody;
    depth_ = 1;
    expect_key_ = true;
    rest_.push_back(c);
    return absl::OkStatus();
  }
  if (c == '"') {
    in_string_ = true;
    if (depth_ == 1 && expect_key_) {
      reading_key_ = true;
      expect_key_ = false;
      key_.clear();
    }
    rest_.push_back(c);
    return absl::OkStatus();
  }
  if (depth_ == 1 && c == ':') {
    value_key_ = key_;
  } else if (depth_ == 1 && c == ',') {
    expect_key_ = true;
  } else if (c == '[' && depth_ == 1 && value_key_ == "items") {
    // The items array: its elements go to on_item, not to rest_.
    depth_ = 2;
    value_key_.clear();
    mode_ = Mode::kBetweenItems;
    return absl::OkStatus();
  } else if (c == '{' || c == '[') {
    ++depth_;
  } else if (c == '}' || c == ']') {
    if (--depth_ == 0) mode_ = Mode::kAfterBody;
    if (depth_ < 0) return Fail("unbalanced brackets");
  }
  rest_.push_back(c);
  return absl::OkStatus();
}

absl::Status ListStreamDecoder::AppendToItem(std::string_view bytes) {
  item_.append(bytes.data(), bytes.size());
  if (item_.size() <= max_item_bytes_) return absl::OkStatus();
  failed_ = true;
  return absl::ResourceExhaustedError(
      absl::StrCat("list body: an item is larger than ", max_item_bytes_, " bytes"));
}

absl::Status ListStreamDecoder::CompleteItem(std::string_view tail, OnItem on_item) {
  if (absl::Status status = AppendToItem(tail); !status.ok()) return status;
  if (mode_ == Mode::kInItem && cut_.found()) {
    item_.erase(cut_.cut_begin(), cut_.cut_end() - cut_.cut_begin());
  }
  absl::Status status = on_item(&item_);
  item_.clear();
  if (!status.ok()) failed_ = true;
  mode_ = Mode::kBetweenItems;
  return status;
}

// Most of an item's bytes are inside strings, so strings are skipped with
// memchr rather than byte by byte: this loop is most of a cold sync's parse.
// The cut's search sees the characters between strings, and the keys it
// asks for.
size_t ListStreamDecoder::ScanItem(std::string_view chunk, size_t i, int64_t item_offset) {
  const char* const data = chunk.data();
  const size_t end = chunk.size();
  int depth = depth_;
  bool in_string = in_string_;
  bool escaped = escaped_;
  while (i < end) {
    if (escaped) {
      escaped = false;
      ++i;
      continue;
    }
    if (in_string) {
      const size_t stop = json::FindQuoteOrBackslash(data, i, end);
      if (cut_.reading_key()) cut_.AppendKeyBytes(data + i, stop - i);
      i = stop;
      if (i == end) break;
      if (data[i] == '\\') {
        escaped = true;
        if (cut_.reading_key()) cut_.OnKeyEscape();
      } else {
        in_string = false;
        if (cut_.reading_key()) cut_.OnKeyEnd();
      }
      ++i;
      continue;
    }
    const char c = data[i];
    if (cut_.searching()) cut_.OnStructure(c, depth, item_offset + static_cast<int64_t>(i));
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 2) {
      break;
    }
    ++i;
  }
  depth_ = depth;
  in_string_ = in_string;
  escaped_ = escaped;
  return i;
}

absl::StatusOr<std::string> ListStreamDecoder::Finish() {
  if (failed_) return absl::FailedPreconditionError("list body: decoder failed earlier");
  if (mode_ != Mode::kAfterBody) return Fail("truncated");
  return std::move(rest_);
}

}  // namespace informerd::kube
