#include "server/log/log.h"

#include <atomic>
#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace informerd::log {
namespace {

std::atomic<int> min_level{static_cast<int>(Level::kInfo)};
std::atomic<bool> json_lines{false};

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarning: return "warning";
    case Level::kError: return "error";
  }
  return "info";
}

void AppendJsonString(std::string* out, std::string_view text) {
  out->push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

}  // namespace

void SetLevel(Level level) { min_level = static_cast<int>(level); }
bool Enabled(Level level) { return static_cast<int>(level) >= min_level.load(); }
void SetJson(bool json) { json_lines = json; }

absl::StatusOr<Level> ParseLevel(std::string_view text) {
  if (text == "debug") return Level::kDebug;
  if (text == "info") return Level::kInfo;
  if (text == "warning" || text == "warn") return Level::kWarning;
  if (text == "error") return Level::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("log level \"", std::string(text), "\": want debug, info, warning or error"));
}

void Write(Level level, std::string_view component, std::string_view message) {
  if (static_cast<int>(level) < min_level) return;
  std::string time = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  std::string line;
  if (json_lines) {
    line = absl::StrCat("{\"ts\":\"", time, "\",\"level\":\"", LevelName(level),
                        "\",\"component\":");
    AppendJsonString(&line, component);
    line.append(",\"msg\":");
    AppendJsonString(&line, message);
    line.append("}\n");
  } else {
    line = absl::StrCat(time, " ", LevelName(level), " ");
    line.append(component).append(": ").append(message).push_back('\n');
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace informerd::log
