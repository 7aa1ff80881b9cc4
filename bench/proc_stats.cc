#include "bench/proc_stats.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace informerd::bench {

ProcStats ReadProcStats(pid_t pid) {
  ProcStats stats;
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  // The command name may contain spaces and parentheses; fields resume
  // after its last ')'.
  size_t end_of_name = stat.rfind(')');
  if (end_of_name == std::string::npos) return stats;
  std::istringstream fields(stat.substr(end_of_name + 1));
  std::vector<std::string> tokens;
  for (std::string token; fields >> token;) tokens.push_back(token);
  // tokens[0] is field 3 (state); utime and stime are fields 14 and 15.
  if (tokens.size() < 13) return stats;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  stats.cpu_seconds = (std::stod(tokens[11]) + std::stod(tokens[12])) / ticks;

  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  size_t pages_total = 0, pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return stats;
  stats.resident_bytes = pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  stats.ok = true;
  return stats;
}

}  // namespace informerd::bench
