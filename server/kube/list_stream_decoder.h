// ListStreamDecoder: splits a Kubernetes list response into its items as the
// body streams in, so a LIST of 100 MB is parsed item by item while it
// arrives, and is never held whole.
//
// Fed the body {"kind":"ConfigMapList","metadata":{...},"items":[{...},...]}
// in arbitrary chunks, it hands out the raw JSON text of each element of the
// top-level "items" array as soon as the element is complete, and keeps the
// rest of the body (with "items" left as an empty array) for Finish, which
// returns it for the caller to read metadata.resourceVersion and continue.
// The apiserver writes metadata before items, but nothing here relies on it.
//
// It can also cut one member out of every item's text on the way (by
// default none): the Reflector has it cut metadata.managedFields, which the
// cache drops anyway and which is half of a typical object's bytes and more
// than half of its parse. The member is found during the scan the split
// needs anyway, so it is never parsed.
//
// Thread safety: none; one decoder per response.
#ifndef INFORMERD_SERVER_KUBE_LIST_STREAM_DECODER_H_
#define INFORMERD_SERVER_KUBE_LIST_STREAM_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace informerd::kube {

class ListStreamDecoder {
 public:
  static constexpr size_t kDefaultMaxItemBytes = size_t{64} << 20;
  static constexpr size_t kMaxRestBytes = size_t{1} << 20;

  // `erase_member`: a path of keys from an item's root, e.g. {"metadata",
  // "managedFields"}; empty to cut nothing. Each key is looked up as
  // RapidJSON's FindMember does (the first member of that name), and a key
  // written with escapes at a level being searched ends the search in that
  // item, whose text is then left whole. Inside the cut value only strings
  // and bracket pairs are checked, not the JSON grammar: name only members
  // the caller drops.
  explicit ListStreamDecoder(size_t max_item_bytes = kDefaultMaxItemBytes,
                             std::vector<std::string> erase_member = {});

  using OnItem = absl::FunctionRef<absl::Status(std::string* item)>;

  // Calls `on_item` with the text of each element of "items" that `chunk`
  // completes, in a buffer the callee may modify (to parse it in situ) and
  // that is valid only during the call. An element that is not an object is
  // passed on too, for the caller to reject. Stops at and returns the first
  // error from `on_item`; DATA_LOSS if the body is not a JSON object;
  // RESOURCE_EXHAUSTED if an item or the rest exceeds its cap.
  // After an error the decoder is unusable.
  absl::Status Feed(std::string_view chunk, OnItem on_item);

  // The body without its items, once the whole body was fed; DATA_LOSS if
  // it ended inside a value.
  absl::StatusOr<std::string> Finish();

 private:
  enum class Mode { kBeforeBody, kBody, kBetweenItems, kInItem, kInScalar, kAfterBody };

  absl::Status Fail(std::string reason);
  // Adds bytes to the item being assembled; RESOURCE_EXHAUSTED past the cap.
  absl::Status AppendToItem(std::string_view bytes);
  // Adds the item's last bytes and hands it to `on_item`.
  absl::Status CompleteItem(std::string_view tail, OnItem on_item);
  // Advances through the current item from chunk[i]: the index of the
  // bracket that closes it, or chunk.size() if the chunk ends first.
  // `item_offset` is the offset in the item of chunk[0] (negative when the
  // item starts inside the chunk).
  // REQUIRES: mode_ == Mode::kInItem.
  size_t ScanItem(std::string_view chunk, size_t i, int64_t item_offset);

  // The search for erase_member_ in the current item. `offset` is the
  // character's offset in the item and `depth` the depth before it.
  void StartEraseSearch();
  void TrackStructure(char c, int depth, int64_t offset);
  void TrackCutValue(char c, int64_t offset);
  void KeyRead();
  // Ends the search, keeping what it found.
  void StopEraseSearch() {
    erase_.searching = false;
    erase_.reading_key = false;
  }

  // Where the search in the current item stands; see TrackStructure.
  struct EraseSearch {
    enum class Phase { kMembers, kAfterKey, kBeforeValue, kInValue };
    bool searching = false;
    size_t level = 0;  // keys of the path matched; the object searched is at depth 3 + level
    Phase phase = Phase::kMembers;
    bool expect_key = false;
    bool reading_key = false;
    std::string key;
    int64_t member_begin = -1;  // the matched key's opening quote
    int64_t last_comma = -1;    // the last ',' between members of the object searched
    // Brackets open inside the value being cut, a bit each (1 for '{'), so
    // that a '}' closing a '[' is caught; deeper than 64 is left whole.
    uint64_t open_brackets = 0;
    int open_count = 0;
    int64_t erase_begin = -1;   // the bytes to cut, once found
    int64_t erase_end = -1;
  };

  const size_t max_item_bytes_;
  const std::vector<std::string> erase_member_;
  EraseSearch erase_;
  Mode mode_ = Mode::kBeforeBody;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  // At depth 1: whether the next string is a key, the key being read, and
  // the key whose value comes next.
  bool expect_key_ = false;
  bool reading_key_ = false;
  std::string key_;
  std::string value_key_;
  std::string item_;
  std::string rest_;
  bool failed_ = false;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_LIST_STREAM_DECODER_H_
