// Leveled logging: one line per event on stderr, as text or JSON.
//
// Thread safety: all functions are thread-safe; a line is written whole.
#ifndef INFORMERD_SERVER_LOG_LOG_H_
#define INFORMERD_SERVER_LOG_LOG_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace informerd::log {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Lines below `level` are dropped. Default kInfo.
void SetLevel(Level level);
// JSON lines ({"ts":..,"level":..,"component":..,"msg":..}) instead of text.
void SetJson(bool json);
// "debug", "info", "warning" or "error".
absl::StatusOr<Level> ParseLevel(std::string_view text);

void Write(Level level, std::string_view component, std::string_view message);

// Whether lines of `level` are written: callers building a costly message
// (one per request or per event) ask first.
bool Enabled(Level level);

inline void Debug(std::string_view component, std::string_view message) {
  Write(Level::kDebug, component, message);
}
inline void Info(std::string_view component, std::string_view message) {
  Write(Level::kInfo, component, message);
}
inline void Warning(std::string_view component, std::string_view message) {
  Write(Level::kWarning, component, message);
}
inline void Error(std::string_view component, std::string_view message) {
  Write(Level::kError, component, message);
}

}  // namespace informerd::log

#endif  // INFORMERD_SERVER_LOG_LOG_H_
