// Backoff: exponentially growing, jittered delays between reconnect attempts.
//
// The jitter keeps many clients that lost the same server from reconnecting
// in lock step. Not thread-safe: one Backoff per retry loop.

#ifndef INFORMERD_CLIENT_CPP_BACKOFF_H_
#define INFORMERD_CLIENT_CPP_BACKOFF_H_

#include "absl/random/random.h"
#include "absl/time/time.h"

namespace informerd {
namespace client {

class Backoff {
 public:
  // REQUIRES: absl::ZeroDuration() < initial <= max.
  Backoff(absl::Duration initial, absl::Duration max);

  // A delay drawn uniformly from [d/2, d], where d starts at initial and
  // doubles with every call up to max.
  absl::Duration NextDelay();

  // Back to initial, e.g. after the connection delivered data again.
  void Reset();

 private:
  const absl::Duration initial_;
  const absl::Duration max_;
  absl::Duration current_;
  absl::BitGen random_;
};

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_BACKOFF_H_
