#include "bench/informerd_metrics.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include <httplib.h>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"

namespace informerd::bench {

double SumMetricSamples(std::string_view text, std::string_view name,
                        const std::vector<std::string_view>& labels) {
  std::istringstream lines{std::string(text)};
  double total = 0;
  for (std::string line; std::getline(lines, line);) {
    // "name{labels} value" or "name value"; not "name_suffix ...".
    if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
    const char next = line[name.size()];
    if (next != '{' && next != ' ') continue;
    bool matches = true;
    for (std::string_view label : labels) matches = matches && line.find(label) != std::string::npos;
    double value = 0;
    if (matches && absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) total += value;
  }
  return total;
}

double SumMetric(const std::string& admin_url, std::string_view name) {
  httplib::Client client(admin_url);
  auto response = client.Get("/metrics");
  if (!response || response->status != 200) return -1;
  return SumMetricSamples(response->body, name);
}

std::string MetricsText(const std::string& admin_url) {
  httplib::Client client(admin_url);
  auto response = client.Get("/metrics");
  if (!response || response->status != 200) return "";
  return response->body;
}

namespace {

// (upper bound, cumulative count) of each bucket of histogram `name`, in
// the order written (rising bounds, +Inf last).
std::vector<std::pair<double, double>> Buckets(std::string_view text, std::string_view name) {
  std::vector<std::pair<double, double>> buckets;
  const std::string prefix = std::string(name) + "_bucket{le=\"";
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t quote = line.find('"', prefix.size());
    if (quote == std::string::npos) continue;
    const std::string bound = line.substr(prefix.size(), quote - prefix.size());
    double le = 0;
    double count = 0;
    if (bound == "+Inf") {
      le = std::numeric_limits<double>::infinity();
    } else if (!absl::SimpleAtod(bound, &le)) {
      continue;
    }
    if (!absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &count)) continue;
    buckets.emplace_back(le, count);
  }
  return buckets;
}

}  // namespace

double HistogramQuantileBetween(std::string_view before, std::string_view after,
                                std::string_view name, double q) {
  std::vector<std::pair<double, double>> then = Buckets(before, name);
  std::vector<std::pair<double, double>> now = Buckets(after, name);
  if (now.empty() || (!then.empty() && then.size() != now.size())) return -1;
  for (size_t i = 0; i < then.size(); ++i) now[i].second -= then[i].second;
  const double total = now.back().second;
  if (total <= 0) return -1;
  const double rank = q * total;
  double lower = 0;
  double below = 0;
  for (const auto& [le, count] : now) {
    if (count >= rank) {
      if (std::isinf(le)) return lower;  // beyond the last bound
      return lower + (le - lower) * (count > below ? (rank - below) / (count - below) : 1);
    }
    lower = le;
    below = count;
  }
  return lower;
}

bool AwaitWatchersOpen(const std::string& admin_url, double count, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (SumMetric(admin_url, "informerd_watchers_open") != count) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

bool AwaitReady(const std::string& admin_url, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    httplib::Client client(admin_url);
    client.set_connection_timeout(1);
    auto response = client.Get("/readyz");
    if (response && response->status == 200) return true;
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
}

}  // namespace informerd::bench
