#include "server/cache/metadata_projection.h"

#include "server/json/json_scan.h"

namespace informerd::cache {
namespace {

using json::SkipString;
using json::SkipValue;

bool IsMetadataMember(std::string_view quoted_key) {
  return quoted_key == "\"apiVersion\"" || quoted_key == "\"kind\"" ||
         quoted_key == "\"metadata\"";
}

}  // namespace

std::string MetadataProjection(std::string_view json) {
  const char* const data = json.data();
  const size_t end = json.size();
  std::string out = "{";
  if (end == 0 || data[0] != '{') return out + "}";
  size_t i = 1;
  while (i < end && data[i] == '"') {
    const size_t key_end = SkipString(data, i, end);
    if (key_end >= end || data[key_end] != ':') break;
    const size_t value_end = SkipValue(data, key_end + 1, end);
    // Keys are compared as written; JsonWriter escapes none of these three.
    if (IsMetadataMember(json.substr(i, key_end - i))) {
      if (out.size() > 1) out.push_back(',');
      out.append(json.substr(i, value_end - i));
    }
    i = value_end;
    if (i < end && data[i] == ',') ++i;
  }
  out.push_back('}');
  return out;
}

}  // namespace informerd::cache
