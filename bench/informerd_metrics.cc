#include "bench/informerd_metrics.h"

#include <sstream>

#include <httplib.h>

#include "absl/strings/numbers.h"

namespace informerd::bench {

double SumMetric(const std::string& admin_url, std::string_view name) {
  httplib::Client client(admin_url);
  auto response = client.Get("/metrics");
  if (!response || response->status != 200) return -1;
  std::istringstream lines(response->body);
  double total = 0;
  for (std::string line; std::getline(lines, line);) {
    // "name{labels} value" or "name value"; not "name_suffix ...".
    if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
    const char next = line[name.size()];
    if (next != '{' && next != ' ') continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) total += value;
  }
  return total;
}

}  // namespace informerd::bench
