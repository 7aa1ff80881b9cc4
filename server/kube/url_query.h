// Query strings for API server requests.
#ifndef INFORMERD_SERVER_KUBE_URL_QUERY_H_
#define INFORMERD_SERVER_KUBE_URL_QUERY_H_

#include <string>
#include <string_view>

namespace informerd::kube {

// Percent-encodes everything except RFC 3986 unreserved characters, so
// selectors ("app in (a,b)") and continue tokens (base64) survive intact.
std::string EscapeQueryValue(std::string_view value);

// Appends "name=value" to `url`, preceded by '?' or '&' as needed.
void AppendQueryParam(std::string* url, std::string_view name,
                      std::string_view value);

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_URL_QUERY_H_
