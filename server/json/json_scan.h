// Byte-level helpers for the scanners that walk JSON text without parsing
// it (ListStreamDecoder, MemberCut, the metadata projection).
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

}  // namespace informerd::json

#endif  // INFORMERD_SERVER_JSON_JSON_SCAN_H_
