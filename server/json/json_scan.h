// Byte-level helpers for the scanners that walk JSON text without parsing
// it (ListStreamDecoder, MemberCut, the metadata and field-mask projections).
//
// Thread safety: pure functions.
#ifndef INFORMERD_SERVER_JSON_JSON_SCAN_H_
#define INFORMERD_SERVER_JSON_JSON_SCAN_H_

#include <cstddef>
#include <cstring>

namespace informerd::json {

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The position of the first '"' or '\\' in data[from, end), or end. Most of
// a Kubernetes object's bytes are inside strings, which the scanners skip
// with this rather than byte by byte.
inline size_t FindQuoteOrBackslash(const char* data, size_t from, size_t end) {
  const char* const begin = data + from;
  const char* const quote = static_cast<const char*>(std::memchr(begin, '"', end - from));
  const char* const stop = quote == nullptr ? data + end : quote;
  const char* const backslash = static_cast<const char*>(std::memchr(begin, '\\', stop - begin));
  return (backslash == nullptr ? stop : backslash) - data;
}

// Past the string whose opening quote is at data[i], in compact JSON (as
// JsonWriter writes it); `end` when it is not closed.
inline size_t SkipString(const char* data, size_t i, size_t end) {
  ++i;
  while (i < end) {
    i = FindQuoteOrBackslash(data, i, end);
    if (i >= end) return end;
    if (data[i] == '"') return i + 1;
    i += 2;  // an escape: the next byte cannot end the string
  }
  return end;
}

// Past the compact JSON value that starts at data[i]; at most `end`.
inline size_t SkipValue(const char* data, size_t i, size_t end) {
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

}  // namespace informerd::json

#endif  // INFORMERD_SERVER_JSON_JSON_SCAN_H_
