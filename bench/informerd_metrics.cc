#include "bench/informerd_metrics.h"

#include <sstream>

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
