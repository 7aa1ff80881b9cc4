#include "client/cpp/informerctl/pod_row.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "client/cpp/informerctl/age.h"
#include "client/cpp/informerctl/json_fields.h"

namespace informerd {
namespace informerctl {

namespace {

// A container's status as the printer reads it.
struct ContainerState {
  bool waiting;
  std::string waiting_reason;
  bool terminated;
  std::string terminated_reason;
  int64_t exit_code;
  int64_t signal;
  bool running;
  bool ready;
  bool started;
  int64_t restart_count;
  absl::Time last_finished;  // InfinitePast without a last termination
};

ContainerState ReadState(const rapidjson::Value& status) {
  ContainerState state;
  state.waiting = HasField(status, {"state", "waiting"});
  state.waiting_reason = StringAt(status, {"state", "waiting", "reason"});
  state.terminated = HasField(status, {"state", "terminated"});
  state.terminated_reason = StringAt(status, {"state", "terminated", "reason"});
  state.exit_code = IntAt(status, {"state", "terminated", "exitCode"});
  state.signal = IntAt(status, {"state", "terminated", "signal"});
  state.running = HasField(status, {"state", "running"});
  state.ready = BoolAt(status, {"ready"});
  state.started = BoolAt(status, {"started"});
  state.restart_count = IntAt(status, {"restartCount"});
  state.last_finished =
      HasField(status, {"lastState", "terminated"})
          ? ParseTimestamp(StringAt(status, {"lastState", "terminated", "finishedAt"}))
          : absl::InfinitePast();
  return state;
}

// The reason a terminated container gives: its reason, else its signal,
// else its exit code.
std::string TerminatedReason(const ContainerState& state) {
  if (!state.terminated_reason.empty()) return state.terminated_reason;
  if (state.signal != 0) return absl::StrCat("Signal:", state.signal);
  return absl::StrCat("ExitCode:", state.exit_code);
}

bool ConditionIs(const rapidjson::Value& pod, absl::string_view type,
                 absl::string_view status) {
  for (const rapidjson::Value& condition : ArrayAt(pod, {"status", "conditions"})) {
    if (StringAt(condition, {"type"}) == type) {
      return StringAt(condition, {"status"}) == status;
    }
  }
  return false;
}

// Names of init containers with restartPolicy Always: sidecars, which keep
// running beside the containers.
std::set<std::string> SidecarNames(const rapidjson::Value& pod) {
  std::set<std::string> names;
  for (const rapidjson::Value& container : ArrayAt(pod, {"spec", "initContainers"})) {
    if (StringAt(container, {"restartPolicy"}) == "Always") {
      names.insert(StringAt(container, {"name"}));
    }
  }
  return names;
}

std::string OrNone(std::string value) {
  return value.empty() ? "<none>" : value;
}

std::string ReadinessGates(const rapidjson::Value& pod) {
  rapidjson::Value::ConstArray gates = ArrayAt(pod, {"spec", "readinessGates"});
  if (gates.Empty()) return "<none>";
  int satisfied = 0;
  for (const rapidjson::Value& gate : gates) {
    // The first condition of the gate's type decides.
    for (const rapidjson::Value& condition :
         ArrayAt(pod, {"status", "conditions"})) {
      if (StringAt(condition, {"type"}) != StringAt(gate, {"conditionType"})) {
        continue;
      }
      if (StringAt(condition, {"status"}) == "True") ++satisfied;
      break;
    }
  }
  return absl::StrCat(satisfied, "/", gates.Size());
}

}  // namespace

PodCells SummarizePod(const rapidjson::Value& pod, absl::Time now) {
  const std::set<std::string> sidecars = SidecarNames(pod);
  const size_t init_count = ArrayAt(pod, {"spec", "initContainers"}).Size();
  const size_t total = ArrayAt(pod, {"spec", "containers"}).Size() + sidecars.size();
  const std::string phase = StringAt(pod, {"status", "phase"});
  const std::string pod_reason = StringAt(pod, {"status", "reason"});

  std::string reason = pod_reason.empty() ? phase : pod_reason;
  for (const rapidjson::Value& condition : ArrayAt(pod, {"status", "conditions"})) {
    if (StringAt(condition, {"type"}) == "PodScheduled" &&
        StringAt(condition, {"reason"}) == "SchedulingGated") {
      reason = "SchedulingGated";
    }
  }

  int64_t restarts = 0;
  int64_t sidecar_restarts = 0;
  size_t ready = 0;
  absl::Time last_restart = absl::InfinitePast();
  absl::Time last_sidecar_restart = absl::InfinitePast();

  // The first init container that has not succeeded decides the status.
  bool initializing = false;
  rapidjson::Value::ConstArray init_statuses =
      ArrayAt(pod, {"status", "initContainerStatuses"});
  for (size_t i = 0; i < init_statuses.Size(); ++i) {
    const ContainerState state = ReadState(init_statuses[i]);
    const bool sidecar = sidecars.count(StringAt(init_statuses[i], {"name"})) > 0;
    restarts += state.restart_count;
    last_restart = std::max(last_restart, state.last_finished);
    if (sidecar) {
      sidecar_restarts += state.restart_count;
      last_sidecar_restart = std::max(last_sidecar_restart, state.last_finished);
    }
    if (state.terminated && state.exit_code == 0) continue;
    if (sidecar && state.started) {
      if (state.ready) ++ready;
      continue;
    }
    if (state.terminated) {
      reason = absl::StrCat("Init:", TerminatedReason(state));
    } else if (state.waiting && !state.waiting_reason.empty() &&
               state.waiting_reason != "PodInitializing") {
      reason = absl::StrCat("Init:", state.waiting_reason);
    } else {
      reason = absl::StrCat("Init:", i, "/", init_count);
    }
    initializing = true;
    break;
  }

  if (!initializing || ConditionIs(pod, "Initialized", "True")) {
    restarts = sidecar_restarts;
    last_restart = last_sidecar_restart;
    bool has_running = false;
    std::string error_reason;
    // From the last container to the first, so the first one's reason wins.
    rapidjson::Value::ConstArray statuses =
        ArrayAt(pod, {"status", "containerStatuses"});
    for (size_t i = statuses.Size(); i-- > 0;) {
      const ContainerState state = ReadState(statuses[i]);
      restarts += state.restart_count;
      last_restart = std::max(last_restart, state.last_finished);
      if (state.waiting && !state.waiting_reason.empty()) {
        reason = state.waiting_reason;
      } else if (state.terminated) {
        reason = TerminatedReason(state);
        if (state.exit_code != 0) error_reason = reason;
      } else if (state.ready && state.running) {
        has_running = true;
        ++ready;
      }
    }
    // A pod with a completed container but others still running is not
    // complete.
    if (reason == "Completed") {
      if (has_running && ConditionIs(pod, "Ready", "True")) {
        reason = "Running";
      } else if (!error_reason.empty()) {
        reason = error_reason;
      } else if (has_running) {
        reason = "NotReady";
      }
    }
  }

  if (HasField(pod, {"metadata", "deletionTimestamp"})) {
    if (pod_reason == "NodeLost") {
      reason = "Unknown";
    } else if (phase != "Succeeded" && phase != "Failed") {
      reason = "Terminating";
    }
  }

  PodCells cells;
  cells.ready = absl::StrCat(ready, "/", total);
  cells.status = reason;
  cells.restarts = absl::StrCat(restarts);
  if (restarts != 0 && last_restart != absl::InfinitePast()) {
    absl::StrAppend(&cells.restarts, " (", HumanDuration(now - last_restart),
                    " ago)");
  }
  rapidjson::Value::ConstArray ips = ArrayAt(pod, {"status", "podIPs"});
  cells.ip = OrNone(ips.Empty() ? "" : StringAt(ips[0], {"ip"}));
  cells.node = OrNone(StringAt(pod, {"spec", "nodeName"}));
  cells.nominated_node = OrNone(StringAt(pod, {"status", "nominatedNodeName"}));
  cells.readiness_gates = ReadinessGates(pod);
  return cells;
}

}  // namespace informerctl
}  // namespace informerd
