// kubectl's AGE: how long ago a timestamp was, in the rounding of
// k8s.io/apimachinery's duration.HumanDuration ("45s", "3m2s", "10m",
// "5h30m", "2d3h", "1y20d").

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_AGE_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_AGE_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace informerd {
namespace informerctl {

// "<invalid>" for more than a second in the future (clock skew up to that
// reads as "0s").
std::string HumanDuration(absl::Duration duration);

// HumanDuration(now - timestamp) for an RFC 3339 timestamp; "<unknown>" when
// timestamp is empty or not RFC 3339, as kubectl shows a zero time.
std::string AgeSince(absl::string_view timestamp, absl::Time now);

// The RFC 3339 timestamp; absl::InfinitePast() when empty or invalid.
absl::Time ParseTimestamp(absl::string_view timestamp);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_AGE_H_
