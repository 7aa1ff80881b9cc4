// ApiStatus: a Kubernetes `Status` object, as the API server returns it in
// the body of a failed request or as the object of a watch ERROR event.
#ifndef INFORMERD_SERVER_KUBE_API_STATUS_H_
#define INFORMERD_SERVER_KUBE_API_STATUS_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "rapidjson/document.h"

namespace informerd::kube {

// The most of a response's text (message, reason) an ApiStatus keeps: it
// explains an error in a log line or a status message, and the body can be
// anything (a webhook's message, a proxy's HTML page).
inline constexpr size_t kMaxApiStatusTextBytes = 512;

struct ApiStatus {
  int code = 0;            // HTTP status code, e.g. 410
  std::string reason;      // machine-readable, e.g. "Expired"; may be empty
  std::string message;     // human-readable
};

// Reads a Status object. Missing fields stay empty/zero; text is cut to
// kMaxApiStatusTextBytes. Never fails, since a Status is only ever read to
// explain an error that already happened.
ApiStatus ApiStatusFromJson(const rapidjson::Value& object);

// Explains a non-2xx response: its body's Status when it is one, otherwise
// `http_status` with (a prefix of) the body as the message.
ApiStatus ApiStatusFromResponse(int http_status, std::string_view body);

// True if the requested resourceVersion or continue token is too old for
// the API server: the caller must list again from scratch.
bool IsExpired(const ApiStatus& status);

// An absl::Status carrying the Kubernetes status, with the code mapped to
// the closest canonical code (404 -> NOT_FOUND, 410 -> OUT_OF_RANGE, ...).
absl::Status ToStatus(const ApiStatus& status, std::string_view context);

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_API_STATUS_H_
