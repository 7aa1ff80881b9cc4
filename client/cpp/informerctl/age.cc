#include "client/cpp/informerctl/age.h"

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace informerd {
namespace informerctl {

namespace {

// "<a><first_unit>" or "<a><first_unit><b><second_unit>", the second part
// left out when b is 0.
std::string TwoUnits(int64_t a, const char* first_unit, int64_t b,
                     const char* second_unit) {
  if (b == 0) return absl::StrCat(a, first_unit);
  return absl::StrCat(a, first_unit, b, second_unit);
}

}  // namespace

std::string HumanDuration(absl::Duration duration) {
  // Truncated toward zero, so up to a second in the future still reads 0s.
  const int64_t seconds = absl::ToInt64Seconds(duration);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 2 * 60) return absl::StrCat(seconds, "s");
  const int64_t minutes = seconds / 60;
  if (minutes < 10) return TwoUnits(minutes, "m", seconds % 60, "s");
  if (minutes < 3 * 60) return absl::StrCat(minutes, "m");
  const int64_t hours = minutes / 60;
  if (hours < 8) return TwoUnits(hours, "h", minutes % 60, "m");
  if (hours < 48) return absl::StrCat(hours, "h");
  const int64_t days = hours / 24;
  if (hours < 8 * 24) return TwoUnits(days, "d", hours % 24, "h");
  if (hours < 2 * 365 * 24) return absl::StrCat(days, "d");
  const int64_t years = days / 365;
  if (hours < 8 * 365 * 24) return TwoUnits(years, "y", days % 365, "d");
  return absl::StrCat(years, "y");
}

absl::Time ParseTimestamp(absl::string_view timestamp) {
  absl::Time time;
  std::string error;
  if (timestamp.empty() ||
      !absl::ParseTime(absl::RFC3339_full, timestamp, &time, &error)) {
    return absl::InfinitePast();
  }
  return time;
}

std::string AgeSince(absl::string_view timestamp, absl::Time now) {
  absl::Time time = ParseTimestamp(timestamp);
  if (time == absl::InfinitePast()) return "<unknown>";
  return HumanDuration(now - time);
}

}  // namespace informerctl
}  // namespace informerd
