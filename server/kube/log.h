// A stand-in for the shared logger: one warning line on stderr.
#ifndef INFORMERD_SERVER_KUBE_LOG_H_
#define INFORMERD_SERVER_KUBE_LOG_H_

#include <string_view>

namespace informerd::kube {

// Writes `msg` as one line to stderr. Thread-safe.
void LogWarning(std::string_view msg);

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_LOG_H_
