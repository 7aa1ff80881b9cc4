#include "server/kube/list_stream_decoder.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace informerd::kube {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The position of the first '"' or '\\' in data[from, end), or end.
size_t FindQuoteOrBackslash(const char* data, size_t from, size_t end) {
  const char* const begin = data + from;
  const char* const quote = static_cast<const char*>(std::memchr(begin, '"', end - from));
  const char* const stop = quote == nullptr ? data + end : quote;
  const char* const backslash =
      static_cast<const char*>(std::memchr(begin, '\\', stop - begin));
  return (backslash == nullptr ? stop : backslash) - data;
}

}  // namespace

ListStreamDecoder::ListStreamDecoder(size_t max_item_bytes, std::vector<std::string> erase_member)
    : max_item_bytes_(max_item_bytes), erase_member_(std::move(erase_member)) {}

absl::Status ListStreamDecoder::Fail(std::string reason) {
  failed_ = true;
  return absl::DataLossError(absl::StrCat("list body: ", reason));
}

absl::Status ListStreamDecoder::Feed(std::string_view chunk, OnItem on_item) {
  if (failed_) return absl::FailedPreconditionError("list body: decoder failed earlier");
  // Bytes of the current item are copied in runs, not one by one.
  size_t item_run = 0;
  for (size_t i = 0; i < chunk.size(); ++i) {
    const char c = chunk[i];
    if (mode_ == Mode::kInItem) {
      i = ScanItem(chunk, i,
                   static_cast<int64_t>(item_.size()) - static_cast<int64_t>(item_run));
      if (i == chunk.size()) break;  // the item goes on in the next chunk
      absl::Status status =
          CompleteItem(chunk.substr(item_run, i + 1 - item_run), on_item);
      if (!status.ok()) return status;
      continue;
    }

    if (mode_ == Mode::kBetweenItems) {
      if (IsSpace(c) || c == ',') continue;
      if (c == ']') {
        depth_ = 1;
        rest_.append("[]");
        mode_ = Mode::kBody;
        continue;
      }
      item_run = i;
      if (c == '{' || c == '[') {
        mode_ = Mode::kInItem;
        depth_ = 3;
        StartEraseSearch();
        if (c == '[') StopEraseSearch();  // not an object: nothing to cut
      } else {
        // A scalar element (not a Kubernetes object; the caller rejects it).
        mode_ = Mode::kInScalar;
        in_string_ = c == '"';
      }
      continue;
    }

    if (mode_ == Mode::kInScalar) {
      if (in_string_) {
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      if (!IsSpace(c) && c != ',' && c != ']') continue;
      absl::Status status = CompleteItem(chunk.substr(item_run, i - item_run), on_item);
      if (!status.ok()) return status;
      if (c == ']') {
        depth_ = 1;
        rest_.append("[]");
        mode_ = Mode::kBody;
      }
      continue;
    }

    // Outside the items: the envelope, kept whole in rest_.
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
      continue;
    }
    if (IsSpace(c)) continue;
    if (mode_ == Mode::kAfterBody) return Fail("data after the list object");
    if (mode_ == Mode::kBeforeBody) {
      if (c != '{') return Fail("not a JSON object");
      mode_ = Mode::kBody;
      depth_ = 1;
      expect_key_ = true;
      rest_.push_back(c);
      continue;
    }
    if (c == '"') {
      in_string_ = true;
      if (depth_ == 1 && expect_key_) {
        reading_key_ = true;
        expect_key_ = false;
        key_.clear();
      }
      rest_.push_back(c);
      continue;
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
      continue;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) mode_ = Mode::kAfterBody;
      if (depth_ < 0) return Fail("unbalanced brackets");
    }
    rest_.push_back(c);
  }
  if (mode_ == Mode::kInItem || mode_ == Mode::kInScalar) {
    return AppendToItem(chunk.substr(item_run));
  }
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
  if (mode_ == Mode::kInItem && erase_.erase_end >= 0) {
    item_.erase(erase_.erase_begin, erase_.erase_end - erase_.erase_begin);
  }
  absl::Status status = on_item(&item_);
  item_.clear();
  if (!status.ok()) failed_ = true;
  mode_ = Mode::kBetweenItems;
  return status;
}

// Inside the value to cut: finds where it ends, checking that its brackets
// pair up (the cut value is never parsed, so a mismatch would otherwise go
// unseen and a broken item could come out whole). Called for every
// character between strings of the value, so it keeps to a switch and bits.
inline void ListStreamDecoder::TrackCutValue(char c, int64_t offset) {
  switch (c) {
    case '{':
    case '[':
      if (erase_.open_count == 64) {
        StopEraseSearch();
        return;
      }
      erase_.open_brackets = (erase_.open_brackets << 1) | (c == '{' ? 1 : 0);
      ++erase_.open_count;
      return;
    case '}':
    case ']':
      if (erase_.open_count > 0) {
        if ((erase_.open_brackets & 1) != (c == '}' ? 1u : 0u)) {
          StopEraseSearch();
          return;
        }
        erase_.open_brackets >>= 1;
        --erase_.open_count;
        return;
      }
      if (c == ']') {
        StopEraseSearch();  // an object closed by a bracket: left to the parser
        return;
      }
      // The last member: the comma before it goes with it, if any.
      erase_.erase_begin = erase_.last_comma >= 0 ? erase_.last_comma : erase_.member_begin;
      erase_.erase_end = offset;
      StopEraseSearch();
      return;
    case ',':
      if (erase_.open_count > 0) return;
      // Not the last member: the comma after it goes with it.
      erase_.erase_begin = erase_.member_begin;
      erase_.erase_end = offset + 1;
      StopEraseSearch();
      return;
    default:
      return;  // a scalar's characters, a string's opening quote, white space
  }
}

// Most of an item's bytes are inside strings, so strings are skipped with
// memchr rather than byte by byte: this loop is most of a cold sync's parse.
// The search for erase_member_ only looks at the bytes between strings, and
// at keys of the objects on its path.
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
      const size_t stop = FindQuoteOrBackslash(data, i, end);
      if (erase_.reading_key) erase_.key.append(data + i, stop - i);
      i = stop;
      if (i == end) break;
      if (data[i] == '\\') {
        escaped = true;
        // A key spelled with escapes may still be the one searched for;
        // RapidJSON would know, this scan does not.
        if (erase_.reading_key) StopEraseSearch();
      } else {
        in_string = false;
        if (erase_.reading_key) KeyRead();
      }
      ++i;
      continue;
    }
    const char c = data[i];
    if (erase_.searching) {
      const int64_t offset = item_offset + static_cast<int64_t>(i);
      if (erase_.phase == EraseSearch::Phase::kInValue) {
        TrackCutValue(c, offset);
      } else {
        TrackStructure(c, depth, offset);
      }
    }
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

void ListStreamDecoder::StartEraseSearch() {
  erase_.searching = !erase_member_.empty();
  erase_.level = 0;
  erase_.phase = EraseSearch::Phase::kMembers;
  erase_.expect_key = true;
  erase_.reading_key = false;
  erase_.key.clear();
  erase_.member_begin = -1;
  erase_.last_comma = -1;
  erase_.open_brackets = 0;
  erase_.open_count = 0;
  erase_.erase_begin = -1;
  erase_.erase_end = -1;
}

// Follows the members of the object at depth 3 + level, the item itself or
// the value of the path's keys matched so far, from one character between
// strings to the next.
void ListStreamDecoder::TrackStructure(char c, int depth, int64_t offset) {
  const int searched_depth = 3 + static_cast<int>(erase_.level);
  switch (erase_.phase) {
    case EraseSearch::Phase::kMembers:
      if (depth != searched_depth) return;  // inside another member's value
      if (c == '"' && erase_.expect_key) {
        erase_.expect_key = false;
        erase_.reading_key = true;
        erase_.key.clear();
        erase_.member_begin = offset;
      } else if (c == ',') {
        erase_.expect_key = true;
        erase_.last_comma = offset;
      } else if (c == '}' || c == ']') {
        StopEraseSearch();  // the object ends without the key
      }
      return;
    case EraseSearch::Phase::kAfterKey:
      if (c == ':') erase_.phase = EraseSearch::Phase::kBeforeValue;
      return;
    case EraseSearch::Phase::kBeforeValue:
      if (IsSpace(c)) return;
      if (erase_.level + 1 < erase_member_.size()) {
        // An inner key of the path: its value must be an object to search.
        if (c != '{') {
          StopEraseSearch();
          return;
        }
        ++erase_.level;
        erase_.phase = EraseSearch::Phase::kMembers;
        erase_.expect_key = true;
        erase_.last_comma = -1;
        return;
      }
      erase_.phase = EraseSearch::Phase::kInValue;
      TrackCutValue(c, offset);
      return;
    case EraseSearch::Phase::kInValue:
      TrackCutValue(c, offset);
      return;
  }
}

void ListStreamDecoder::KeyRead() {
  erase_.reading_key = false;
  if (erase_.key == erase_member_[erase_.level]) {
    erase_.phase = EraseSearch::Phase::kAfterKey;
  }
}

absl::StatusOr<std::string> ListStreamDecoder::Finish() {
  if (failed_) return absl::FailedPreconditionError("list body: decoder failed earlier");
  if (mode_ != Mode::kAfterBody) return Fail("truncated");
  return std::move(rest_);
}

}  // namespace informerd::kube
