// Continue tokens for paged List: the snapshot version and the last key
// served. Pages of one List all read the snapshot at that version (the
// Informer rebuilds it from the event history), as the apiserver's pages all
// read one etcd revision.
//
// A token is a capability to make the server rebuild a snapshot, so callers
// may not make their own: it carries an HMAC-SHA256, under a key drawn at
// random for this process, over the point and over the request fields that
// chose the objects (ContinueScope). A token altered, forged, or presented
// with another resource, namespace, selector or index is INVALID_ARGUMENT.
// A token whose snapshot is older than the configured age is OUT_OF_RANGE,
// as the apiserver answers 410 Expired once etcd has compacted a list's
// revision, and so is a token of another informerd process (a restart, or
// another replica): clients then list again from the start.
#ifndef INFORMERD_SERVER_SERVICE_CONTINUE_TOKEN_H_
#define INFORMERD_SERVER_SERVICE_CONTINUE_TOKEN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace informerd::service {

// The request fields that chose the objects a List pages through.
struct ContinueScope {
  // The served resource, by a name that tells resources apart.
  std::string resource;
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  std::string index_name;
  std::string index_value;
};

struct ContinuePoint {
  uint64_t resource_version = 0;
  std::string last_key;
  // When the List's first page was served: the age limit counts from here,
  // not from the last page.
  absl::Time snapshot_time;
};

// Longer tokens are rejected before decoding.
inline constexpr size_t kMaxContinueTokenBytes = 2048;

// Thread safety: const methods, safe to call from any thread.
class ContinueTokens {
 public:
  // A random key for this process.
  // REQUIRES: max_snapshot_age > absl::ZeroDuration().
  explicit ContinueTokens(absl::Duration max_snapshot_age);
  // For tests: a given key and clock, so two instances can share a key.
  ContinueTokens(std::string key, absl::Duration max_snapshot_age,
                 std::function<absl::Time()> now);

  std::string Encode(const ContinueScope& scope, const ContinuePoint& point) const;

  // INVALID_ARGUMENT or OUT_OF_RANGE (see above), its message starting with
  // "continue_token: ".
  absl::StatusOr<ContinuePoint> Decode(const ContinueScope& scope,
                                       std::string_view token) const;

 private:
  std::string Mac(const ContinueScope& scope, std::string_view payload) const;

  const std::string key_;
  // Tells this process's tokens from another's without revealing the key.
  const std::string key_id_;
  const absl::Duration max_snapshot_age_;
  const std::function<absl::Time()> now_;
};

}  // namespace informerd::service

#endif  // INFORMERD_SERVER_SERVICE_CONTINUE_TOKEN_H_
