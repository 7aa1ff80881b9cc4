#include "server/cache/metadata_projection.h"

#include "server/json/json_scan.h"

namespace informerd::cache {
namespace {

// Past the string whose opening quote is at data[i].
size_t SkipString(const char* data, size_t i, size_t end) {
  ++i;
  while (i < end) {
    i = json::FindQuoteOrBackslash(data, i, end);
    if (i >= end) return end;
    if (data[i] == '"') return i + 1;
    i += 2;  // an escape: the next byte cannot end the string
  }
  return end;
}

// Past the value that starts at data[i].
size_t SkipValue(const char* data, size_t i, size_t end) {
  if (i >= end) return end;
  if (data[i] == '"') return SkipString(data, i, end);
  if (data[i] != '{' && data[i] != '[') {
    while (i < end && data[i] != ',' && data[i] != '}' && data[i] != ']') ++i;
    return i;
  }
  int depth = 0;
  while (i < end) {
    const char c = data[i];
    if (c == '"') {
      i = SkipString(data, i, end);
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
    ++i;
  }
  return end;
}

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
