// libFuzzer target: EscapeQueryValue must turn any value (a tenant's
// selector, a continue token, a namespace) into unreserved characters and
// %XX escapes only, at most three bytes per input byte, that decode back to
// the value; AppendQueryParam adds exactly one separator and the escaped
// value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "server/kube/url_query.h"

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lower case is never written
}

bool Unreserved(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view value(reinterpret_cast<const char*>(data), size);
  const std::string escaped = informerd::kube::EscapeQueryValue(value);
  if (escaped.size() > 3 * value.size()) abort();
  std::string decoded;
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] != '%') {
      if (!Unreserved(escaped[i])) abort();
      decoded.push_back(escaped[i]);
      continue;
    }
    if (i + 2 >= escaped.size()) abort();
    const int high = HexValue(escaped[i + 1]);
    const int low = HexValue(escaped[i + 2]);
    if (high < 0 || low < 0) abort();
    const char byte = static_cast<char>(high << 4 | low);
    if (Unreserved(byte)) abort();  // escaped needlessly
    decoded.push_back(byte);
    i += 2;
  }
  if (decoded != value) abort();

  // The value as a parameter of a URL with and without a query.
  for (std::string url : {std::string("/api/v1/pods"), std::string("/api/v1/pods?limit=5")}) {
    const std::string before = url;
    informerd::kube::AppendQueryParam(&url, "labelSelector", value);
    const char separator = before.find('?') == std::string::npos ? '?' : '&';
    if (url != before + separator + "labelSelector=" + escaped) abort();
  }
  return 0;
}
