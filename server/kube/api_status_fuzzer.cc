// libFuzzer target: ApiStatusFromResponse must explain any failed response
// (whatever body the apiserver, or a proxy in front of it, sends) without
// crashing, with a bounded message and reason, taking the code from a
// Status body only when it gives one; ToStatus never turns a failure into
// OK; ApiStatusFromJson reads any JSON value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rapidjson/document.h"
#include "server/kube/api_status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // The first two bytes are the HTTP status (any int16, so odd and negative
  // ones too), the rest the body.
  const int http_status = static_cast<int16_t>(data[0] << 8 | data[1]);
  const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
  using informerd::kube::ApiStatus;
  const ApiStatus status = informerd::kube::ApiStatusFromResponse(http_status, body);
  if (status.message.size() > informerd::kube::kMaxApiStatusTextBytes ||
      status.reason.size() > informerd::kube::kMaxApiStatusTextBytes) {
    abort();
  }
  rapidjson::Document document;
  document.Parse(body.data(), body.size());
  const bool is_status = !document.HasParseError() && document.IsObject() &&
                         document.HasMember("kind") && document["kind"].IsString() &&
                         std::string_view(document["kind"].GetString(),
                                          document["kind"].GetStringLength()) == "Status";
  if (!is_status) {
    // Not a Status: the HTTP status, and the body's start as the message.
    if (status.code != http_status || !status.reason.empty() ||
        body.substr(0, status.message.size()) != status.message) {
      abort();
    }
  } else if (status.code == 0 && http_status != 0) {
    abort();
  }
  (void)informerd::kube::IsExpired(status);
  const absl::Status error = informerd::kube::ToStatus(status, "GET /x");
  if (error.ok()) abort();
  if (!document.HasParseError()) {
    const ApiStatus from_json = informerd::kube::ApiStatusFromJson(document);
    if (from_json.message.size() > informerd::kube::kMaxApiStatusTextBytes) abort();
  }
  return 0;
}
