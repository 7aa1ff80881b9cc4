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
// default none; see MemberCut): the Reflector has it cut
// metadata.managedFields, found during the scan the split needs anyway.
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
#include "server/kube/member_cut.h"

namespace informerd::kube {

class ListStreamDecoder {
 public:
  static constexpr size_t kDefaultMaxItemBytes = size_t{64} << 20;
  static constexpr size_t kMaxRestBytes = size_t{1} << 20;

  // `erase_member`: a path of keys from an item's root, e.g. {"metadata",
  // "managedFields"}, cut by MemberCut's rules; empty to cut nothing. Name
  // only members the caller drops (the cut value is not parsed).
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
  // One byte between the items: starts the next item at chunk index `i`
  // (recorded in *item_run), or ends the items array.
  // REQUIRES: mode_ == Mode::kBetweenItems.
  void BetweenItems(char c, size_t i, size_t* item_run);
  // One byte of a scalar item that started at chunk[item_run]; completes it
  // at the delimiter after it. REQUIRES: mode_ == Mode::kInScalar.
  absl::Status InScalar(std::string_view chunk, size_t i, size_t item_run, OnItem on_item);
  // One byte of the list object outside its items array, kept in rest_;
  // finds the top-level "items" key. REQUIRES: mode_ is kBeforeBody, kBody
  // or kAfterBody.
  absl::Status InEnvelope(char c);
  // After the items array's closing bracket: back to the envelope.
  void EndItems();

  const size_t max_item_bytes_;
  MemberCut cut_;  // of erase_member, in the current item
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
