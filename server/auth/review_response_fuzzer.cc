// libFuzzer target: the TokenReview and SubjectAccessReview response
// parsers must survive any body the apiserver (or whatever answers in its
// place) sends, fail only with the documented codes, never accept a non-2xx
// answer, and read an accepted user the same when it is written back as a
// response (nothing invented, nothing lost).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "server/auth/review_response.h"

namespace {

using informerd::auth::ParseAccessReviewResponse;
using informerd::auth::ParseTokenReviewResponse;
using informerd::auth::UserInfo;

void String(rapidjson::Writer<rapidjson::StringBuffer>& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void Strings(rapidjson::Writer<rapidjson::StringBuffer>& writer,
             const std::vector<std::string>& values) {
  writer.StartArray();
  for (const std::string& value : values) String(writer, value);
  writer.EndArray();
}

// A TokenReview response authenticating `user`.
std::string TokenReviewResponse(const UserInfo& user) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("status");
  writer.StartObject();
  writer.Key("authenticated");
  writer.Bool(true);
  writer.Key("user");
  writer.StartObject();
  writer.Key("username");
  String(writer, user.username);
  writer.Key("uid");
  String(writer, user.uid);
  writer.Key("groups");
  Strings(writer, user.groups);
  writer.Key("extra");
  writer.StartObject();
  for (const auto& [key, values] : user.extra) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    Strings(writer, values);
  }
  writer.EndObject();
  writer.EndObject();
  writer.EndObject();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool Same(const UserInfo& a, const UserInfo& b) {
  return a.username == b.username && a.uid == b.uid && a.groups == b.groups &&
         a.extra == b.extra;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the review (bit 0) and the HTTP status; mostly 201,
  // the apiserver's answer to a created review.
  static constexpr int kHttpStatuses[] = {201, 201, 201, 201, 200, 299, 300, 199,
                                          401, 403, 404, 429, 500, 503, 0, -1};
  const int http_status = kHttpStatuses[(data[0] >> 1) % 16];
  const bool success = http_status >= 200 && http_status < 300;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  if (data[0] & 1) {
    absl::StatusOr<bool> allowed = ParseAccessReviewResponse(http_status, body);
    if (!allowed.ok() && allowed.status().code() != absl::StatusCode::kUnavailable) abort();
    if (allowed.ok() && !success) abort();
    return 0;
  }
  absl::StatusOr<UserInfo> user = ParseTokenReviewResponse(http_status, body);
  if (!user.ok()) {
    const absl::StatusCode code = user.status().code();
    if (code != absl::StatusCode::kUnavailable && code != absl::StatusCode::kUnauthenticated) {
      abort();
    }
    if (!success && code != absl::StatusCode::kUnavailable) abort();
    return 0;
  }
  if (!success || user->username.empty()) abort();
  absl::StatusOr<UserInfo> again = ParseTokenReviewResponse(201, TokenReviewResponse(*user));
  if (!again.ok() || !Same(*user, *again)) abort();
  return 0;
}
