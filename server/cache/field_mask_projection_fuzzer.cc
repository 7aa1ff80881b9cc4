// libFuzzer target: for any JSON object RapidJSON accepts and any mask, the
// masked-JSON builder writes what pruning the parsed document writes.
//
// Input: a mask's paths separated by ',' up to the first '\n', then JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "server/cache/field_mask.h"
#include "server/cache/field_mask_oracle.h"
#include "server/cache/field_mask_projection.h"
#include "server/cache/json_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  std::vector<std::string> paths;
  std::string_view list = input.substr(0, newline);
  while (!list.empty()) {
    const size_t comma = list.find(',');
    paths.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  auto mask = informerd::cache::FieldMask::Parse(paths);
  if (!mask.ok() || mask->empty()) return 0;
  rapidjson::Document document;
  const std::string_view text = input.substr(newline + 1);
  document.Parse(text.data(), text.size());
  if (document.HasParseError() || !document.IsObject()) return 0;
  rapidjson::StringBuffer compact;
  informerd::cache::JsonWriter writer(compact);
  document.Accept(writer);
  const std::string json(compact.GetString(), compact.GetSize());
  // Both sides must also agree on text the builder cut short: any prefix
  // stays inside its input.
  (void)informerd::cache::FieldMaskProjection(json.substr(0, json.size() / 2), *mask);
  if (informerd::cache::FieldMaskProjection(json, *mask) !=
      informerd::cache::PrunedJson(json, *mask)) {
    abort();
  }
  return 0;
}
