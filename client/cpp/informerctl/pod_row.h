// What kubectl shows of a pod: READY, STATUS and RESTARTS, and the cells
// -o wide adds, by the rules of the API server's pod printer (the one
// `kubectl get pods` shows): the phase or status.reason, overridden by a
// failing or waiting init container ("Init:1/2", "Init:CrashLoopBackOff"),
// then by the reason of a waiting or terminated container, "Terminating"
// for a pod being deleted; restartable init containers (sidecars) count as
// containers.

#ifndef INFORMERD_CLIENT_CPP_INFORMERCTL_POD_ROW_H_
#define INFORMERD_CLIENT_CPP_INFORMERCTL_POD_ROW_H_

#include <string>

#include "absl/time/time.h"
#include "rapidjson/document.h"

namespace informerd {
namespace informerctl {

struct PodCells {
  std::string ready;     // "1/2"
  std::string status;    // "Running", "CrashLoopBackOff", "Init:0/1", ...
  std::string restarts;  // "0", or "3 (2m ago)" after a last termination
  // -o wide; "<none>" when unset.
  std::string ip;
  std::string node;
  std::string nominated_node;
  std::string readiness_gates;  // "<none>" or "<true>/<gates>"
};

// pod: a Pod object as JSON. now: for the age of the last restart.
PodCells SummarizePod(const rapidjson::Value& pod, absl::Time now);

}  // namespace informerctl
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_INFORMERCTL_POD_ROW_H_
