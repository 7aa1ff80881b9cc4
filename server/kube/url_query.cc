#include "server/kube/url_query.h"

#include "absl/strings/ascii.h"

namespace informerd::kube {

std::string EscapeQueryValue(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    const bool unreserved = absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
                            c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(c);
    } else {
      const unsigned char byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    }
  }
  return out;
}

void AppendQueryParam(std::string* url, std::string_view name,
                      std::string_view value) {
  url->push_back(url->find('?') == std::string::npos ? '?' : '&');
  url->append(name);
  url->push_back('=');
  url->append(EscapeQueryValue(value));
}

}  // namespace informerd::kube
