#include "server/tier/version_bound.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/cache/resource_version.h"

namespace informerd::tier {
namespace {

constexpr uint64_t kMaxEtcdRevision = std::numeric_limits<int64_t>::max();

double Seconds(absl::Duration elapsed) {
  return std::max(0.0, absl::ToDoubleSeconds(elapsed));
}

}  // namespace

absl::Status VersionBound::Check(std::string_view version, absl::Time now,
                                 std::string_view what) {
  const std::optional<uint64_t> value = cache::ParseResourceVersion(version);
  if (!value.has_value() || *value == 0 || *value > kMaxEtcdRevision) {
    return absl::FailedPreconditionError(
        absl::StrCat(std::string(what), " \"", std::string(version),
                     "\" is not an etcd revision (a decimal in 1..", kMaxEtcdRevision, ")"));
  }
  if (!highest_.has_value()) {
    highest_ = *value;
    advanced_ = refilled_ = now;
    tokens_ = static_cast<double>(policy_.burst);
    return absl::OkStatus();
  }
  if (*value <= *highest_) return absl::OkStatus();
  const double rate = static_cast<double>(policy_.revisions_per_second);
  tokens_ = std::min(static_cast<double>(policy_.burst),
                     tokens_ + rate * Seconds(now - refilled_));
  refilled_ = now;
  const double advance = static_cast<double>(*value - *highest_);
  const double since_advanced = rate * Seconds(now - advanced_);
  if (advance <= tokens_) {
    tokens_ -= advance;
  } else if (advance <= since_advanced) {
    tokens_ = 0;
  } else {
    return absl::FailedPreconditionError(absl::StrCat(
        std::string(what), " ", *value, " is ", *value - *highest_, " ahead of ", *highest_,
        ", seen ", absl::FormatDuration(now - advanced_), " ago: more than the ",
        policy_.revisions_per_second, " writes a second (", policy_.burst,
        " at once) a cluster can make"));
  }
  highest_ = *value;
  advanced_ = now;
  return absl::OkStatus();
}

}  // namespace informerd::tier
