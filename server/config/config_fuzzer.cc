// libFuzzer target: ParseConfig must read any text without crashing or
// letting a yaml-cpp exception escape, fail only with INVALID_ARGUMENT, and
// accept only a config within its documented bounds: every resource named,
// field index paths without empty ends, history minEvents <= maxEvents, and
// every duration, size and rate inside the range its key allows (the rate
// limiter REQUIRES positive rates and bursts).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/time/time.h"
#include "server/config/config.h"

namespace {

bool Within(absl::Duration value, int64_t min_seconds, int64_t max_seconds) {
  return value >= absl::Seconds(min_seconds) && value <= absl::Seconds(max_seconds);
}

bool Within(double value, double min, double max) { return value >= min && value <= max; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<informerd::config::Config> config =
      informerd::config::ParseConfig(yaml, "fuzz.yaml");
  if (!config.ok()) {
    if (config.status().code() != absl::StatusCode::kInvalidArgument) abort();
    return 0;
  }
  for (const informerd::config::ResourceConfig& resource : config->resources) {
    if (resource.resource.empty()) abort();
    for (const std::string& path : resource.field_indexes) {
      if (path.empty() || path.front() == '.' || path.back() == '.') abort();
    }
    (void)informerd::config::IsSensitive(*config, resource);
  }
  const auto& history = config->history;
  const auto& auth = config->auth;
  const auto& limits = config->limits;
  const auto& rates = limits.rates;
  if (history.min_events < 1 || history.min_events > history.max_events ||
      history.max_events > 10'000'000 || !Within(history.window, 1, 86400) ||
      !Within(config->read_wait, 0, 600) || !Within(config->bookmark_interval, 1, 3600) ||
      config->max_page_bytes < 1024 || config->max_page_bytes > (4u << 20) ||
      !Within(config->list_snapshot_max_age, 1, 3600) || !Within(auth.token_ttl, 0, 3600) ||
      !Within(auth.decision_ttl, 0, 3600) || auth.cache_size < 1 ||
      auth.cache_size > 10'000'000 || !Within(auth.recheck_interval, 1, 86400) ||
      !Within(auth.review_timeout, 1, 60) || !Within(config->tls.refresh_interval, 1, 86400) ||
      limits.max_watches < 1 || limits.max_watches_per_identity < 1 || limits.max_lists < 1 ||
      limits.max_lists_per_identity < 1 || limits.max_watches > 1'000'000 ||
      limits.max_watches_per_identity > 1'000'000 || limits.max_lists > 1'000'000 ||
      limits.max_lists_per_identity > 1'000'000 || !Within(rates.total_per_second, 1, 1e6) ||
      !Within(rates.total_burst, 1, 1e6) || !Within(rates.per_identity_per_second, 1, 1e6) ||
      !Within(rates.per_identity_burst, 1, 1e6) || limits.max_reviews_per_identity < 1 ||
      limits.max_reviews_per_identity > 1'000) {
    abort();
  }
  return 0;
}
