#include "server/service/continue_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/cache/resource_version.h"

namespace informerd::service {
namespace {

// Version tag, key id, MAC, then "version:snapshot_seconds:last_key".
constexpr std::string_view kTag = "i2";
constexpr size_t kKeyIdBytes = 8;
// 128 bits of the HMAC-SHA256: forging one takes 2^128 tries.
constexpr size_t kMacBytes = 16;
constexpr size_t kKeyBytes = 32;

absl::Status Malformed(const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("continue_token: ", why));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
           &size) == nullptr) {
    // Only a broken libcrypto gets here; a token without a MAC must never
    // be issued.
    std::abort();
  }
  return std::string(reinterpret_cast<const char*>(out), size);
}

std::string RandomKey() {
  std::string key(kKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), key.size()) != 1) {
    std::abort();  // no entropy: better no server than forgeable tokens
  }
  return key;
}

absl::string_view AsAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Length-prefixed, so that no two scopes encode alike.
void AppendField(std::string* out, std::string_view field) {
  absl::StrAppend(out, field.size(), ":", std::string(field));
}

}  // namespace

ContinueTokens::ContinueTokens(absl::Duration max_snapshot_age)
    : ContinueTokens(RandomKey(), max_snapshot_age, [] { return absl::Now(); }) {}

ContinueTokens::ContinueTokens(std::string key, absl::Duration max_snapshot_age,
                               std::function<absl::Time()> now)
    : key_(std::move(key)),
      key_id_(HmacSha256(key_, "informerd continue token key id").substr(0, kKeyIdBytes)),
      max_snapshot_age_(max_snapshot_age),
      now_(std::move(now)) {}

std::string ContinueTokens::Mac(const ContinueScope& scope, std::string_view payload) const {
  std::string data;
  for (std::string_view field : {std::string_view(scope.resource), std::string_view(scope.namespace_),
                                 std::string_view(scope.label_selector),
                                 std::string_view(scope.field_selector),
                                 std::string_view(scope.index_name),
                                 std::string_view(scope.index_value), payload}) {
    AppendField(&data, field);
  }
  return HmacSha256(key_, data).substr(0, kMacBytes);
}

std::string ContinueTokens::Encode(const ContinueScope& scope, const ContinuePoint& point) const {
  std::string payload = absl::StrCat(point.resource_version, ":",
                                     absl::ToUnixSeconds(point.snapshot_time), ":", point.last_key);
  return absl::WebSafeBase64Escape(
      absl::StrCat(std::string(kTag), key_id_, Mac(scope, payload), payload));
}

absl::StatusOr<ContinuePoint> ContinueTokens::Decode(const ContinueScope& scope,
                                                     std::string_view token) const {
  if (token.size() > kMaxContinueTokenBytes) {
    return Malformed(absl::StrCat("longer than ", kMaxContinueTokenBytes, " bytes"));
  }
  std::string decoded;
  if (!absl::WebSafeBase64Unescape(absl::string_view(token.data(), token.size()), &decoded)) {
    return Malformed("not a token this server issued (bad encoding)");
  }
  std::string_view text = decoded;
  if (text.size() < kTag.size() + kKeyIdBytes + kMacBytes || text.substr(0, kTag.size()) != kTag) {
    return Malformed("not a token this server issued");
  }
  text.remove_prefix(kTag.size());
  if (text.substr(0, kKeyIdBytes) != key_id_) {
    return absl::OutOfRangeError(
        "continue_token: issued by another informerd process (a restart, or another "
        "replica); list again from the start");
  }
  text.remove_prefix(kKeyIdBytes);
  std::string_view mac = text.substr(0, kMacBytes);
  std::string_view payload = text.substr(kMacBytes);
  std::string expected = Mac(scope, payload);
  if (CRYPTO_memcmp(mac.data(), expected.data(), kMacBytes) != 0) {
    return Malformed(
        "not valid for this request (altered, or issued for another resource, namespace, "
        "selector or index)");
  }
  // From here on the payload is one this process wrote.
  size_t colon = payload.find(':');
  size_t second = colon == std::string_view::npos ? colon : payload.find(':', colon + 1);
  if (second == std::string_view::npos) return Malformed("not a token this server issued");
  std::optional<uint64_t> version = cache::ParseResourceVersion(payload.substr(0, colon));
  int64_t snapshot_seconds = 0;
  if (!version.has_value() || *version == 0 ||
      !absl::SimpleAtoi(AsAbsl(payload.substr(colon + 1, second - colon - 1)),
                        &snapshot_seconds)) {
    return Malformed("not a token this server issued");
  }
  std::string_view key = payload.substr(second + 1);
  if (key.empty()) return Malformed("empty key");
  ContinuePoint point{*version, std::string(key), absl::FromUnixSeconds(snapshot_seconds)};
  if (now_() - point.snapshot_time > max_snapshot_age_) {
    return absl::OutOfRangeError(
        absl::StrCat("continue_token: expired: its list began more than ",
                     absl::FormatDuration(max_snapshot_age_), " ago; list again from the start"));
  }
  return point;
}

}  // namespace informerd::service
