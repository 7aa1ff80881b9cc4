// Reads informerd's Prometheus endpoint for benchmarks: one metric summed
// over its label sets, or a histogram's quantile over a window, so a run
// can compare readings before and after.
//
// Thread safety: pure functions (each call makes its own HTTP request).
#ifndef INFORMERD_BENCH_INFORMERD_METRICS_H_
#define INFORMERD_BENCH_INFORMERD_METRICS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace informerd::bench {

// The sum of the samples of `name` in Prometheus text `text` whose label
// sets contain each of `labels` (e.g. {"verb=\"WATCH\""}).
double SumMetricSamples(std::string_view text, std::string_view name,
                        const std::vector<std::string_view>& labels = {});

// The sum of every sample of `name` at `admin_url`/metrics (e.g.
// "http://127.0.0.1:8071"), or -1 when the endpoint cannot be read.
double SumMetric(const std::string& admin_url, std::string_view name);

// The text of `admin_url`/metrics, empty when it cannot be read.
std::string MetricsText(const std::string& admin_url);

// The `q` quantile, in seconds, of the observations histogram `name` (no
// labels) gained between two readings of the metrics text, interpolated
// inside its bucket as Prometheus' histogram_quantile does; -1 without
// observations.
double HistogramQuantileBetween(std::string_view before, std::string_view after,
                                std::string_view name, double q);

// Polls informerd_watchers_open until it is exactly `count` (streams closed
// by a client but not yet by the server still count); false after `timeout`.
bool AwaitWatchersOpen(const std::string& admin_url, double count,
                       absl::Duration timeout = absl::Seconds(60));

// Polls `admin_url`/readyz until it answers 200; false after `timeout`.
bool AwaitReady(const std::string& admin_url, absl::Duration timeout = absl::Seconds(60));

}  // namespace informerd::bench

#endif  // INFORMERD_BENCH_INFORMERD_METRICS_H_
