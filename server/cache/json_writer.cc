#include "server/cache/json_writer.h"

#include <array>

namespace informerd::cache {
namespace {

// What follows the backslash for each byte that JSON requires escaped, as
// RapidJSON writes it; 0 for bytes copied as they are (UTF-8 included).
constexpr std::array<char, 256> EscapeTable() {
  std::array<char, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = 'u';
  table['\b'] = 'b';
  table['\t'] = 't';
  table['\n'] = 'n';
  table['\f'] = 'f';
  table['\r'] = 'r';
  table['"'] = '"';
  table['\\'] = '\\';
  return table;
}

constexpr std::array<char, 256> kEscape = EscapeTable();
constexpr char kHexDigits[] = "0123456789ABCDEF";

}  // namespace

bool JsonWriter::String(const Ch* text, rapidjson::SizeType length, bool copy) {
  if (length >= kVectorMinLength) return Writer::String(text, length, copy);
  Prefix(rapidjson::kStringType);
  WriteShortString(text, length);
  return EndValue(true);
}

void JsonWriter::WriteShortString(const Ch* text, size_t length) {
  // Room for the worst case (every byte as \u00XX), given back after.
  const size_t reserved = 2 + length * 6;
  Ch* const begin = os_->Push(reserved);
  Ch* out = begin;
  *out++ = '"';
  for (size_t i = 0; i < length; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const char escape = kEscape[c];
    if (escape == 0) {
      *out++ = static_cast<Ch>(c);
      continue;
    }
    *out++ = '\\';
    *out++ = escape;
    if (escape == 'u') {
      *out++ = '0';
      *out++ = '0';
      *out++ = kHexDigits[c >> 4];
      *out++ = kHexDigits[c & 15];
    }
  }
  *out++ = '"';
  os_->Pop(reserved - static_cast<size_t>(out - begin));
}

}  // namespace informerd::cache
