// libFuzzer target: ListStreamDecoder must survive any body in any chunking,
// split it the same way whatever the chunk size, and, for a body RapidJSON
// reads as a list object with one "items" array (and no escapes), hand out
// exactly that array's elements; told to cut metadata.managedFields, each
// element as RapidJSON reads it with that member erased.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidjson/document.h"
#include "server/kube/chunked_fuzz_input.h"
#include "server/kube/list_stream_decoder.h"
#include "server/kube/member_cut_oracle.h"

namespace {

struct Decoded {
  std::vector<std::string> items;
  bool ok = false;
};

Decoded Decode(std::string_view body, size_t chunk_size,
               std::vector<std::string> erase_member = {}) {
  informerd::kube::ListStreamDecoder decoder(
      informerd::kube::ListStreamDecoder::kDefaultMaxItemBytes, std::move(erase_member));
  Decoded decoded;
  absl::Status status =
      informerd::kube::FeedInChunks(decoder, body, chunk_size, [&](std::string* item) {
        if (item->empty()) abort();
        decoded.items.push_back(*item);
        return absl::OkStatus();
      });
  if (!status.ok()) {
    if (status.code() != absl::StatusCode::kDataLoss &&
        status.code() != absl::StatusCode::kResourceExhausted) {
      abort();
    }
    return decoded;
  }
  absl::StatusOr<std::string> rest = decoder.Finish();
  if (!rest.ok() && rest.status().code() != absl::StatusCode::kDataLoss) abort();
  decoded.ok = rest.ok();
  return decoded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::optional<informerd::kube::ChunkedFuzzInput> input =
      informerd::kube::ReadChunkedFuzzInput(data, size);
  if (!input) return 0;
  const size_t chunk_size = input->chunk_size;
  const std::string body(input->body);
  const Decoded whole = Decode(body, body.size() + 1);
  const Decoded chunked = Decode(body, chunk_size);
  if (whole.ok != chunked.ok || whole.items != chunked.items) abort();
  const std::vector<std::string> managed_fields = {"metadata", "managedFields"};
  const Decoded cut_whole = Decode(body, body.size() + 1, managed_fields);
  const Decoded cut_chunked = Decode(body, chunk_size, managed_fields);
  if (cut_whole.ok != cut_chunked.ok || cut_whole.items != cut_chunked.items) abort();
  if (cut_whole.ok != whole.ok || cut_whole.items.size() != whole.items.size()) abort();

  // Where RapidJSON reads differently, and no apiserver writes: a key
  // spelled with escapes (it\u0065ms) is "items" to RapidJSON, not to the
  // decoder, which matches the key as written; RapidJSON takes a NUL for
  // the end of the input, where the decoder refuses what follows; and it
  // skips a leading UTF-8 byte order mark byte by byte (EF, BB and BF each
  // when present: "\xBF{...}" parses), where the decoder wants '{'.
  if (body.find_first_of(std::string_view("\\\0", 2)) != std::string::npos) return 0;
  if (!body.empty() && (static_cast<unsigned char>(body[0]) == 0xEF ||
                        static_cast<unsigned char>(body[0]) == 0xBB ||
                        static_cast<unsigned char>(body[0]) == 0xBF)) {
    return 0;
  }
  rapidjson::Document document;
  document.Parse(body.data(), body.size());
  if (document.HasParseError() || !document.IsObject()) return 0;
  int lists = 0;
  for (const auto& member : document.GetObject()) {
    if (std::string_view(member.name.GetString(), member.name.GetStringLength()) == "items") {
      ++lists;
    }
  }
  const auto items = document.FindMember("items");
  if (lists != 1 || !items->value.IsArray()) return 0;
  if (!whole.ok || whole.items.size() != items->value.Size()) abort();

  // The cut items: what RapidJSON reads in the original, less the first
  // metadata.managedFields it finds.
  for (size_t i = 0; i < whole.items.size(); ++i) {
    const std::optional<std::string> expected =
        informerd::kube::WrittenWithoutMember(whole.items[i], managed_fields);
    if (!expected) abort();  // RapidJSON read the whole body
    rapidjson::Document cut;
    cut.Parse(cut_whole.items[i].data(), cut_whole.items[i].size());
    if (cut.HasParseError() || informerd::kube::Written(cut) != *expected) abort();
  }
  return 0;
}
