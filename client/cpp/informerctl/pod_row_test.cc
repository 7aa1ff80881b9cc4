#include "client/cpp/informerctl/pod_row.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace informerd {
namespace informerctl {
namespace {

absl::Time Now() {
  return absl::FromUnixSeconds(1767348005);  // 2026-01-02T10:00:05Z
}

PodCells Summarize(const std::string& json) {
  rapidjson::Document pod;
  pod.Parse(json.c_str());
  EXPECT_FALSE(pod.HasParseError()) << json;
  return SummarizePod(pod, Now());
}

// A pod with containers c1 and c2 and the given status fields.
std::string TwoContainers(const std::string& status, const std::string& metadata = "") {
  return absl::StrCat(R"({"metadata":{)", metadata,
                      R"(},"spec":{"containers":[{"name":"c1"},{"name":"c2"}]},"status":{)",
                      status, "}}");
}

TEST(PodRowTest, PendingPodIsItsPhase) {
  PodCells cells = Summarize(TwoContainers(R"("phase":"Pending")"));
  EXPECT_EQ(cells.ready, "0/2");
  EXPECT_EQ(cells.status, "Pending");
  EXPECT_EQ(cells.restarts, "0");
  EXPECT_EQ(cells.ip, "<none>");
  EXPECT_EQ(cells.node, "<none>");
  EXPECT_EQ(cells.nominated_node, "<none>");
  EXPECT_EQ(cells.readiness_gates, "<none>");
}

TEST(PodRowTest, StatusReasonOverridesPhase) {
  EXPECT_EQ(Summarize(TwoContainers(R"("phase":"Failed","reason":"Evicted")")).status,
            "Evicted");
}

TEST(PodRowTest, SchedulingGated) {
  EXPECT_EQ(Summarize(TwoContainers(
                          R"("phase":"Pending","conditions":[{"type":"PodScheduled",)"
                          R"("status":"False","reason":"SchedulingGated"}])"))
                .status,
            "SchedulingGated");
}

TEST(PodRowTest, RunningCountsReadyContainers) {
  PodCells cells = Summarize(TwoContainers(
      R"("phase":"Running","containerStatuses":[)"
      R"({"name":"c1","ready":true,"state":{"running":{}},"restartCount":0},)"
      R"({"name":"c2","ready":false,"state":{"running":{}},"restartCount":0}])"));
  EXPECT_EQ(cells.ready, "1/2");
  EXPECT_EQ(cells.status, "Running");
}

TEST(PodRowTest, WaitingReasonAndRestartsWithTheLastTermination) {
  PodCells cells = Summarize(TwoContainers(
      R"("phase":"Running","containerStatuses":[)"
      R"({"name":"c1","ready":false,"restartCount":4,"state":{"waiting":{"reason":"CrashLoopBackOff"}},)"
      R"("lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-01-02T09:57:03Z"}}},)"
      R"({"name":"c2","ready":true,"restartCount":1,"state":{"running":{}},)"
      R"("lastState":{"terminated":{"exitCode":0,"finishedAt":"2026-01-02T09:00:00Z"}}}])"));
  EXPECT_EQ(cells.status, "CrashLoopBackOff");
  EXPECT_EQ(cells.ready, "1/2");
  EXPECT_EQ(cells.restarts, "5 (3m2s ago)");
}

TEST(PodRowTest, FirstContainersReasonWins) {
  EXPECT_EQ(Summarize(TwoContainers(
                          R"("phase":"Running","containerStatuses":[)"
                          R"({"name":"c1","state":{"waiting":{"reason":"ImagePullBackOff"}}},)"
                          R"({"name":"c2","state":{"waiting":{"reason":"ErrImagePull"}}}])"))
                .status,
            "ImagePullBackOff");
}

TEST(PodRowTest, TerminatedReasonSignalOrExitCode) {
  EXPECT_EQ(Summarize(TwoContainers(
                          R"("phase":"Succeeded","containerStatuses":[)"
                          R"({"name":"c1","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},)"
                          R"({"name":"c2","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}])"))
                .status,
            "Completed");
  EXPECT_EQ(Summarize(TwoContainers(
                          R"("phase":"Failed","containerStatuses":[)"
                          R"({"name":"c1","state":{"terminated":{"exitCode":137,"signal":9}}}])"))
                .status,
            "Signal:9");
  EXPECT_EQ(Summarize(TwoContainers(
                          R"("phase":"Failed","containerStatuses":[)"
                          R"({"name":"c1","state":{"terminated":{"exitCode":2}}}])"))
                .status,
            "ExitCode:2");
}

TEST(PodRowTest, CompletedWithOthersRunning) {
  const std::string completed_and_running =
      R"("containerStatuses":[)"
      R"({"name":"c1","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},)"
      R"({"name":"c2","ready":true,"state":{"running":{}}}])";
  EXPECT_EQ(Summarize(TwoContainers(absl::StrCat(R"("phase":"Running",)",
                                                 completed_and_running)))
                .status,
            "NotReady");
  EXPECT_EQ(Summarize(TwoContainers(absl::StrCat(
                          R"("phase":"Running","conditions":[{"type":"Ready","status":"True"}],)",
                          completed_and_running)))
                .status,
            "Running");
  EXPECT_EQ(Summarize(TwoContainers(
                          R"("phase":"Running","containerStatuses":[)"
                          R"({"name":"c1","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},)"
                          R"({"name":"c2","state":{"terminated":{"exitCode":3,"reason":"Error"}}}])"))
                .status,
            "Error");
}

// init containers i1, i2 (and a sidecar s when given), containers c1.
std::string WithInit(const std::string& init_statuses, bool sidecar = false,
                     const std::string& extra_status = "",
                     const std::string& phase = "Pending") {
  return absl::StrCat(
      R"({"spec":{"initContainers":[{"name":"i1"},{"name":"i2"})",
      sidecar ? R"(,{"name":"s","restartPolicy":"Always"})" : "",
      R"(],"containers":[{"name":"c1"}]},"status":{"phase":")", phase, R"(",)",
      extra_status, R"("initContainerStatuses":[)", init_statuses, "]}}");
}

TEST(PodRowTest, InitContainers) {
  EXPECT_EQ(Summarize(WithInit(
                          R"({"name":"i1","state":{"terminated":{"exitCode":0}}},)"
                          R"({"name":"i2","state":{"running":{}}})"))
                .status,
            "Init:1/2");
  EXPECT_EQ(Summarize(WithInit(
                          R"({"name":"i1","state":{"waiting":{"reason":"PodInitializing"}}},)"
                          R"({"name":"i2","state":{"waiting":{}}})"))
                .status,
            "Init:0/2");
  EXPECT_EQ(Summarize(WithInit(
                          R"({"name":"i1","restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}}},)"
                          R"({"name":"i2","state":{"waiting":{}}})"))
                .status,
            "Init:CrashLoopBackOff");
  EXPECT_EQ(Summarize(WithInit(
                          R"({"name":"i1","restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}}})"))
                .restarts,
            "3");
  EXPECT_EQ(Summarize(WithInit(R"({"name":"i1","state":{"terminated":{"exitCode":1}}})"))
                .status,
            "Init:ExitCode:1");
  EXPECT_EQ(Summarize(WithInit(
                          R"({"name":"i1","state":{"terminated":{"exitCode":1,"signal":15}}})"))
                .status,
            "Init:Signal:15");
  EXPECT_EQ(Summarize(WithInit(
                          R"({"name":"i1","state":{"terminated":{"exitCode":1,"reason":"OOMKilled"}}})"))
                .status,
            "Init:OOMKilled");
}

TEST(PodRowTest, SidecarsCountAsContainers) {
  PodCells cells = Summarize(WithInit(
      R"({"name":"i1","state":{"terminated":{"exitCode":0}}},)"
      R"({"name":"i2","state":{"terminated":{"exitCode":0}}},)"
      R"({"name":"s","started":true,"ready":true,"restartCount":2,"state":{"running":{}}})",
      /*sidecar=*/true,
      R"("conditions":[{"type":"Initialized","status":"True"}],)"
      R"("containerStatuses":[{"name":"c1","ready":true,"state":{"running":{}}}],)",
      "Running"));
  EXPECT_EQ(cells.ready, "2/2");
  EXPECT_EQ(cells.status, "Running");
  // Restarts of finished init containers no longer count once initialized;
  // a sidecar's do.
  EXPECT_EQ(cells.restarts, "2");
}

TEST(PodRowTest, DeletedPods) {
  const std::string deleting = R"("deletionTimestamp":"2026-01-02T10:00:00Z")";
  EXPECT_EQ(Summarize(TwoContainers(R"("phase":"Running")", deleting)).status,
            "Terminating");
  EXPECT_EQ(Summarize(TwoContainers(R"("phase":"Succeeded")", deleting)).status,
            "Succeeded");
  EXPECT_EQ(Summarize(TwoContainers(R"("phase":"Running","reason":"NodeLost")", deleting))
                .status,
            "Unknown");
}

TEST(PodRowTest, WideCells) {
  PodCells cells = Summarize(
      R"({"spec":{"nodeName":"n1","containers":[{"name":"c"}],)"
      R"("readinessGates":[{"conditionType":"a"},{"conditionType":"b"},{"conditionType":"c"}]},)"
      R"("status":{"phase":"Running","nominatedNodeName":"n2",)"
      R"("podIPs":[{"ip":"10.0.0.5"},{"ip":"fd00::5"}],)"
      R"("conditions":[{"type":"a","status":"True"},{"type":"b","status":"False"},)"
      R"({"type":"b","status":"True"}]}})");
  EXPECT_EQ(cells.ip, "10.0.0.5");
  EXPECT_EQ(cells.node, "n1");
  EXPECT_EQ(cells.nominated_node, "n2");
  EXPECT_EQ(cells.readiness_gates, "1/3");
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
